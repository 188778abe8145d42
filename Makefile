# Every target creates/refreshes .venv itself: `make demo` and `make test` are the only
# set-up commands a fresh machine needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean venv

venv: $(STAMP)

# Re-installs only when pyproject.toml changes, so a second run costs nothing.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kgbench demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 tests

bench: $(STAMP)
	$(BIN)/python bench/store_bench.py

lint: $(STAMP)
	$(BIN)/ruff check kgstore loaders llm extension scoring kgbench tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) kgbench-data
