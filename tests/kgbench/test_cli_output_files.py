"""Hostile outputs and inputs of the file-writing commands (issue 18 review: C6, S1, W1,
W2, U2, U3, U4, U9), end to end through the real CLI.

Before the fixes: ``questions parse --out DIR`` was an ``IsADirectoryError`` traceback
leaving ``DIR.part``; a FIFO, a device node or a symlink given as ``--out`` was replaced
by a regular file; ``questions ground`` and ``extend`` on a file that is no parse output
(``/etc/passwd``) printed pydantic's "N validation errors for ParsedQuestion", exited 0
and wrote results beside the input; ``export`` of an empty file wrote an empty CSV; a
binary question file "is empty"; ``generate --out FILE`` could not "lock" it; deeply
nested SPARQL was recorded as "maximum recursion depth exceeded".

Device nodes are made with ``mknod`` inside the test's directory (root only, else
skipped), never taken from ``/dev``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from kgbench.demo import DEMO_KG
from tests.extension.test_export import demo_benchmark, write_benchmark
from tests.extension.test_output_file import char_device
from tests.kgbench.test_cli import assert_clean_error, run, run_json

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
ELF_HEAD = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\n"


@pytest.fixture(scope="module")
def store(demo_store: Path) -> Path:
    """The demo KG, as ``load triples films.nt.gz`` builds it (read-only use)."""
    return demo_store


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


def listing(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def one_error(proc: subprocess.CompletedProcess[str], text: str) -> None:
    assert_clean_error(proc)
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("Error:")]
    assert errors == [f"Error: {text}"], proc.stderr


# -- C6 / S1: --out that is not a file --------------------------------------------------------

def test_parse_out_a_directory_is_one_line_and_leaves_no_part(tmp_path: Path) -> None:
    qp = tmp_path / "qp"
    qp.mkdir()
    (qp / "h.jsonl").write_bytes(QUESTIONS.read_bytes())
    proc = run("questions", "parse", qp / "h.jsonl", "--out", qp)
    one_error(proc, f"--out {qp} is a directory, not a file: give a file path")
    assert listing(tmp_path) == ["qp", "qp/h.jsonl"]

    proc = run("questions", "parse", qp)   # a directory as the input
    assert_clean_error(proc)
    assert listing(tmp_path) == ["qp", "qp/h.jsonl"]   # no qp.parsed.jsonl.part


def test_out_that_is_the_input_is_refused_and_the_input_kept(store: Path,
                                                            tmp_path: Path) -> None:
    """Renaming the output onto the input would destroy the data being read: parse,
    ground and extend refuse it (also through a symlink) and leave the file as it was."""
    questions = tmp_path / "q.jsonl"
    questions.write_bytes(QUESTIONS.read_bytes())
    proc = run("questions", "parse", questions, "--out", questions)
    one_error(proc, f"--out {questions} is the input file {questions}: give another "
                    "output path")
    assert questions.read_bytes() == QUESTIONS.read_bytes()

    parsed = tmp_path / "parsed.jsonl"
    assert run("questions", "parse", questions, "--out", parsed).returncode == 0
    before = parsed.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(parsed)
    for args in (("questions", "ground", parsed, "--out", link, "--store", store),
                 ("extend", parsed, "--out", parsed, "--store", store)):
        proc = run(*args)
        assert_clean_error(proc)
        assert "is the input file" in proc.stderr, proc.stderr
        assert parsed.read_bytes() == before


def test_parse_out_a_fifo_or_a_device_is_refused_and_left_alone(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = run("questions", "parse", QUESTIONS, "--out", fifo)
    one_error(proc, f"--out {fifo} is a FIFO (named pipe), not a file: give a file path")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)

    device = char_device(tmp_path)
    for command in (["questions", "parse", QUESTIONS], ["export", "nowhere", "--to", "caqa"]):
        proc = run(*command, "--out", device)
        one_error(proc, f"--out {device} is a character device, not a file: give a file path")
        assert stat.S_ISCHR(device.lstat().st_mode)
    assert not list(tmp_path.glob("*.part"))


def test_out_through_a_symlink_keeps_the_link(tmp_path: Path,
                                              samples: tuple[BenchmarkSample, ...]) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    proc = run("questions", "parse", QUESTIONS, "--out", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text().splitlines()[0])["id"] == "demo-001"

    bench = tmp_path / "bench"
    write_benchmark(bench, samples)
    csv_real, csv_link = tmp_path / "real.csv", tmp_path / "link2.csv"
    csv_link.symlink_to(csv_real)
    proc = run("export", bench, "--to", "caqa", "--out", csv_link)
    assert proc.returncode == 0, proc.stderr
    assert csv_link.is_symlink() and csv_real.read_text().startswith("query,answer")
    assert not list(tmp_path.glob("*.part"))


def test_load_report_that_cannot_be_written_is_refused_before_the_load(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.mkdir()
    store = tmp_path / "store"
    proc = run("load", "rdf", DEMO_KG, "--store", store, "--report", report)
    one_error(proc, f"--report {report} is a directory, not a file: give a file path")
    assert not store.exists()


# -- U3: generate --out a file ------------------------------------------------------------------

def test_generate_out_a_file_says_so(store: Path, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    proc = run("generate", "--store", store, "--questions", QUESTIONS, "--out", afile,
               "--no-report")
    one_error(proc, f"--out {afile} is a file, not a directory: give a directory path")
    assert afile.read_text() == "mine\n"


# -- W1: export of something that is no benchmark ---------------------------------------------

@pytest.mark.parametrize("kind", ["empty file", "text file", "folder"])
def test_export_of_no_benchmark_is_refused(tmp_path: Path, kind: str) -> None:
    source = tmp_path / "afile"
    if kind == "folder":
        source.mkdir()
    else:
        source.write_text("" if kind == "empty file" else PASSWD)
    out = tmp_path / "y.csv"
    proc = run("export", source, "--to", "caqa", "--out", out)
    one_error(proc, f"{source} is not a benchmark directory (no samples.jsonl): give the "
                    "--out of a kgbench generate run")
    assert not out.exists() and not list(tmp_path.glob("*.part"))


# -- W2 / U4: ground and extend on input that is no parse output -------------------------------

@pytest.mark.parametrize("command", ["ground", "extend"])
@pytest.mark.parametrize(("content", "problem"), [
    (PASSWD.encode(), "line 1: not JSON (expected value at line 1 column 1)"),
    (QUESTIONS.read_bytes(), "line 1: missing field dataset; unknown fields answer_names, "
                             "sparql; answers.0: Input should be an object"),
    (ELF_HEAD, "line 1: binary data, not UTF-8 text (a NUL byte at byte 8 of the line)"),
    (b"", None),
], ids=["passwd", "raw-dataset", "binary", "empty"])
def test_ground_and_extend_refuse_what_is_no_parse_output_and_write_nothing(
        store: Path, tmp_path: Path, command: str, content: bytes, problem: str | None) -> None:
    data = tmp_path / "in" / "passwd"
    data.parent.mkdir()
    data.write_bytes(content)
    args: list[str | Path] = (["questions", "ground", data] if command == "ground"
            else ["extend", data, "--out", tmp_path / "in" / "ex" / "s.jsonl"])
    proc = run(*args, "--store", store)
    if problem is None:
        one_error(proc, f"{data} is empty: it holds no parsed questions")
    else:
        one_error(proc, f"{data} holds no parsed questions; {problem} (is this a "
                        "`kgbench questions parse` output?)")
    assert "validation error" not in proc.stderr
    assert listing(tmp_path / "in") == ["passwd"]


def test_skipped_lines_use_the_same_plain_words(store: Path, tmp_path: Path) -> None:
    parsed = tmp_path / "parsed.jsonl"
    assert run("questions", "parse", QUESTIONS, "--out", parsed).returncode == 0
    mixed = tmp_path / "mixed.jsonl"
    good = parsed.read_text("utf-8").splitlines()[:2]
    mixed.write_text("\n".join([*good, "root:x:0:0", "[1]",
                                json.dumps({"id": "x", "question": "q", "dataset": "d",
                                            "shape": "single", "bogus": 1})]) + "\n")
    proc = run("questions", "ground", mixed, "--store", store)
    assert proc.returncode == 0, proc.stderr
    skipped = [ln for ln in proc.stderr.splitlines() if ln.startswith("skipped")]
    assert skipped == [f"skipped {mixed}:3: not JSON (expected value at line 1 column 1)",
                       f"skipped {mixed}:4: not a JSON object",
                       f"skipped {mixed}:5: unknown field bogus"]
    report = run_json("extend", mixed, "--store", store, "--out", tmp_path / "ex" / "s.jsonl")
    assert report["questions"] == 2
    reasons = [json.loads(line)["reason"] for line in
               (tmp_path / "ex" / "failures.jsonl").read_text("utf-8").splitlines()
               if json.loads(line)["stage"] == "read"]
    assert reasons == ["not JSON (expected value at line 1 column 1)", "not a JSON object",
                       "unknown field bogus"]


# -- U2: question files that are not UTF-8 text -------------------------------------------------

@pytest.mark.parametrize(("content", "problem"), [
    (ELF_HEAD + b"\x90\xff" * 50, "is binary, not UTF-8 text (a NUL byte at byte offset 7)"),
    (b'\xff\xfe{\x00"\x00i\x00', "is not UTF-8 text: it starts with a UTF-16 byte-order mark; "
                                 "save it as UTF-8"),
    (b"\xff\xfe{\n", "is not UTF-8 text: it starts with a UTF-16 byte-order mark; "
                     "save it as UTF-8"),
    (b"caf\xe9 au lait\n", "is not UTF-8 text (byte 0xe9 at byte offset 3 is not UTF-8)"),
], ids=["elf", "utf16", "ff-fe-brace", "latin1"])
def test_a_question_file_that_is_not_utf8_says_so(tmp_path: Path, store: Path,
                                                  content: bytes, problem: str) -> None:
    path = tmp_path / "bin.jsonl"
    path.write_bytes(content)
    expected = f"{path}: {problem}; expected a WebQSP, GrailQA or JSONL question file"
    one_error(run("questions", "parse", path), expected)
    one_error(run("generate", "--store", store, "--questions", path, "--out",
                  tmp_path / "bench"), expected)
    assert listing(tmp_path) == ["bin.jsonl"]


# -- U9: deeply nested SPARQL ---------------------------------------------------------------------

def test_deeply_nested_sparql_has_its_own_reason(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    records = []
    for n, depth in enumerate((1, 30, 5000)):
        sparql = ("PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { "
                  "ns:m.0kgb0gd ns:film.film.directed_by ?x . FILTER("
                  + "(" * depth + "?x != ns:m.01" + ")" * depth + ") }")
        records.append(json.dumps({"id": f"q{n}", "question": "who?", "sparql": sparql,
                                   "answers": ["m.0kgb085"]}))
    path.write_text("\n".join(records) + "\n")
    coverage = run_json("questions", "parse", path, "--out", tmp_path / "parsed.jsonl")
    assert coverage["reasons"] == {"sparql_too_deep": 2}
    assert "more than 16 deep" in coverage["reason_meanings"]["sparql_too_deep"]
    lines = [json.loads(x) for x in (tmp_path / "parsed.jsonl").read_text().splitlines()]
    assert lines[0]["shape"] == "single"
    assert [x["reason_detail"] for x in lines[1:]] == [
        f"the query nests brackets {depth + 2} deep; kgbench reads queries that nest them "
        "at most 16 deep" for depth in (30, 5000)]
    assert "recursion" not in (tmp_path / "parsed.jsonl").read_text()
