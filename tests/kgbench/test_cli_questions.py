"""``kgbench questions parse|ground`` end to end: the real CLI in a subprocess (as
test_cli.py), on the bundled demo questions and the demo store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.kgbench.test_cli import assert_clean_error, run, run_json

ROOT = Path(__file__).resolve().parents[2]
DEMO_QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"
PARSED_KEYS = {"id", "question", "shape", "reason", "query", "topic_entities", "answers"}
NS = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_store: Path) -> dict[str, Any]:
    """The demo questions parsed once, and the demo store (do not modify either)."""
    root = tmp_path_factory.mktemp("questions")
    parsed = root / "parsed" / "parsed.jsonl"
    proc = run("questions", "parse", DEMO_QUESTIONS, "--out", parsed)
    assert proc.returncode == 0, proc.stderr
    return {"root": root, "parsed": parsed, "store": demo_store, "parse_proc": proc}


def write_questions(path: Path, records: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records), encoding="utf-8")
    return path


# -- parse ---------------------------------------------------------------------------------


def test_parse_demo_questions(demo: dict[str, Any]) -> None:
    lines = read_jsonl(demo["parsed"])
    records = demo_records()
    assert len(lines) == len(records) == 15
    assert [q["id"] for q in lines] == [r["id"] for r in records]
    for q, r in zip(lines, records, strict=True):
        assert PARSED_KEYS <= set(q), q["id"]
        assert q["question"] == r["question"]
        assert q["shape"] == r["shape"], q["id"]  # the demo file records its shape
        assert q["reason"] is None
        assert q["query"]["edges"] and q["query"]["answer"].startswith("?")
        assert set(q["topic_entities"]) <= set(r["topic_entities"]), q["id"]
        assert [a["value"] for a in q["answers"]] == r["answers"]
    coverage = json.loads((demo["parsed"].parent / "coverage.json").read_text())
    assert coverage["shapes"] == {"single": 8, "path": 4, "tree": 3, "unsupported": 0}
    assert coverage["questions"] == 15 and coverage["reasons"] == {}
    assert coverage["malformed_records"] == 0 and coverage["output"] == str(demo["parsed"])
    out = demo["parse_proc"].stdout
    assert "Questions by shape" in out and "tree" in out
    assert "wrote 15 questions" in demo["parse_proc"].stderr


def test_parse_json_output_is_the_coverage(tmp_path: Path) -> None:
    doc = run_json("questions", "parse", DEMO_QUESTIONS, "--format", "jsonl",
                   "--out", tmp_path / "p.jsonl")
    assert doc == json.loads((tmp_path / "coverage.json").read_text())
    assert doc["format"] == "jsonl" and doc["shapes"]["single"] == 8


def test_parse_default_output_name(tmp_path: Path) -> None:
    # Beside the input (test_cli_small_defects.py checks that nothing lands in the cwd).
    source = tmp_path / "in" / "questions.jsonl"
    source.parent.mkdir()
    source.write_bytes(DEMO_QUESTIONS.read_bytes())
    proc = run("questions", "parse", source, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(read_jsonl(source.parent / "questions.parsed.jsonl")) == 15
    assert (source.parent / "coverage.json").exists()


def test_parse_unsupported_questions_get_a_reason(tmp_path: Path) -> None:
    src = write_questions(tmp_path / "q.jsonl", [
        {"id": "count", "question": "how many films did coppola direct?", "answers": ["2"],
         "sparql": NS + "SELECT (COUNT(?x) AS ?n) WHERE { ?x ns:film.film.directed_by "
                        "ns:m.0kgb085 . }"},
        {"id": "nothing", "question": "no logical form", "answers": ["m.1"]},
    ])
    run_json("questions", "parse", src, "--out", tmp_path / "p.jsonl")
    got = {q["id"]: q for q in read_jsonl(tmp_path / "p.jsonl")}
    assert got["count"]["shape"] == got["nothing"]["shape"] == "unsupported"
    assert got["count"]["reason"] == "function_count"
    assert got["nothing"]["reason"] == "no_logical_form" and got["nothing"]["query"] is None
    coverage = json.loads((tmp_path / "coverage.json").read_text())
    assert coverage["shapes"]["unsupported"] == 2
    assert coverage["reasons"] == {"function_count": 1, "no_logical_form": 1}
    assert set(coverage["reason_meanings"]) == {"function_count", "no_logical_form"}


def test_parse_malformed_records_are_listed_and_skipped(tmp_path: Path) -> None:
    records: list[dict[str, Any] | str] = [*demo_records()[:2], "{not json",
                                           {"id": "no-question", "answers": []},
                                           demo_records()[2]]
    src = write_questions(tmp_path / "mixed.jsonl", records)
    proc = run("questions", "parse", src, "--out", tmp_path / "p.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert [q["id"] for q in read_jsonl(tmp_path / "p.jsonl")] == [
        "demo-001", "demo-002", "demo-003"]
    coverage = json.loads((tmp_path / "coverage.json").read_text())
    assert coverage["questions"] == 3 and coverage["malformed_records"] == 2
    first, second = coverage["malformed_examples"]
    assert first.startswith(f"{src}: line 3: ")
    assert second.startswith(f"{src}: no-question: ") and "question" in second
    assert "2 malformed record(s) skipped" in proc.stderr
    assert "no-question" in proc.stderr and "Traceback" not in proc.stderr


def test_parse_strict_stops_at_the_first_malformed_record(tmp_path: Path) -> None:
    src = write_questions(tmp_path / "mixed.jsonl", [
        demo_records()[0], {"id": "no-question", "answers": []}, demo_records()[1]])
    proc = run("questions", "parse", src, "--out", tmp_path / "p.jsonl", "--strict")
    assert_clean_error(proc, 1)
    assert "no-question" in proc.stderr and str(src) in proc.stderr
    assert not (tmp_path / "p.jsonl").exists()  # no half-written output


def test_parse_bad_format_is_a_usage_error(tmp_path: Path) -> None:
    proc = run("questions", "parse", DEMO_QUESTIONS, "--format", "sparql",
               "--out", tmp_path / "p.jsonl")
    assert_clean_error(proc, 2)
    assert "sparql" in proc.stderr and "webqsp" in proc.stderr
    assert not (tmp_path / "p.jsonl").exists()


def test_parse_missing_file(tmp_path: Path) -> None:
    proc = run("questions", "parse", tmp_path / "nope.jsonl", "--out", tmp_path / "p.jsonl")
    assert_clean_error(proc, 1)
    assert "nope.jsonl" in proc.stderr


# -- ground --------------------------------------------------------------------------------


def test_ground_demo_questions(demo: dict[str, Any]) -> None:
    out = demo["root"] / "grounded" / "g.jsonl"
    proc = run("questions", "ground", demo["parsed"], "--store", demo["store"], "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Grounding" in proc.stdout and "answered 15" in proc.stdout
    report = json.loads((out.parent / "grounding.json").read_text())
    assert report["questions"] == report["scored"] == report["exact"] == 15
    assert report["outcomes"] == {"answered": 15}
    assert (report["precision"], report["recall"], report["f1"]) == (1.0, 1.0, 1.0)
    assert {s: r["questions"] for s, r in report["by_shape"].items()} == {
        "single": 8, "path": 4, "tree": 3}
    assert report["bad_lines"] == 0 and report["output"] == str(out)
    results = read_jsonl(out)
    records = {r["id"]: r for r in demo_records()}
    assert [r["id"] for r in results] == list(records)
    for r in results:
        assert r["outcome"] == "answered" and r["f1"] == 1.0, r["id"]
        answers = [a if isinstance(a, str) else a["value"] for a in r["answers"]]
        assert sorted(answers) == sorted(records[r["id"]]["answers"])
        assert r["facts"] and all(len(f) == 3 for f in r["facts"])
        facts = [json.dumps(f, sort_keys=True) for f in r["facts"]]
        assert len(set(facts)) == len(facts)
        # The supporting facts reach every answer.
        ends = [f[i] for f in r["facts"] for i in (0, 2)]
        assert all(a in ends for a in r["answers"]), r["id"]
    tree = next(r for r in results if r["id"] == "demo-012")  # De Niro and Pacino
    assert len(tree["answers"]) == 2 and len(tree["facts"]) == 8


def test_ground_json_and_supporting_facts_exist(demo: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    report = run_json("questions", "ground", demo["parsed"], "--store", demo["store"],
                      "--out", out)
    assert report == json.loads((tmp_path / "grounding.json").read_text())
    second = read_jsonl(out)[1]  # demo-002: through the performance CVT
    facts = {tuple(f) for f in second["facts"]}
    assert len(facts) == 3
    # Each fact is in the store: ask for the facts out of their subjects (read-only Cypher).
    subjects = sorted({s for s, _, _ in facts})
    doc = run_json("cypher", "MATCH (s:Entity)-[f:Fact]->(o:Entity) WHERE s.id IN "
                   f"{json.dumps(subjects)} RETURN s.id, f.predicate, o.id",
                   "--store", demo["store"])
    assert facts <= {tuple(row) for row in doc["rows"]}


def test_ground_skips_bad_lines(demo: dict[str, Any], tmp_path: Path) -> None:
    lines = demo["parsed"].read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "{broken", "", lines[1], '{"id": "x"}']) + "\n",
                   encoding="utf-8")
    proc = run("questions", "ground", bad, "--store", demo["store"], "--out", tmp_path / "g.jsonl")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "grounding.json").read_text())
    assert report["questions"] == 2 and report["bad_lines"] == 2
    assert report["bad_line_examples"][0].startswith(f"{bad}:2: ")
    assert report["bad_line_examples"][1].startswith(f"{bad}:5: ")
    assert "skipped" in proc.stderr and "Traceback" not in proc.stderr
    strict = run("questions", "ground", bad, "--store", demo["store"],
                 "--out", tmp_path / "s.jsonl", "--strict")
    assert_clean_error(strict, 1)
    assert f"{bad}:2" in strict.stderr


def test_ground_unknown_entity_and_predicate_are_outcomes(demo: dict[str, Any],
                                                          tmp_path: Path) -> None:
    src = write_questions(tmp_path / "q.jsonl", [
        {"id": "ghost", "question": "who directed the ghost film?", "answers": ["m.0kgb085"],
         "sparql": NS + "SELECT DISTINCT ?x WHERE { ns:m.ghost ns:film.film.directed_by ?x . }"},
        {"id": "budget", "question": "what was the godfather's budget?", "answers": ["6000000"],
         "sparql": NS + "SELECT DISTINCT ?x WHERE { ns:m.0kgb0gd ns:film.film.budget ?x . }"},
        {"id": "none", "question": "who directed the godfather's sequel's sequel?",
         "answers": [], "sparql": NS + "SELECT DISTINCT ?x WHERE { ns:m.0kgb085 "
                                       "ns:film.film.directed_by ?x . }"},
        {"id": "count", "question": "how many?", "answers": ["2"],
         "sparql": NS + "SELECT (COUNT(?x) AS ?n) WHERE { ?x ns:film.film.directed_by "
                        "ns:m.0kgb085 . }"},
    ])
    run_json("questions", "parse", src, "--out", tmp_path / "p.jsonl")
    report = run_json("questions", "ground", tmp_path / "p.jsonl", "--store", demo["store"],
                      "--out", tmp_path / "g.jsonl")
    got = {r["id"]: r for r in read_jsonl(tmp_path / "g.jsonl")}
    assert got["ghost"]["outcome"] == "unknown_entity" and got["ghost"]["missing"] == ["m.ghost"]
    assert got["ghost"]["recall"] == 0.0 and got["ghost"]["answers"] == []
    assert got["budget"]["outcome"] == "unknown_predicate"
    assert got["budget"]["missing"] == ["film.film.budget"]
    assert got["none"]["outcome"] == "no_match" and "f1" not in got["none"]  # no gold
    assert got["count"]["outcome"] == "skipped" and "function_count" in got["count"]["detail"]
    assert report["outcomes"] == {"unknown_entity": 1, "unknown_predicate": 1, "no_match": 1,
                                  "skipped": 1}
    assert report["questions"] == 4 and report["scored"] == 2


def test_ground_missing_parsed_file(demo: dict[str, Any], tmp_path: Path) -> None:
    proc = run("questions", "ground", tmp_path / "nope.jsonl", "--store", demo["store"],
               "--out", tmp_path / "g.jsonl")
    assert_clean_error(proc, 1)
    assert "nope.jsonl" in proc.stderr and "questions parse" in proc.stderr
