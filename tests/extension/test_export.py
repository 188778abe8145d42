"""Exports of a generated benchmark (extension.outputs.export) on real benchmark samples.

The samples are real: the demo KG is loaded into a LadybugDB store, the demo questions
are parsed and run through :func:`extension.core.samples.structured_samples`, verbalized by
:class:`extension.verbalize.verbalizer.TemplateVerbalizer`, and each becomes a
:class:`BenchmarkSample` with :func:`extension.outputs.sample_schema.benchmark_sample`.
:func:`demo_benchmark` builds them once per process; the report and CLI tests reuse it.

Checked: the exact CSV header and label vocabulary of CAQA and AttrScore, the default
and overridden label maps and their errors, ``drop``, the ALCE structure and titles,
the flat JSONL fields, the split filter, CSV quoting, the atomic write (no file on
error, no ``.part`` on success) and bad samples lines reported with their line number.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from extension.core.grounding import Grounder
from extension.core.labels import Split
from extension.core.samples import Triple, structured_samples
from extension.inputs.questions import parse_question
from extension.outputs.export import (
    ExportError,
    SamplesFileError,
    citation_title,
    cited_answer,
    export_benchmark,
    export_samples,
    find_samples_file,
    iter_benchmark_samples,
    parse_label_map,
    resolve_label_map,
)
from extension.outputs.output_file import OutputPathError
from extension.outputs.sample_schema import BenchmarkSample, CitationRecord, benchmark_sample
from extension.verbalize.verbalizer import TemplateVerbalizer
from kgbench.demo import DEMO_KG, DEMO_QUESTIONS
from kgstore import open_store
from loaders.kgqa import read_kgqa_jsonl
from loaders.triples import load_triples

DEMO_SEED = 3   # this seed gives every complexity on the demo questions (union included)
CAQA = ("Support", "Missing", "Contradictory", "Irrelevant")
ATTRSCORE = ("Attributable", "Extrapolatory", "Contradictory")


# -- real benchmark samples (shared with test_report and test_cli_export) ---------------


@cache
def demo_benchmark() -> tuple[BenchmarkSample, ...]:
    """The demo questions' benchmark samples (seed :data:`DEMO_SEED`); every fourth
    question (from the first) is in the test split."""
    with tempfile.TemporaryDirectory() as directory:
        store = open_store(Path(directory) / "store", create=True)
        try:
            load_triples(store, [DEMO_KG])
            grounder = Grounder(store)
            verbalizer = TemplateVerbalizer.from_store(store)
            samples: list[BenchmarkSample] = []
            for index, question in enumerate(read_kgqa_jsonl(DEMO_QUESTIONS, strict=True)):
                parsed = parse_question(question, cvt_types=store.cvt_types() or None)
                structured, _ = structured_samples(store, grounder, parsed, seed=DEMO_SEED)
                split: Split = "test" if index % 4 == 0 else "train"
                samples += [benchmark_sample(s, verbalizer.verbalize(s), split)
                            for s in structured]
            return tuple(samples)
        finally:
            store.close()


def write_benchmark(directory: Path, samples: tuple[BenchmarkSample, ...] | list[BenchmarkSample]
                    ) -> Path:
    """``directory/samples.jsonl`` holding ``samples`` (as ``kgbench generate`` writes it)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "samples.jsonl"
    path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


