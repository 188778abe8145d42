"""``kgbench cypher`` at the edges a hostile user probed (issue 18 review: C1, C2, C5,
S3, W3, W4, U5).

Each test runs the real CLI against a real store (in this process, :func:`run`; in a child
process where a failure would crash or hang the caller, :func:`run_process`): queries the
engine crashed on are refused with one line (exit 1, no segfault); ``--param`` values the
engine cannot take are usage errors (exit 2); the rows printed and the time taken are
bounded; ``--json`` is JSON a strict parser reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kgbench.cli.cypher import DEFAULT_LIMIT_ROWS
from kgstore.cypher.guard import MAX_CASE_NESTING, MAX_NESTING, MAX_TOKENS
from tests.kgbench.test_cli import CLI, loaded_store, run, run_process

FACTS = "/m/01\t/film/film/directed_by\t/m/02\n/m/01\t/film/film/starring\t/m/03\n"
NAMES = "/m/01\tAlpha Film\n/m/02\tDana Director\n/m/03\tSam Star\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return loaded_store(tmp_path_factory.mktemp("cypher-limits"), FACTS, NAMES)


def one_error(proc: subprocess.CompletedProcess[str], code: int) -> str:
    """The exit code is ``code`` and stderr holds one ``Error:`` line and nothing more
    (no traceback, no hint, no usage box); return that line."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr[-2000:]
    assert proc.stdout == ""
    return lines[0]


def strict_json(text: str) -> Any:
    """Parse as a strict JSON reader would: bare NaN and Infinity are errors."""
    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


# -- C1, C2: queries the engine crashed on ------------------------------------------------

@pytest.mark.parametrize(("query", "fragment"), [
    ("RETURN " + "(" * 5000 + "1" + ")" * 5000, "nests brackets at least 4000 deep"),
    ("RETURN " + "[" * 3000 + "1" + "]" * 3000, "nests brackets at least 3000 deep"),
    ("RETURN " + "(" * (MAX_NESTING + 1) + "1" + ")" * (MAX_NESTING + 1),
     f"nests brackets {MAX_NESTING + 1} deep (at most {MAX_NESTING} allowed)"),
    ("RETURN " + "CASE WHEN true THEN " * 24 + "1" + " END" * 24,
     f"nests CASE expressions 24 deep (at most {MAX_CASE_NESTING} allowed)"),
    ("RETURN " + "+".join(["1"] * 10000), f"longer than {MAX_TOKENS:,} tokens"),
])
def test_queries_the_engine_crashed_on_are_one_line(store: Path, query: str,
                                                    fragment: str) -> None:
    """The old CLI passed these to the engine: rc 139 (segfault) or minutes of work."""
    started = time.perf_counter()
    line = one_error(run_process("cypher", query, "--store", store), 1)
    assert fragment in line
    assert time.perf_counter() - started < 60


@pytest.mark.slow
@pytest.mark.parametrize("query", [
    "WITH 4294967296 AS n RETURN size(range(1, n))",   # past 2^32 from a variable
    "WITH 5000000000 AS n RETURN size(range(1, n)) AS s",
])
def test_a_query_that_ends_the_embedded_engine_costs_only_its_worker(store: Path,
                                                                    query: str) -> None:
    """Issue 32: values the read-only check cannot see (a variable) still segfaulted the
    CLI (rc 139). The embedded store's queries run in a worker process: one line."""
    # the engine builds the list before it fails: on a loaded machine that took longer
    # than the default 30 s (a timeout, not the crash this is about)
    line = one_error(run("cypher", query, "--store", store, "--timeout", "120"), 1)
    assert "ended the database engine's process (SIGSEGV)" in line, line
    assert "narrow it" in line
    proc = run("cypher", "RETURN 1 AS x", "--store", store, "--json")   # the store is fine
    assert proc.returncode == 0 and strict_json(proc.stdout)["rows"] == [[1]], proc.stderr


# -- C5, U5: parameter values the engine could not take -------------------------------------

