"""What a job may be asked to do: one pydantic model of parameters per kind, bounded,
with no field beyond those listed (``extra="forbid"``), so no arbitrary command-line
flag reaches a run. Every path is relative to the server's ``--data`` directory and is
resolved by :func:`kgbench.service.paths.resolve_under` (by the server when the job is
submitted, and again by the job's process); an LLM endpoint must be an http(s) URL
(the server fetches it on the job's behalf).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from extension.defaults import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_MAX_ANSWERS,
    DEFAULT_TEST_FRACTION,
)

__all__ = ["KINDS", "RESUMABLE_KINDS", "EvaluateParams", "GenerateParams", "JobParams",
           "JobRequest", "KalmaGenerateParams", "ParseParams", "ScoreParams", "params_model"]

Kind = Literal["parse", "generate", "score", "evaluate", "kalma-generate"]
KINDS: tuple[str, ...] = ("parse", "generate", "score", "evaluate", "kalma-generate")
RESUMABLE_KINDS = frozenset({"generate", "score", "kalma-generate"})
"""Kinds whose work keeps finished chunks: a rerun on the same output resumes them."""

MAX_JOB_WORKERS = 8
"""Worker processes one generate job may start (the CLI allows more; a server is shared)."""

RelPath = Annotated[str, StringConstraints(min_length=1, max_length=1024)]
"""A path relative to ``--data`` (checked by ``resolve_under``, not here)."""
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Seed = Annotated[int, Field(ge=0, le=2**32 - 1)]
Device = Literal["auto", "cpu", "cuda"]
Split = Literal["train", "test", "all"]
Format = Literal["webqsp", "grailqa", "jsonl"]


def _http_url(value: str | None) -> str | None:
    """An http(s) URL with a host, and nothing else (no file:, no spaces)."""
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or any(
            c.isspace() for c in value) or len(value) > 2048:
        raise ValueError("llm_url must be an http:// or https:// URL with a host")
    return value


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        """``name -> (relative path, kind)`` of every input the job reads from ``--data``."""
        return {}


class _LlmParams(_Params):
    llm_url: Annotated[str, StringConstraints(max_length=2048)] | None = Field(
        None, description="OpenAI-compatible endpoint (http or https); the server calls it.")
    llm_model: ShortText | None = None
    llm_timeout: float = Field(120.0, gt=0, le=600, allow_inf_nan=False)
    llm_retries: int = Field(5, ge=0, le=20)
    llm_rps: float | None = Field(None, gt=0, le=1000, allow_inf_nan=False)

    @model_validator(mode="after")
    def _llm_pair(self) -> _LlmParams:
        _http_url(self.llm_url)
        if self.llm_url and not self.llm_model:
            raise ValueError("llm_url needs llm_model (e.g. llama3.1:8b)")
        if self.llm_model and not self.llm_url:
            raise ValueError("llm_model needs llm_url")
        return self


class GenerateParams(_LlmParams):
    """``kgbench generate``: exactly one of ``questions`` (a file under ``--data``) and
    ``domain``; the benchmark goes to the job's ``out``."""

    questions: RelPath | None = None
    format: Format | None = None
    domain: ShortText | None = None
    n: int = Field(300, ge=1, le=100_000)
    seed: Seed = 0
    limit: int | None = Field(None, ge=1, le=10_000_000)
    test_fraction: float = Field(DEFAULT_TEST_FRACTION, ge=0, le=1, allow_inf_nan=False)
    workers: int = Field(1, ge=1, le=MAX_JOB_WORKERS)
    chunk_size: int = Field(DEFAULT_CHUNK_SIZE, ge=1, le=100_000)
    max_answers: int = Field(DEFAULT_MAX_ANSWERS, ge=1, le=100_000)
    classes: bool = True
    caqa_strict: bool = False
    llm_fallback: bool = False
    phrases: RelPath | None = None
    strict: bool = False
    report: bool = True
    out: RelPath | None = None

    @model_validator(mode="after")
    def _one_source(self) -> GenerateParams:
        if (self.questions is None) == (self.domain is None):
            raise ValueError("give either questions (a file under --data) or domain")
        return self

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        return {name: (value, "file") for name, value in
                (("questions", self.questions), ("phrases", self.phrases)) if value}


class ScoreParams(_Params):
    """``kgbench score``: scores are written into the benchmark directory itself."""

    bench: RelPath
    nli: RelPath | None = None
    lm: RelPath | None = None
    split: Split = "all"
    flag_below: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)
    device: Device = "auto"
    threads: int | None = Field(None, ge=1, le=256)
    batch_tokens: int = Field(16384, ge=16, le=10_000_000)
    chunk_size: int = Field(256, ge=1, le=1_000_000)
    force: bool = False

    @model_validator(mode="after")
    def _models(self) -> ScoreParams:
        if self.nli is None and self.lm is None:
            raise ValueError("nothing to score with: give nli, lm or both (exported model "
                             "directories under --data)")
        if self.flag_below is not None and self.nli is None:
            raise ValueError("flag_below needs nli")
        return self

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        paths: dict[str, tuple[str, Literal["file", "dir", "any"]]] = {"bench": (self.bench, "dir")}
        for name, value in (("nli", self.nli), ("lm", self.lm)):
            if value:
                paths[name] = (value, "dir")
        return paths


