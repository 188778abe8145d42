"""The ``generate`` use case from its request to its result: read the questions (a
dataset file or seed questions sampled from a domain of the store), cut them to a
limit, run :func:`extension.run.generate.generate`, and keep the seed questions beside the
benchmark. The command line (``kgbench generate``) and the service's job runner call
the same two functions, so a job does what the command does, byte for byte.

Reading the inputs is a step of its own (:func:`read_generate_inputs`) because the
command reports what it read (skipped records, a domain smaller than asked) before the
long run starts; :func:`run_generate` does both steps for a caller with nothing to say
in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extension.inputs.complexity_mix import CAQA_MIX, ComplexityMix
from extension.outputs.output_file import write_atomic
from extension.run.generate import (
    GenerateConfig,
    GenerateResult,
    ProgressCallback,
    Question,
    generate,
)
from extension.run.generate_inputs import (
    GenerateInputError,
    check_store,
    dataset_questions,
    domain_questions,
)
from kgstore import open_store
from kgstore.store import ProgressCallback as StoreProgressCallback
from loaders.kgqa import ReadIssue

__all__ = ["GenerateInputs", "GenerateRequest", "read_generate_inputs", "require_questions",
           "run_generate", "run_generate_on"]

SEED_QUESTIONS_FILE = "seed_questions.jsonl"


@dataclass(frozen=True, slots=True)
class GenerateRequest:
    """One run of ``generate``: where the questions come from (exactly one of
    ``questions`` and ``domain``), where the benchmark goes, and the pipeline's
    configuration. ``store`` is a location for :func:`kgstore.open_store`;
    ``complexity_mix``: the complexities of a domain run's seed questions
    (:mod:`extension.inputs.complexity_mix`; None: CAQA §4.2's draw)."""

    store: str
    out_dir: Path
    config: GenerateConfig
    questions: Path | None = None
    fmt: str | None = None
    domain: str | None = None
    n: int = 300
    complexity_mix: ComplexityMix | None = CAQA_MIX
    limit: int | None = None
    strict: bool = False
    force: bool = False
    report: bool = True

    def __post_init__(self) -> None:
        if (self.questions is None) == (self.domain is None):
            raise ValueError("a generate request needs exactly one of questions and domain")


@dataclass(frozen=True, slots=True)
class GenerateInputs:
    """The questions a run uses, its ``source`` record (for the resume check), the
    records skipped as malformed, the seed-question lines of a domain run, and the
    notes worth telling the user (a domain with fewer questions than asked)."""

    items: list[Question]
    source: dict[str, Any]
    issues: list[ReadIssue] = field(default_factory=list)
    seed_lines: str | None = None
    notes: list[str] = field(default_factory=list)


def read_generate_inputs(request: GenerateRequest) -> GenerateInputs:
    """The questions of ``request`` after a check that the store can make readable
    samples; the problems of the store and the questions are :class:`GenerateInputError`
    (message and hint)."""
    notes: list[str] = []
    issues: list[ReadIssue] = []
    seed_lines: str | None = None
    with open_store(request.store, read_only=True) as store:
        check_store(store, request.store)
        if request.domain is not None:
            drawn = domain_questions(store, request.domain, request.n, seed=request.config.seed,
                                     mix=request.complexity_mix)
            if len(drawn.items) < request.n:
                notes.append(f"sampled {len(drawn.items):,} of {request.n:,} seed questions "
                             f"from {request.domain} (the domain has fewer groundable facts)")
            items, source, seed_lines = drawn.items, drawn.source, drawn.seed_lines
        else:
            assert request.questions is not None
            read = dataset_questions(request.questions, request.fmt, strict=request.strict)
            items, source, issues = read.items, read.source, read.issues
    if request.limit is not None:
        items = items[:request.limit]
        source = {**source, "limit": request.limit}
    return GenerateInputs(items, source, issues, seed_lines, notes)


def require_questions(request: GenerateRequest, inputs: GenerateInputs) -> None:
    """:class:`GenerateInputError` when the inputs hold no question (an empty file, a
    domain with nothing to ground): said before a run starts, not after it."""
    if not inputs.items:
        raise GenerateInputError(
            f"no questions to generate from ({inputs.source.get('file') or request.domain})",
            "check the file's format with `kgbench questions parse FILE`")


def run_generate_on(request: GenerateRequest, inputs: GenerateInputs, *,
                    progress: ProgressCallback | None = None,
                    store_progress: StoreProgressCallback | None = None) -> GenerateResult:
    """Run the pipeline on inputs read by :func:`read_generate_inputs`; a domain run
    also writes ``seed_questions.jsonl`` beside the benchmark. ``store_progress`` hears
    of the store's one-time preparation (see :func:`~extension.run.generate.generate`)."""
    require_questions(request, inputs)
    result = generate(request.store, inputs.items, request.out_dir, request.config,
                      source=inputs.source, progress=progress, force=request.force,
                      report=request.report, store_progress=store_progress)
    if inputs.seed_lines is not None:
        write_atomic(request.out_dir / SEED_QUESTIONS_FILE, inputs.seed_lines)
    return result


def run_generate(request: GenerateRequest, *,
                 progress: ProgressCallback | None = None) -> tuple[GenerateInputs, GenerateResult]:
    """Read the inputs and run the pipeline: what ``kgbench generate`` does, silently.
    Returns the inputs too (their skipped records and notes are part of the outcome)."""
    inputs = read_generate_inputs(request)
    return inputs, run_generate_on(request, inputs, progress=progress)
