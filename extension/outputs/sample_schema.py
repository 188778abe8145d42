"""The benchmark sample: the record ``kgbench generate`` writes, one per line of
``samples.jsonl``, and its JSON Schema.

A :class:`BenchmarkSample` is a structured sample (:class:`extension.core.samples.
StructuredSample`: query, label, complexity, subgraphs, edit, sub-facts) with its text
(:class:`extension.verbalize.verbalizer.Verbalization`): the original question q, the extended
question q̃, the answer statement ã and the citations — one per part of the subgraph
as in CAQA Table 3 — plus the ``citation`` string people paste into a prompt
(``[1] … [2] …``) and the train/test ``split``.

The JSON Schema ships in the package (``extension/outputs/sample.schema.json``, generated
from the model by :func:`sample_json_schema`; a test keeps the two equal) so users can
validate files without this code; :func:`iter_schema_violations` checks a file against
the shipped schema with ``jsonschema-rs``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from extension.core.labels import Complexity, Label, Split
from extension.core.samples import AnswerEntity, Edit, SampleQuery, Source, StructuredSample, Triple

if TYPE_CHECKING:   # the sample format does not need the verbalizers, only their output
    from extension.verbalize.verbalizer import Verbalization

SCHEMA_RESOURCE = "sample.schema.json"
SCHEMA_ID = "https://kgbench.dev/schema/sample.schema.json"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CitationRecord(_Frozen):
    """One citation: its text and the triples it verbalizes."""

    text: str
    triples: tuple[Triple, ...]


class SubFactRecord(_Frozen):
    """One triple of the original subgraph G, its sentence, and whether the sample's
    (edited) subgraph still contains it (fine-grained partial support)."""

    triple: Triple
    text: str
    supported: bool


class BenchmarkSample(_Frozen):
    """One attribution sample of the finished benchmark (see the module docstring)."""

    id: str = Field(description="Unique id: '<question id>:<label>'.")
    source: Source
    question: str = Field(description="The original question q.")
    question_extended: str = Field(
        description="The question of the extended query (q̃); q itself when the rule is 'none'.")
    answer: str = Field(description="The answer statement ã: q̃ and its answers as one sentence.")
    answer_entities: tuple[AnswerEntity, ...]
    answers_capped: bool = False
    citations: tuple[CitationRecord, ...]
    citation: str = Field(description="The citations joined as '[1] … [2] …'.")
    label: Label
    complexity: Complexity
    query: SampleQuery
    subgraph: tuple[Triple, ...]
    original_subgraph: tuple[Triple, ...]
    sub_facts: tuple[SubFactRecord, ...]
    supported_fraction: float = Field(ge=0.0, le=1.0)
    edit: Edit
    split: Split
    seed: int
    verbalizer: str = Field(description="'template' or 'llm:<model>'.")
    fallbacks: tuple[str, ...] = Field(
        default=(), description="Parts the LLM backend could not produce (template text used).")
    cvt_nodes: tuple[str, ...] = ()


def join_citations(texts: list[str] | tuple[str, ...]) -> str:
    """``["a", "b"]`` -> ``"[1] a [2] b"``: the single-string form papers feed a model
    (CAQA's ``reference`` column, ALCE's numbered documents)."""
    return " ".join(f"[{i}] {t}" for i, t in enumerate(texts, 1))


def benchmark_sample(sample: StructuredSample, text: Verbalization, split: Split
                     ) -> BenchmarkSample:
    """Combine a structured sample with its verbalization into the benchmark record."""
    if len(text.sub_fact_texts) != len(sample.sub_facts):
        raise ValueError(f"{sample.id}: {len(text.sub_fact_texts)} sub-fact texts for "
                         f"{len(sample.sub_facts)} sub-facts")
    citations = tuple(CitationRecord(text=c.text, triples=c.triples) for c in text.citations)
    return BenchmarkSample(
        id=sample.id, source=sample.source, question=sample.source.question,
        question_extended=text.question_extended, answer=text.answer,
        answer_entities=sample.answer_entities, answers_capped=sample.answers_capped,
        citations=citations, citation=join_citations([c.text for c in citations]),
        label=sample.label, complexity=sample.complexity, query=sample.query,
        subgraph=sample.subgraph, original_subgraph=sample.original_subgraph,
        sub_facts=tuple(SubFactRecord(triple=s.triple, text=t, supported=s.supported)
                        for s, t in zip(sample.sub_facts, text.sub_fact_texts, strict=True)),
        supported_fraction=sample.supported_fraction, edit=sample.edit, split=split,
        seed=sample.seed, verbalizer=text.backend, fallbacks=text.fallbacks,
        cvt_nodes=sample.cvt_nodes,
    )


def sample_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one ``samples.jsonl`` line, generated from
    :class:`BenchmarkSample`."""
    schema = BenchmarkSample.model_json_schema(mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            **schema}


@cache
def shipped_schema() -> dict[str, Any]:
    """The schema file shipped in the package (``extension/outputs/sample.schema.json``)."""
    text = resources.files("extension.outputs").joinpath(SCHEMA_RESOURCE).read_text("utf-8")
    return dict(json.loads(text))


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    """A line of a samples file that does not match the schema: where and why."""

    line: int
    path: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.path or '<root>'}: {self.message}"


def iter_schema_violations(path: Path, *, schema: dict[str, Any] | None = None
                           ) -> Iterator[SchemaViolation]:
    """Every schema violation in the JSONL file ``path`` (a line that is not JSON is
    one violation), checked against the shipped schema unless ``schema`` is given.

    Validation uses ``jsonschema-rs`` (about 10 µs per sample; the pure-Python
    ``jsonschema`` took 4 ms, which alone would cap generation at 250 samples/s)."""
    import jsonschema_rs  # imported here: only validation needs it

    validator = jsonschema_rs.validator_for(schema or shipped_schema())
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():  # blank lines are skipped by every reader
                continue
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                yield SchemaViolation(number, "", f"not JSON: {exc}")
                continue
            for error in validator.iter_errors(doc):
                yield SchemaViolation(number, "/".join(str(p) for p in error.instance_path),
                                      error.message)