@pytest.mark.parametrize(("value", "fragment"), [
    ('[1,"a",null]', "$p[1] is a string, but $p already holds a number"),
    ("[" * 5000 + "]" * 5000, "--param p: the value nests lists and maps more than 32 deep"),
    ("99999999999999999999999999", "beyond a 64-bit integer"),
    ("NaN", "--param p: NaN is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
    ("1e400", "$p is inf"),
    ("[]", "the type of $p[…] cannot be told"),
    ('[{"a":1},{"b":2}]', "the maps of a list must have the same keys"),
])
def test_bad_parameter_values_are_usage_errors(store: Path, value: str, fragment: str) -> None:
    line = one_error(run("cypher", "RETURN $p AS x", "-p", f"p={value}", "--store", store), 2)
    assert fragment in line, line


def test_a_malformed_param_is_one_line() -> None:
    line = one_error(run("cypher", "RETURN 1", "--param", "novalue"), 2)
    assert "expected NAME=VALUE" in line


def test_text_and_json_values_still_work(store: Path) -> None:
    proc = run("cypher", "RETURN $s AS s, $n AS n, $l AS l, $m AS m", "--json", "-p", "s=NaN text",
               "-p", "n=7", "-p", "l=[1, 2.5]", "-p", 'm={"b": 1, "a": [true]}', "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert strict_json(proc.stdout)["rows"] == [["NaN text", 7, [1.0, 2.5], {"a": [True], "b": 1}]]


# -- W4: parameters missing or unused -------------------------------------------------------

def test_a_parameter_not_given_is_a_usage_error(store: Path) -> None:
    """The old CLI printed one null row and exited 0."""
    line = one_error(run("cypher", "RETURN $p AS x", "--store", store), 2)
    assert line == "Error: parameter $p is not given: pass -p p=VALUE"


def test_an_unused_parameter_gets_a_note(store: Path) -> None:
    proc = run("cypher", "RETURN $a AS x, '$zz' AS y // $zz", "-p", "a=1", "-p", "zz=1",
               "--json", "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert "-p zz is not used by the query" in proc.stderr
    assert "-p a " not in proc.stderr
    assert strict_json(proc.stdout)["rows"] == [[1, "$zz"]]


# -- W3: JSON output --------------------------------------------------------------------

def test_json_output_has_no_nan_or_infinity(store: Path) -> None:
    """The old output held bare NaN and Infinity, which strict JSON readers refuse."""
    proc = run("cypher", "RETURN 0.0/0.0 AS y, 1.0/0.0 AS z, -1.0/0.0 AS w, [0.0/0.0, 1.5] AS l",
               "--json", "--store", store)
    assert proc.returncode == 0, proc.stderr
    doc = strict_json(proc.stdout)
    assert doc["rows"] == [[None, None, None, [None, 1.5]]]


# -- S3: rows and time --------------------------------------------------------------------

def _max_rss_mb(args: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the CLI under a parent that reports its peak memory (its only child)."""
    probe = ("import resource, subprocess, sys; "
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
             "sys.exit(p.returncode)")
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    env.update({"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"})
    proc = subprocess.run([sys.executable, "-c", probe, *CLI, *args], capture_output=True,
                          text=True, encoding="utf-8", env=env, timeout=120, check=False)
    *rest, peak = proc.stderr.strip().splitlines()
    proc.stderr = "\n".join(rest)
    return proc, int(peak) / 1024


def test_a_huge_result_is_capped_quickly_and_in_little_memory(store: Path) -> None:
    """The old CLI ran 20 s and 890 MB on this, still going."""
    started = time.perf_counter()
    proc, peak_mb = _max_rss_mb(["cypher", "UNWIND range(1, 3000000) AS x RETURN x", "--json",
                                 "--store", str(store)])
    assert proc.returncode == 0, proc.stderr
    assert time.perf_counter() - started < 30
    assert peak_mb < 500, peak_mb
    doc = strict_json(proc.stdout)
    assert doc["truncated"] is True
    assert len(doc["rows"]) == DEFAULT_LIMIT_ROWS
    assert f"more than {DEFAULT_LIMIT_ROWS:,} rows" in proc.stderr
    assert "raise --limit-rows" in proc.stderr


def test_limit_rows_as_a_table(store: Path) -> None:
    proc = run("cypher", "UNWIND range(1, 30) AS x RETURN x", "--limit-rows", "3",
               "--store", store)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["x", "───", "1", "2", "3"]
    assert "only the first 3 are shown; raise --limit-rows" in proc.stderr
    proc = run("cypher", "UNWIND range(1, 3) AS x RETURN x", "--limit-rows", "3", "--json",
               "--store", store)
    assert strict_json(proc.stdout) == {"columns": ["x"], "rows": [[1], [2], [3]],
                                        "truncated": False}
    assert "truncated" not in proc.stderr


def test_a_slow_query_stops_at_the_timeout(store: Path) -> None:
    nodes = ", ".join(f"(a{i}:Entity)" for i in range(16))
    ids = " + ".join(f"a{i}.id" for i in range(16))
    started = time.perf_counter()
    proc = run_process("cypher", f"MATCH {nodes} WHERE {ids} = 'none' RETURN count(*)",
                       "--timeout", "1", "--store", store)
    elapsed = time.perf_counter() - started
    line = one_error(proc, 1)
    assert line.startswith("Error: the query ran past --timeout 1 s; ")
    assert elapsed < 30  # the query itself runs for minutes


def test_a_query_slow_to_compile_stops_at_the_timeout_too(store: Path) -> None:
    """The engine does not interrupt a query it is still compiling (four CASE around 32
    levels of 26-key maps: about 5 s on a laptop), so the CLI's watchdog ends it."""
    level = "{" + "".join(f"{c}:1," for c in "bcdefghijklmnopqrstuvwxyz") + "a:"
    depth = MAX_NESTING
    query = ("RETURN " + "CASE WHEN true THEN " * MAX_CASE_NESTING + level * depth + "1"
             + "}" * depth + " END" * MAX_CASE_NESTING + " AS x")
    started = time.perf_counter()
    proc = run_process("cypher", query, "--timeout", "0.2", "--store", store)
    elapsed = time.perf_counter() - started
    line = one_error(proc, 1)
    assert line.startswith("Error: the query ran past --timeout 0.2 s; ")
    assert elapsed < 30


def test_help_states_the_limits() -> None:
    proc = run("cypher", "--help")
    text = " ".join(proc.stdout.split())
    assert f"{MAX_TOKENS:,} tokens, brackets {MAX_NESTING} deep, CASE {MAX_CASE_NESTING} deep" in text
    assert "--limit-rows" in text and "--timeout" in text


@pytest.mark.parametrize("seconds", ["1e12", "1e308", "inf"])
def test_a_timeout_beyond_a_day_is_a_usage_error(store: Path, seconds: str) -> None:
    """Issue 32: 1e12 killed the watchdog thread with a traceback, 1e308 gave two (the
    timer and the engine's millisecond timeout overflowed) and still ran the query."""
    proc = run("cypher", "RETURN 1 AS x", "--timeout", seconds, "--store", store)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Error" in proc.stderr
    assert "--timeout" in proc.stderr and "86400" in proc.stderr
    assert proc.stdout == ""