@pytest.fixture()
def bench(tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> Path:
    write_benchmark(tmp_path / "bench", samples)
    return tmp_path / "bench"


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    with path.open(encoding="utf-8", newline="") as f:
        return header, list(csv.DictReader(f))


def test_the_demo_benchmark_covers_every_label_and_complexity(
        samples: tuple[BenchmarkSample, ...]) -> None:
    # The tests below rely on it: every label, every complexity and both splits occur.
    assert {s.label for s in samples} == {"supportive", "partially_supportive",
                                          "contradictory", "irrelevant"}
    assert {s.complexity for s in samples} == {"single", "union", "intersection",
                                               "concatenation"}
    assert {s.split for s in samples} == {"train", "test"}


# -- CSV formats ----------------------------------------------------------------------------


def test_caqa_csv_has_the_caqa_columns_and_labels(bench: Path, tmp_path: Path,
                                                  samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "caqa.csv"
    report = export_benchmark(bench, out, "caqa")
    header, rows = read_csv(out)
    assert header == ["query", "answer", "reference", "label", "id"]
    expected = {"supportive": "Support", "partially_supportive": "Missing",
                "contradictory": "Contradictory", "irrelevant": "Irrelevant"}
    assert [r["label"] for r in rows] == [expected[s.label] for s in samples]
    assert {r["label"] for r in rows} == set(CAQA)
    for row, sample in zip(rows, samples, strict=True):
        assert row == {"query": sample.question_extended, "answer": sample.answer,
                       "reference": "\n".join(c.text for c in sample.citations),
                       "label": expected[sample.label], "id": sample.id}
    assert report.read == report.written == len(samples)
    assert report.by_label == dict(Counter(r["label"] for r in rows))
    assert list(report.by_label) == [label for label in CAQA if label in report.by_label]
    assert not list(tmp_path.glob("*.part"))


def test_caqa_claim_states_the_question_once(bench: Path, tmp_path: Path,
                                            samples: tuple[BenchmarkSample, ...]) -> None:
    """CAQA prompts with ``Claim: {query} {answer}``: the answer column is the answer
    statement alone, so the claim names the question once, and still names every
    answer the sample's statement gives."""
    out = tmp_path / "caqa.csv"
    export_benchmark(bench, out, "caqa")
    _, rows = read_csv(out)
    for row, sample in zip(rows, samples, strict=True):
        claim = f"{row['query']} {row['answer']}"
        assert claim.count(sample.question_extended) == 1, claim
        assert sample.question_extended not in row["answer"]
        assert row["answer"].strip()
        for entity in sample.answer_entities:
            if entity.name and entity.name in sample.answer:
                assert entity.name in row["answer"]


def test_caqa_reference_has_one_citation_per_line(bench: Path, tmp_path: Path,
                                                  samples: tuple[BenchmarkSample, ...]) -> None:
    """As in CAQA's examples (``Reference: \nDudley is located in the West Midlands.\n
    Wednesfield is …``): one citation per line, no ``[k]`` numbers."""
    out = tmp_path / "caqa.csv"
    export_benchmark(bench, out, "caqa")
    _, rows = read_csv(out)
    assert any(len(s.citations) > 1 for s in samples)
    for row, sample in zip(rows, samples, strict=True):
        assert row["reference"].split("\n") == [c.text for c in sample.citations]
        assert not row["reference"].startswith("[1]")


def test_attrscore_csv_default_map(bench: Path, tmp_path: Path,
                                   samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "attrscore.csv"
    report = export_benchmark(bench, out, "attrscore")
    header, rows = read_csv(out)
    assert header == ["query", "answer", "reference", "label", "id"]
    expected = {"supportive": "Attributable", "partially_supportive": "Extrapolatory",
                "contradictory": "Contradictory", "irrelevant": "Extrapolatory"}
    assert [r["label"] for r in rows] == [expected[s.label] for s in samples]
    assert {r["label"] for r in rows} == set(ATTRSCORE)
    assert report.by_label == {
        "Attributable": sum(s.label == "supportive" for s in samples),
        "Extrapolatory": sum(s.label in ("partially_supportive", "irrelevant") for s in samples),
        "Contradictory": sum(s.label == "contradictory" for s in samples)}


def test_label_map_overrides(bench: Path, tmp_path: Path,
                             samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "attrscore.csv"
    # Case, '-' and spaces do not matter; the output uses the format's spelling.
    overrides = parse_label_map(["partially-supportive=contradictory",
                                 "Irrelevant = Extrapolatory"])
    report = export_benchmark(bench, out, "attrscore", label_map=overrides)
    _, rows = read_csv(out)
    labels = [r["label"] for r in rows]
    assert labels == [{"supportive": "Attributable", "partially_supportive": "Contradictory",
                       "contradictory": "Contradictory", "irrelevant": "Extrapolatory"}[s.label]
                      for s in samples]
    assert report.label_map["partially_supportive"] == "Contradictory"
    assert report.to_json()["label_map"]["partially_supportive"] == "Contradictory"


def test_a_later_pair_wins() -> None:
    assert parse_label_map(["irrelevant=drop", "irrelevant=Irrelevant"]) == {
        "irrelevant": "Irrelevant"}


@pytest.mark.parametrize(("fmt", "pairs", "message", "hint"), [
    ("caqa", ["partial=Support"], "'partial' is not a kgbench label", "partially_supportive"),
    ("caqa", ["irrelevant=Extrapolatory"], "'Extrapolatory' is not a caqa label",
     "Support, Missing, Contradictory, Irrelevant"),
    ("attrscore", ["partially_supportive=Missing"], "'Missing' is not a attrscore label",
     "Attributable, Extrapolatory, Contradictory"),
    ("jsonl", ["irrelevant=Support "], "'Support' is not a jsonl label", "irrelevant"),
])
def test_bad_label_maps_are_clear_errors(fmt: str, pairs: list[str], message: str,
                                         hint: str) -> None:
    with pytest.raises(ExportError) as info:
        resolve_label_map(fmt, parse_label_map(pairs))  # type: ignore[arg-type]
    assert message in str(info.value)
    assert info.value.hint is not None and hint in info.value.hint


@pytest.mark.parametrize("pair", ["irrelevant", "=Support", "irrelevant=", "a:b"])
def test_label_map_pairs_need_label_equals_target(pair: str) -> None:
    with pytest.raises(ExportError, match="is not LABEL=TARGET"):
        parse_label_map([pair])


def test_unknown_format_is_an_error(bench: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="unknown export format 'csv'"):
        export_benchmark(bench, tmp_path / "x.csv", "csv")  # type: ignore[arg-type]
    assert not (tmp_path / "x.csv").exists()


def test_drop_leaves_a_label_out(bench: Path, tmp_path: Path,
                                 samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "caqa.csv"
    report = export_benchmark(bench, out, "caqa", label_map={"irrelevant": "DROP"})
    _, rows = read_csv(out)
    irrelevant = sum(s.label == "irrelevant" for s in samples)
    assert irrelevant > 0
    assert "Irrelevant" not in {r["label"] for r in rows}
    assert len(rows) == report.written == len(samples) - irrelevant
    assert report.dropped == {"irrelevant": irrelevant}
    assert "Irrelevant" not in report.by_label
    assert report.to_json()["label_map"]["irrelevant"] == "drop"


def test_csv_quoting_round_trips(tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    tricky = 'He said "yes", then — after a pause —\nleft; ünïcödé, too'
    citation = CitationRecord(text="a,b\r\nc", triples=samples[0].citations[0].triples)
    edited = [samples[0].model_copy(update={"answer": tricky, "citations": (citation,)}),
              *samples[1:3]]
    out = tmp_path / "q.csv"
    export_samples(edited, out, "caqa")
    _, rows = read_csv(out)
    assert rows[0]["answer"] == tricky
    assert rows[0]["reference"] == "a,b\r\nc"
    assert len(rows) == 3
    assert out.read_bytes().startswith(b"query,answer,reference,label,id\r\n")


# -- ALCE and flat JSONL --------------------------------------------------------------------


def test_alce_json_structure(bench: Path, tmp_path: Path,
                             samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "alce.json"
    export_benchmark(bench, out, "alce")
    records = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(records, list) and len(records) == len(samples)
    for record, sample in zip(records, samples, strict=True):
        assert set(record) == {"question", "answer", "docs", "id", "label", "complexity",
                               "split"}
        assert record["question"] == sample.question_extended
        markers = "".join(f"[{k}]" for k in range(1, len(sample.citations) + 1))
        assert record["answer"] == f"{sample.answer.rstrip('.')} {markers}."
        assert (record["id"], record["label"], record["complexity"], record["split"]) == (
            sample.id, sample.label, sample.complexity, sample.split)
        assert [set(d) for d in record["docs"]] == [{"title", "text"}] * len(sample.citations)
        assert [d["text"] for d in record["docs"]] == [c.text for c in sample.citations]
        for doc, citation in zip(record["docs"], sample.citations, strict=True):
            # Every demo citation is about a named entity: its title is that name.
            names = {t.s_name for t in citation.triples} | {t.o_name for t in citation.triples}
            assert doc["title"] in names
            assert doc["title"] == citation_title(citation, 1, sample.cvt_nodes)


def test_an_alce_answer_cites_its_documents() -> None:
    """issue 38: ALCE answers carry their citations as [n] markers."""
    assert cited_answer("Jaws was directed by Steven Spielberg.", 2) == \
        "Jaws was directed by Steven Spielberg [1][2]."
    assert cited_answer("Who knows?", 1) == "Who knows [1]?"
    assert cited_answer("no end mark", 3) == "no end mark [1][2][3]"
    assert cited_answer("Alone.", 0) == "Alone."


def test_alce_with_everything_dropped_is_an_empty_list(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "alce.json"
    report = export_benchmark(bench, out, "alce", label_map={
        label: "drop" for label in ("supportive", "partially_supportive", "contradictory",
                                    "irrelevant")})
    assert json.loads(out.read_text(encoding="utf-8")) == []
    assert report.written == 0 and report.by_label == {}


def test_citation_titles() -> None:
    film = Triple(s="m.f", p="film.film.starring", o="m.cvt", s_name="The Godfather")
    actor = Triple(s="m.cvt", p="film.performance.actor", o="m.a", o_name="Al Pacino")
    born = Triple(s="m.a", p="people.person.place_of_birth", o="m.c", s_name="Al Pacino",
                  o_name="New York City")
    # the entity in most triples, as subject or object; CVT nodes are never titles
    assert citation_title(CitationRecord(text="…", triples=(film, actor, born)), 1,
                          ["m.cvt"]) == "Al Pacino"
    assert citation_title(CitationRecord(text="…", triples=(film, actor)), 1,
                          ["m.cvt"]) == "The Godfather"                 # tie: the first met
    jaws = Triple(s="m.j", p="film.film.directed_by", o="m.s", s_name="Jaws",
                  o_name="Steven Spielberg")
    park = Triple(s="m.p", p="film.film.directed_by", o="m.s", s_name="Jurassic Park",
                  o_name="Steven Spielberg")
    assert citation_title(CitationRecord(text="…", triples=(jaws, park)), 2) == "Steven Spielberg"
    nameless = Triple(s="m.x", p="p.q.r", o="1999", literal=True)
    assert citation_title(CitationRecord(text="…", triples=(nameless,)), 3) == "Citation 3"


def test_flat_jsonl(bench: Path, tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    out = tmp_path / "flat.jsonl"
    export_benchmark(bench, out, "jsonl")
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [list(r) for r in records] == [["id", "question", "question_extended", "answer",
                                           "citation", "label", "complexity", "split"]
                                          ] * len(samples)
    assert records == [{"id": s.id, "question": s.question,
                        "question_extended": s.question_extended, "answer": s.answer,
                        "citation": s.citation, "label": s.label, "complexity": s.complexity,
                        "split": s.split} for s in samples]


# -- split, atomic write, bad input -----------------------------------------------------------


@pytest.mark.parametrize("split", ["train", "test"])
def test_split_filter(bench: Path, tmp_path: Path, samples: tuple[BenchmarkSample, ...],
                      split: str) -> None:
    out = tmp_path / "flat.jsonl"
    report = export_benchmark(bench, out, "jsonl", split=split)  # type: ignore[arg-type]
    ids = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert ids == [s.id for s in samples if s.split == split]
    assert ids and report.written == len(ids)
    assert report.other_split == len(samples) - len(ids)
    assert report.read == len(samples)


def test_unknown_split_is_an_error(bench: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="unknown split 'dev'"):
        export_benchmark(bench, tmp_path / "x.csv", "caqa", split="dev")  # type: ignore[arg-type]


def test_a_bad_line_names_file_and_line_and_writes_nothing(
        tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    path = write_benchmark(tmp_path / "bench", samples[:4])
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    broken["label"] = "supported"
    path.write_text("\n".join([lines[0], "", lines[1], json.dumps(broken), lines[3]]) + "\n",
                    encoding="utf-8")
    out = tmp_path / "out" / "caqa.csv"
    with pytest.raises(SamplesFileError) as info:
        export_benchmark(tmp_path / "bench", out, "caqa")
    assert str(info.value).startswith(f"{path}:4: not a benchmark sample (label: ")
    assert info.value.line == 4
    assert "kgbench generate" in (info.value.hint or "")
    assert not out.exists()
    assert not list(out.parent.glob("*.part"))


def test_an_error_keeps_the_previous_file(tmp_path: Path,
                                          samples: tuple[BenchmarkSample, ...]) -> None:
    path = write_benchmark(tmp_path / "bench", samples[:3])
    with path.open("a", encoding="utf-8") as f:
        f.write("{not json\n")
    out = tmp_path / "caqa.csv"
    out.write_text("the previous export\n", encoding="utf-8")
    with pytest.raises(SamplesFileError, match=r"samples\.jsonl:4: .*(?i:invalid json)"):
        export_benchmark(tmp_path / "bench", out, "caqa")
    assert out.read_text(encoding="utf-8") == "the previous export\n"
    assert not list(tmp_path.glob("*.part"))


def test_reading_validates_and_skips_blank_lines(tmp_path: Path,
                                                 samples: tuple[BenchmarkSample, ...]) -> None:
    path = write_benchmark(tmp_path / "bench", samples[:2])
    path.write_text(path.read_text(encoding="utf-8") + "\n  \n", encoding="utf-8")
    assert list(iter_benchmark_samples(path)) == list(samples[:2])
    path.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(SamplesFileError, match=":1: "):
        list(iter_benchmark_samples(path))


def test_missing_samples_file_says_to_generate(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for directory in (tmp_path / "empty", tmp_path / "nowhere"):
        with pytest.raises(ExportError) as info:
            export_benchmark(directory, tmp_path / "x.csv", "caqa")
        assert str(directory) in str(info.value)
        assert "kgbench generate" in (info.value.hint or "")
    assert not (tmp_path / "x.csv").exists()


def test_the_samples_file_itself_may_be_given(bench: Path) -> None:
    assert find_samples_file(bench) == bench / "samples.jsonl"
    assert find_samples_file(bench / "samples.jsonl") == bench / "samples.jsonl"


def test_refuses_to_overwrite_its_input_or_a_directory(bench: Path, tmp_path: Path) -> None:
    before = (bench / "samples.jsonl").read_bytes()
    with pytest.raises(ExportError, match="is the samples file being exported"):
        export_benchmark(bench, bench / "samples.jsonl", "jsonl")
    assert (bench / "samples.jsonl").read_bytes() == before
    with pytest.raises(OutputPathError, match="is a directory"):
        export_benchmark(bench, tmp_path, "jsonl")