class ParseParams(_Params):
    """``kgbench questions parse``: ``parsed.jsonl`` and ``coverage.json`` in ``out``."""

    file: RelPath
    format: Format | None = None
    store_types: bool = Field(False, description="Also use the CVT types of the server's store.")
    strict: bool = False
    out: RelPath | None = None

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        return {"file": (self.file, "file")}


class KalmaGenerateParams(_LlmParams):
    """``kgbench kalma generate``: entries in ``out``."""

    domain: ShortText = "Q5"
    n: int = Field(100, ge=1, le=100_000)
    seed: Seed = 0
    iterations: int = Field(5, ge=2, le=20)
    alpha: float = Field(0.5, ge=0, le=1, allow_inf_nan=False)
    single: bool = False
    incompetence: list[Annotated[int, Field(ge=1, le=20)]] = Field(default_factory=list,
                                                                   max_length=20)
    lm: RelPath | None = None
    prompts: RelPath | None = None
    chunk_size: int = Field(50, ge=1, le=100_000)
    out: RelPath | None = None

    @model_validator(mode="after")
    def _prompts_need_llm(self) -> KalmaGenerateParams:
        if self.prompts and self.llm_url is None:
            raise ValueError("prompts needs llm_url")
        return self

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        paths: dict[str, tuple[str, Literal["file", "dir", "any"]]] = {}
        if self.lm:
            paths["lm"] = (self.lm, "dir")
        if self.prompts:
            paths["prompts"] = (self.prompts, "file")
        return paths


class EvaluateParams(_LlmParams):
    """``kgbench evaluate`` with one evaluator: a predictions file, an exported model
    or an LLM endpoint; the document goes to ``out/evaluation.json``."""

    bench: RelPath
    predictions: RelPath | None = None
    model: RelPath | None = None
    prompt: ShortText | None = None
    prompts: RelPath | None = None
    scheme: Literal["ours", "caqa", "attrscore"] = "ours"
    protocol: Literal["kgbench", "released"] = "kgbench"
    label_map: list[ShortText] = Field(default_factory=list, max_length=32)
    split: Split = "test"
    nli_map: list[ShortText] = Field(default_factory=list, max_length=8)
    device: Device = "auto"
    blind_labels: RelPath | None = None
    blind_column: ShortText | None = None
    compare: list[RelPath] = Field(default_factory=list, max_length=8)
    sub_facts: RelPath | None = None
    save_predictions: bool = False
    llm_parallel: int = Field(4, ge=1, le=64)
    out: RelPath | None = None

    @model_validator(mode="after")
    def _one_evaluator(self) -> EvaluateParams:
        given = [v for v in (self.predictions, self.model, self.llm_url) if v is not None]
        if len(given) != 1:
            raise ValueError("give one evaluator: predictions, model or llm_url")
        for value, name, other, needed in (
                (self.prompt, "prompt", self.llm_url, "llm_url"),
                (self.prompts, "prompts", self.llm_url, "llm_url"),
                (self.nli_map, "nli_map", self.model, "model"),
                (self.blind_column, "blind_column", self.blind_labels, "blind_labels"),
                (self.compare, "compare", self.blind_labels, "blind_labels")):
            if value and other is None:
                raise ValueError(f"{name} needs {needed}")
        return self

    def input_paths(self) -> dict[str, tuple[str, Literal["file", "dir", "any"]]]:
        paths: dict[str, tuple[str, Literal["file", "dir", "any"]]] = {"bench": (self.bench, "any")}
        for name, value, kind in (("predictions", self.predictions, "file"),
                                  ("model", self.model, "dir"),
                                  ("prompts", self.prompts, "file"),
                                  ("blind_labels", self.blind_labels, "file"),
                                  ("sub_facts", self.sub_facts, "file")):
            if value:
                paths[name] = (value, kind)  # type: ignore[assignment]
        for index, value in enumerate(self.compare):
            paths[f"compare.{index}"] = (value, "file")
        return paths


JobParams = ParseParams | GenerateParams | ScoreParams | EvaluateParams | KalmaGenerateParams

_MODELS: dict[str, type[_Params]] = {
    "parse": ParseParams, "generate": GenerateParams, "score": ScoreParams,
    "evaluate": EvaluateParams, "kalma-generate": KalmaGenerateParams}


def params_model(kind: str) -> type[_Params]:
    """The parameters model of ``kind`` (one of :data:`KINDS`)."""
    return _MODELS[kind]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParseJob(_Request):
    kind: Literal["parse"]
    params: ParseParams


class GenerateJob(_Request):
    kind: Literal["generate"]
    params: GenerateParams


class ScoreJob(_Request):
    kind: Literal["score"]
    params: ScoreParams


class EvaluateJob(_Request):
    kind: Literal["evaluate"]
    params: EvaluateParams


class KalmaGenerateJob(_Request):
    kind: Literal["kalma-generate"]
    params: KalmaGenerateParams


JobRequest = Annotated[ParseJob | GenerateJob | ScoreJob | EvaluateJob | KalmaGenerateJob,
                       Field(discriminator="kind")]
"""The body of ``POST /api/jobs``: ``{"kind": ..., "params": {...}}``."""


def dump_params(params: BaseModel) -> dict[str, Any]:
    """The parameters as stored in ``job.json`` (defaults included: a job says what ran)."""
    return params.model_dump(mode="json")
