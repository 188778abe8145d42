"""The benchmark sample format and its shipped JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extension.core.samples import Edit, SampleQuery, Source, StructuredSample, SubFact, Triple
from extension.outputs.sample_schema import (
    BenchmarkSample,
    benchmark_sample,
    iter_schema_violations,
    join_citations,
    sample_json_schema,
    shipped_schema,
)
from extension.verbalize.verbalizer import Citation, Verbalization

TRIPLE = Triple(s="m.1", p="film.film.directed_by", o="m.2", s_name="Jaws",
                o_name="Steven Spielberg")


def structured() -> StructuredSample:
    return StructuredSample(
        id="q1:supportive", source=Source(dataset="jsonl", qid="q1", question="who directed jaws?"),
        query=SampleQuery(original={}, extended=({},), rule="none", shape="single"),
        answer_entities=(), label="supportive", complexity="single", subgraph=(TRIPLE,),
        original_subgraph=(TRIPLE,), edit=Edit(kind="none"),
        sub_facts=(SubFact(triple=TRIPLE, supported=True),), supported_fraction=1.0, seed=0)


def text(sub_facts: int = 1) -> Verbalization:
    return Verbalization(
        question_extended="who directed jaws?", answer="Jaws was directed by Steven Spielberg.",
        citations=(Citation("Jaws was directed by Steven Spielberg.", (TRIPLE,)),
                   Citation("Jaws is a film.", ())),
        sub_fact_texts=("Jaws was directed by Steven Spielberg.",) * sub_facts,
        backend="template")


def test_the_shipped_schema_is_the_models_schema() -> None:
    assert shipped_schema() == json.loads(json.dumps(sample_json_schema()))


def test_join_citations_numbers_from_one() -> None:
    assert join_citations(["a.", "b."]) == "[1] a. [2] b."
    assert join_citations([]) == ""


def test_benchmark_sample_combines_structure_and_text() -> None:
    sample = benchmark_sample(structured(), text(), "test")
    assert sample.citation == ("[1] Jaws was directed by Steven Spielberg. "
                               "[2] Jaws is a film.")
    assert sample.split == "test" and sample.verbalizer == "template"
    assert sample.sub_facts[0].text.startswith("Jaws") and sample.sub_facts[0].supported
    assert BenchmarkSample.model_validate_json(sample.model_dump_json()) == sample


def test_sub_fact_texts_must_match_the_sub_facts() -> None:
    with pytest.raises(ValueError, match="2 sub-fact texts for 1 sub-facts"):
        benchmark_sample(structured(), text(sub_facts=2), "train")


def test_schema_violations_name_the_line_and_field(tmp_path: Path) -> None:
    good = json.loads(benchmark_sample(structured(), text(), "train").model_dump_json())
    bad_label = {**good, "label": "supported"}
    no_split = {k: v for k, v in good.items() if k != "split"}
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join([json.dumps(good), json.dumps(bad_label), "{not json",
                               json.dumps(no_split)]) + "\n", encoding="utf-8")
    found = list(iter_schema_violations(path))
    assert [(v.line, v.path) for v in found] == [(2, "label"), (3, ""), (4, "")]
    assert "\"supported\" is not one of" in found[0].message
    assert "not JSON" in found[1].message
    assert "\"split\" is a required property" in found[2].message
