"""An LLM behind an OpenAI-compatible endpoint as an attribution evaluator (CAQA §5.2:
zero-shot and few-shot LLM evaluators; AttrScore §3-4: prompting LLMs).

The requests go through the same client as generation (:class:`llm.client.ChatClient`:
one deadline per request with its retries, exponential backoff, ``Retry-After``, the
rate limit, the reply size cap) with its on-disk cache (:class:`llm.cache.ResponseCache`),
at temperature 0 (:data:`llm.chat.TEMPERATURE`, as CAQA Appendix C and AttrScore §4.2
generate), so a rerun asks nothing it asked before and an interrupted run resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from llm.cache import ResponseCache
from llm.chat import ChatMessage
from llm.client import ChatClient
from llm.endpoint import ChatEndpoint
from llm.errors import LLMUnavailable
from scoring.evaluate.benchmark import EvalSample, EvaluationSet
from scoring.evaluate.predictions import Prediction
from scoring.evaluate.prompts import AttributionPrompt, parse_reply
from scoring.evaluate.protocol_released import parse_reply_released
from scoring.evaluate.schemes import LabelScheme
from scoring.protocol import ProtocolName

__all__ = ["LLMEvaluator"]


class LLMEvaluator:
    """Asks ``endpoint`` the ``prompt`` for each sample, ``parallel`` requests at a
    time, and reads the label from each reply (:func:`parse_reply`, or under the
    ``released`` protocol :func:`parse_reply_released`, then the scheme's
    :meth:`~LabelScheme.resolve`); a reply that names no label is a prediction with
    label ``None`` (unparsed) that keeps its text."""

    def __init__(self, endpoint: ChatEndpoint, prompt: AttributionPrompt, scheme: LabelScheme,
                 cache_dir: Path, *, parallel: int = 4, protocol: ProtocolName = "kgbench") -> None:
        if parallel < 1:
            raise ValueError("parallel must be >= 1")
        self.cache = ResponseCache(cache_dir)
        self.client = ChatClient(endpoint, self.cache)
        self.prompt = prompt
        self.scheme = scheme
        self.parallel = parallel
        self.protocol = protocol
        self.name = f"{endpoint.model} ({prompt.name})"

    def messages(self, sample: EvalSample) -> list[ChatMessage]:
        """The chat request for ``sample``: one user message (:meth:`AttributionPrompt.render`)."""
        return [ChatMessage("user", self.prompt.render(sample.claim, sample.reference,
                                                       self.protocol))]

    def label(self, reply: str) -> str | None:
        """The scheme's label a reply names, or ``None``."""
        parse = parse_reply_released if self.protocol == "released" else parse_reply
        named = parse(reply, self.prompt.options)
        return None if named is None else self.scheme.resolve(named)

    def predict(self, evaluation: EvaluationSet,
                progress: Callable[[int], None] | None = None) -> list[Prediction]:
        """One prediction per sample of ``evaluation``, in order. Raises the client's
        :class:`~llm.errors.LLMError` when a request fails (after its retries); the
        replies received so far are cached, so the same command resumes."""

        def ask(sample: EvalSample) -> Prediction:
            content = self.client.complete(self.messages(sample)).content
            if progress is not None:
                progress(1)
            return Prediction(self.label(content), content)

        pool = ThreadPoolExecutor(max_workers=self.parallel, thread_name_prefix="evaluate")
        try:
            predictions = list(pool.map(ask, evaluation.samples))
        except BaseException as exc:
            # Stop queueing at once (an error or Ctrl-C is reported now; the requests in
            # flight end within their deadline and are cached for the rerun).
            pool.shutdown(wait=False, cancel_futures=True)
            if isinstance(exc, LLMUnavailable):
                raise LLMUnavailable(f"{exc}. The replies received so far are cached in "
                                     f"{self.cache.directory}: run the same command again "
                                     "to resume") from exc
            raise
        pool.shutdown()
        return predictions

    def runtime_json(self) -> dict[str, Any] | None:
        """None: an LLM has no local runtime to report."""
        return None

    def notes(self) -> list[str]:
        """What the run asked: requests sent and replies taken from the cache."""
        stats = self.client.stats
        return [f"{stats.requests:,} LLM requests sent (retries included), "
                f"{stats.cache_hits:,} replies from "
                f"the cache in {self.cache.directory}"]
