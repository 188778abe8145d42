"""Bad option values and unreadable input files get the CLI's own messages and exit
codes.

* A float option given ``nan`` or an infinity is a usage error naming the valid range
  (exit 2): ``--test-fraction nan`` said "Input should be less than or equal to 1".
* ``--shard 3/2`` is a usage error, exit 2 (it exited 1), in one line.
* An input file this user may not read is one ``Error: PATH: permission denied`` line
  and exit 1, like a missing file: Click's own check printed a multi-line box and
  exited 2 (and ground, extend, export and ``--phrases`` then reached ``open`` and a
  traceback). Missing and unreadable input files both exit 1.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.kgbench.test_cli import assert_clean_error, run
from tests.kgbench.test_cli_store_directory import (  # noqa: F401  (fixtures)
    NTRIPLES,
    root_owned_store,
    run_unprivileged,
    shared_dir,
)

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--test-fraction", "nan", "must be a number between 0 and 1"),
    ("--test-fraction", "inf", "must be a number between 0 and 1"),
    ("--test-fraction", "-inf", "must be a number between 0 and 1"),
    ("--test-fraction", "1.5", "must be a number between 0 and 1"),
    ("--test-fraction", "-0.1", "must be a number between 0 and 1"),
    ("--llm-timeout", "nan", "must be a number of seconds, at least 0.1"),
    ("--llm-timeout", "inf", "must be a number of seconds, at least 0.1"),
    ("--llm-timeout", "0.01", "must be a number of seconds, at least 0.1"),
    ("--llm-rps", "nan", "must be a number, at least 0.01"),
    ("--llm-rps", "inf", "must be a number, at least 0.01"),
])
def test_float_options_refuse_nan_and_infinity(tmp_path: Path, option: str, value: str,
                                               message: str) -> None:
    proc = run("generate", "--store", tmp_path / "s", "--questions", QUESTIONS,
               "--out", tmp_path / "b", option, value)
    assert proc.returncode == 2, proc.stderr
    assert message in " ".join(proc.stderr.replace("│", " ").split())
    assert option in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "b").exists() and not (tmp_path / "s").exists()


def test_float_options_take_their_bounds(tmp_path: Path) -> None:
    """The bounds themselves are fine: the command goes on to open the store."""
    proc = run("generate", "--store", tmp_path / "s", "--questions", QUESTIONS,
               "--out", tmp_path / "b", "--test-fraction", "1", "--llm-timeout", "0.1",
               "--llm-rps", "0.01")
    assert_clean_error(proc, 1)
    assert "no kgbench store" in proc.stderr


@pytest.mark.parametrize("shard", ["3/2", "2/2", "x", "1/0"])
def test_a_bad_shard_is_a_one_line_usage_error(tmp_path: Path, shard: str) -> None:
    proc = run("generate", "--store", tmp_path / "s", "--questions", QUESTIONS,
               "--out", tmp_path / "b", "--shard", shard)
    assert_clean_error(proc, 2)
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def inputs(directory: Path) -> None:
    (directory / "t.nt").write_text(NTRIPLES, encoding="utf-8")
    (directory / "bench").mkdir()
    for name in ("un.nt", "names.tsv", "q.jsonl", "parsed.jsonl", "phrases.tsv",
                 "bench/samples.jsonl"):
        shutil.copyfile(QUESTIONS, directory / name)
        (directory / name).chmod(0o000)
    for path in (directory, directory / "bench"):
        path.chmod(0o777)


COMMANDS = {
    "load triples": (["load", "triples", "un.nt", "--store", "new"], "un.nt"),
    "load rdf": (["load", "rdf", "un.nt", "--store", "new"], "un.nt"),
    "load freebase": (["load", "freebase", "un.nt", "--store", "new"], "un.nt"),
    "load wikidata": (["load", "wikidata", "un.nt", "--store", "new"], "un.nt"),
    "load --names": (["load", "triples", "t.nt", "--names", "names.tsv", "--store", "new"],
                     "names.tsv"),
    "questions parse": (["questions", "parse", "q.jsonl"], "q.jsonl"),
    "questions ground": (["questions", "ground", "parsed.jsonl", "--store", "s"],
                         "parsed.jsonl"),
    "extend": (["extend", "parsed.jsonl", "--store", "s"], "parsed.jsonl"),
    "generate --questions": (["generate", "--store", "s", "--questions", "q.jsonl",
                              "--out", "b"], "q.jsonl"),
    "generate --phrases": (["generate", "--store", "s", "--questions", str(QUESTIONS),
                            "--phrases", "phrases.tsv", "--out", "b"], "phrases.tsv"),
    "export a directory": (["export", "bench", "--to", "caqa", "--out", "x.csv"],
                           "bench/samples.jsonl"),
    "export a file": (["export", "bench/samples.jsonl", "--to", "caqa", "--out", "x.csv"],
                      "bench/samples.jsonl"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_unreadable_input_file_is_one_line_exit_1(
        name: str, root_owned_store: Path) -> None:  # noqa: F811  (the fixture)
    cwd = root_owned_store.parent
    inputs(cwd)
    before = sorted(p.name for p in cwd.iterdir())
    args, path = COMMANDS[name]
    proc = run_unprivileged(*args, cwd=cwd)
    assert_clean_error(proc, 1)
    assert proc.stderr.strip() == f"Error: {path}: permission denied; check the file's permissions"
    assert sorted(p.name for p in cwd.iterdir()) == before   # nothing written beside it
