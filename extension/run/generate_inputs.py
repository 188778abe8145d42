"""What ``kgbench generate`` reads before the pipeline runs, printing nothing: the
questions of a dataset file, seed questions sampled from a domain of the store, and a
check that the store can make readable samples at all.

Problems raise :class:`GenerateInputError` (a :class:`~extension.run.generate.GenerateError`)
whose message says what is wrong and whose ``hint`` says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from extension.inputs.complexity_mix import CAQA_MIX, ComplexityMix, seed_counts, with_rules
from extension.inputs.seed_sampler import SeedSample, sample_seed_questions
from extension.run.generate import GenerateError, Question, source_of_file
from kgstore import Store
from loaders.kgqa import FORMATS, ReadIssue, read_questions

__all__ = ["DatasetQuestions", "DomainQuestions", "GenerateInputError", "check_store",
           "dataset_questions", "domain_questions"]


class GenerateInputError(GenerateError):
    """The store or the questions cannot feed a run; ``hint`` says what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def check_store(store: Store, location: str) -> None:
    """A store with no facts or no names cannot make readable samples: say so early."""
    if store.stats().facts == 0:
        raise GenerateInputError(f"the store at {location} has no facts",
                                 "load a KG first, e.g. `kgbench load freebase DUMP --store S`")
    if not store.sample_entities(20, seed=0, named_only=True):
        raise GenerateInputError(
            f"the store at {location} has no entity names: citations would show raw ids",
            "load names with the KG (e.g. `kgbench load triples --names names.tsv`)")


@dataclass(frozen=True, slots=True)
class DatasetQuestions:
    """The questions of a file, the run's ``source`` record, and the skipped records."""

    items: list[Question]
    source: dict[str, Any]
    issues: list[ReadIssue]


def dataset_questions(path: Path, fmt: str | None, *, strict: bool = False) -> DatasetQuestions:
    """Every question of ``path`` (``fmt`` detected when ``None``); malformed records
    are skipped and returned as ``issues`` (``strict`` raises at the first)."""
    if not path.exists():
        raise GenerateInputError(f"question file {path} does not exist")
    issues: list[ReadIssue] = []
    try:
        items: list[Question] = list(read_questions(path, fmt, strict=strict, issues=issues))
    except ValueError as exc:   # unknown or undetectable format, malformed under --strict
        raise GenerateInputError(str(exc), f"pass --format with one of {', '.join(FORMATS)}"
                                 ) from exc
    source = source_of_file(path, fmt)
    return DatasetQuestions(items, {**source, "malformed_records": len(issues)}, issues)


@dataclass(frozen=True, slots=True)
class DomainQuestions:
    """Seed questions sampled from a domain, the run's ``source`` record, the
    ``seed_questions.jsonl`` text, and the sampler's report."""

    items: list[Question]
    source: dict[str, Any]
    seed_lines: str
    sampled: SeedSample


def domain_questions(store: Store, spec: str, n: int, *, seed: int,
                     mix: ComplexityMix | None = CAQA_MIX) -> DomainQuestions:
    """``n`` seed questions of the domain ``spec`` (a type or a predicate prefix);
    fewer when the domain has fewer groundable facts. With a ``mix`` (default: CAQA
    Table 5's) each is the seed of one complexity, in the mix's shares
    (:mod:`extension.inputs.complexity_mix`); without, balanced over the CAQA shapes."""
    try:
        if mix is None:
            sampled = sample_seed_questions(store, spec, n, seed=seed)
        else:
            counts = seed_counts(n, mix)
            sampled = sample_seed_questions(store, spec, n, seed=seed, shapes=tuple(counts),
                                            counts=counts)
            sampled = replace(sampled, questions=with_rules(sampled.questions, mix, seed=seed))
    except ValueError as exc:
        raise GenerateInputError(str(exc)) from exc
    questions: list[Question] = list(sampled.questions)
    lines = "".join(q.model_dump_json() + "\n" for q in sampled.questions)
    source = {"kind": "domain", "spec": spec, "n": n, "store_facts": store.stats().facts,
              **({"complexity_mix": mix.describe()} if mix is not None else {})}
    return DomainQuestions(questions, source, lines, sampled)
