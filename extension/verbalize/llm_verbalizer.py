"""The LLM verbalization backend: CAQA's text written by any OpenAI-compatible chat endpoint.

The template verbalizer (:class:`extension.verbalize.verbalizer.TemplateVerbalizer`) needs
nothing but the sample. :class:`LLMVerbalizer` lets an LLM write the text instead, as
CAQA does (Hu et al., *Benchmarking Large Language Models in Complex Question Answering
Attribution using Knowledge Graphs*, Appendix A, Tables 9–11): a citation per part of
the subgraph, the extended question q̃ and the answer statement ã, through the
:mod:`llm` client (:class:`~llm.client.ChatClient`, :class:`~llm.cache.ResponseCache`)
and the prompts of :mod:`extension.verbalize.llm_prompts`. It implements the
:class:`extension.verbalize.verbalizer.Verbalizer` protocol; each response is checked
(:mod:`extension.verbalize.llm_checks`), and an unusable one is replaced by the template text
and flagged in ``Verbalization.fallbacks``. :func:`verbalizer_from_options` is what the
CLI calls with ``--llm-url``/``--llm-model``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal as TypingLiteral

from extension.core.samples import StructuredSample, Triple
from extension.verbalize.llm_checks import (
    added_constraint_names,
    check_answer,
    check_citation,
    check_question,
    clean_reply,
    length_limit,
)
from extension.verbalize.llm_prompts import answer_messages, citation_messages, question_messages
from extension.verbalize.verbalizer import (
    Citation,
    TemplateVerbalizer,
    Verbalization,
    Verbalizer,
    exhaustive_triples,
)
from llm.cache import ResponseCache
from llm.chat import ChatMessage, ChatReply
from llm.client import ChatClient
from llm.endpoint import DEFAULT_API_KEY_ENV, ChatEndpoint, endpoint_from_options
from llm.errors import (
    LLMBadResponse,
    LLMConfigError,
    LLMRejected,
    LLMResponseTooLarge,
    LLMUnavailable,
)

OnError = TypingLiteral["raise", "fallback"]


class LLMVerbalizer:
    """The LLM backend of :class:`extension.verbalize.verbalizer.Verbalizer` (``name``
    ``"llm:<model>"``), writing the text as CAQA Appendix A does (Tables 9–11).

    Per sample: one request per citation part (the parts of
    :func:`extension.verbalize.citations.citation_parts`, taken from the ``fallback``'s own
    verbalization so that both backends cut the subgraph alike;
    :data:`CITATION_PROMPT`), one for the extended question when the rule is not
    ``none`` (otherwise the original question; :data:`QUESTION_PROMPT`) and one for the
    answer statement of that question (:data:`ANSWER_PROMPT`). The extended question
    and the answer statement are the same for the four samples of a question, so the
    :class:`ResponseCache` under ``cache_dir`` answers three of them — and a rerun
    answers everything — without a request. Sub-fact sentences always come from the
    templates: they are graded one triple at a time and must say exactly that triple.

    Each reply is cleaned (:func:`clean_reply`) and checked (:func:`check_citation`,
    :func:`check_question`, :func:`check_answer`); an unusable one or a body that is
    not a chat completion is replaced by the template text and recorded in
    ``Verbalization.fallbacks`` as ``"<part>: <why>"``. ``max_bad_responses`` such
    bodies in a row mean the endpoint is not what it should be and count as
    unavailable.

    A request that fails is an error of the run, not of the sample: when the endpoint
    is unavailable after its retries (:class:`LLMUnavailable`), refuses a request (a
    4xx such as 400, 413, 422: :class:`LLMRejected`) or sends a reply over the size cap
    (:class:`LLMResponseTooLarge`), ``on_error="raise"`` (default) raises, with the
    server's status and message, so the pipeline stops cleanly (an endpoint refusing
    every request must not yield a benchmark silently written by the templates); every
    reply so far is in the cache and a rerun resumes. ``on_error="fallback"`` uses
    templates for those parts instead and flags them; after an outage, uncached
    requests fall back at once for ``pause_s`` seconds rather than waiting out the
    retries again. Configuration errors (401, 403, 404, 405: key, URL, model; a
    redirect to another origin) always raise :class:`LLMRejected`. Thread-safe.
    """

    def __init__(self, endpoint: ChatEndpoint, cache_dir: Path, fallback: TemplateVerbalizer,
                 on_error: OnError = "raise", *, max_bad_responses: int = 10,
                 pause_s: float = 60.0) -> None:
        if on_error not in ("raise", "fallback"):
            raise ValueError(f"on_error must be 'raise' or 'fallback', not {on_error!r}")
        self.endpoint = endpoint
        self.cache = ResponseCache(cache_dir)
        self.client = ChatClient(endpoint, self.cache)
        self.fallback = fallback
        self.on_error = on_error
        self.max_bad_responses = max_bad_responses
        self.pause_s = pause_s
        self.name = f"llm:{endpoint.model}"
        self._lock = threading.Lock()
        self._bad_in_a_row = 0
        self._down_until = 0.0

    def verbalize(self, sample: StructuredSample) -> Verbalization:
        """The text of ``sample`` (see the class docstring). Raises
        :class:`LLMUnavailable` (with ``on_error="raise"``) or :class:`LLMRejected`
        (configuration errors)."""
        template = self.fallback.verbalize(sample)
        phrases = self.fallback.phrases
        fallbacks: list[str] = []

        def use(part: str, messages: list[ChatMessage], template_text: str,
                check: _Check) -> str:
            text, why = self._ask(messages, check, length_limit(template_text))
            if text is None:
                fallbacks.append(f"{part}: {why}")
                return template_text
            return text

        citations = []
        exhaustive = exhaustive_triples(sample, phrases, getattr(self.fallback, "slot_size", None))
        for i, citation in enumerate(template.citations, 1):
            triples = citation.triples
            if exhaustive.intersection(triples):
                # The prompt cannot ask for "only": the template states the exclusivity
                # that makes the citation contradict the answer.
                fallbacks.append(f"citation {i}: states a slot's only values")
                citations.append(citation)
                continue

            def citation_check(text: str, finish: str | None, limit: int,
                               triples: Sequence[Triple] = triples) -> str | None:
                return check_citation(text, triples, sample.cvt_nodes, max_chars=limit,
                                      finish_reason=finish)

            text = use(f"citation {i}", citation_messages(triples, sample.cvt_nodes, phrases),
                       citation.text, citation_check)
            citations.append(Citation(text=text, triples=triples))

        if sample.query.rule == "none":
            question = sample.source.question
        else:
            required = added_constraint_names(sample)
            question = use(
                "question_extended", question_messages(sample, phrases),
                template.question_extended,
                lambda text, finish, limit: check_question(
                    text, required, max_chars=limit, finish_reason=finish))
        # The template ã is built from the query, not from q̃'s wording: it fits any q̃.
        answer = use(
            "answer", answer_messages(question, sample.answer_entities, sample.answers_capped),
            template.answer,
            lambda text, finish, limit: check_answer(
                text, sample.answer_entities, max_chars=limit, finish_reason=finish))
        return Verbalization(question_extended=question, answer=answer,
                             citations=tuple(citations),
                             sub_fact_texts=template.sub_fact_texts, backend=self.name,
                             fallbacks=tuple(fallbacks))

    def _ask(self, messages: Sequence[ChatMessage], check: _Check,
             limit: int) -> tuple[str | None, str]:
        """(cleaned usable text, "") or (None, why it cannot be used)."""
        try:
            reply = self._complete(messages)
        except LLMUnavailable as exc:
            if self.on_error == "raise":
                raise LLMUnavailable(
                    f"{exc}. The replies received so far are cached in {self.cache.directory}"
                    ": run the same command again to resume") from exc
            return None, f"LLM endpoint unavailable: {exc}"
        except LLMRejected as exc:
            if exc.is_configuration_error:
                raise
            if self.on_error == "raise":
                raise LLMRejected(f"{exc}. {self._stop_note()}", exc.status,
                                  exc.reason) from exc
            return None, f"request refused with HTTP {exc.status}: {exc.reason}"
        except LLMResponseTooLarge as exc:
            if self.on_error == "raise":
                raise LLMResponseTooLarge(f"{exc}. {self._stop_note()}") from exc
            return None, "reply too large"
        except LLMBadResponse as exc:
            return None, f"bad response: {exc}"
        text = clean_reply(reply.content)
        problem = check(text, reply.finish_reason, limit)
        return (None, problem) if problem else (text, "")

    def _stop_note(self) -> str:
        return (f"Generation stopped; pass --llm-fallback to write the template text for "
                f"the requests that fail instead (the replies so far are cached in "
                f"{self.cache.directory}, and a rerun resumes)")

    def _complete(self, messages: Sequence[ChatMessage]) -> ChatReply:
        cached = self.client.cached(messages)
        if cached is not None:
            return cached
        with self._lock:
            paused = time.monotonic() < self._down_until
        if paused:
            raise LLMUnavailable(f"skipped: the endpoint {self.endpoint.chat_url} was "
                                 f"unavailable less than {self.pause_s:g}s ago")
        try:
            reply = self.client.complete(messages)
        except LLMBadResponse as exc:
            with self._lock:
                self._bad_in_a_row += 1
                too_many = self._bad_in_a_row >= self.max_bad_responses
            if too_many:
                self._pause()
                raise LLMUnavailable(
                    f"{self.max_bad_responses} responses in a row were not chat "
                    f"completions (last: {exc})") from exc
            raise
        except LLMUnavailable:
            self._pause()
            raise
        with self._lock:
            self._bad_in_a_row = 0
        return reply

    def _pause(self) -> None:
        if self.on_error == "fallback":
            with self._lock:
                self._down_until = time.monotonic() + self.pause_s


_Check = Callable[[str, str | None, int], str | None]
"""(cleaned text, finish_reason, length limit) -> why unusable, or None."""


def verbalizer_from_options(llm_url: str | None, llm_model: str | None, cache_dir: Path,
                            fallback: TemplateVerbalizer, *, on_error: OnError = "raise",
                            api_key_env: str = DEFAULT_API_KEY_ENV,
                            requests_per_second: float | None = None,
                            timeout_s: float = 120.0, max_retries: int = 5) -> Verbalizer:
    """The verbalizer the command-line options ask for: ``fallback`` (the templates)
    when no ``llm_url`` is given, else an :class:`LLMVerbalizer` for ``llm_model`` at
    ``llm_url`` caching replies under ``cache_dir``, with ``fallback`` for unusable
    replies (and, with ``on_error="fallback"``, for failed requests). The reply size
    cap comes from ``$KGBENCH_LLM_MAX_RESPONSE_BYTES`` (:func:`max_response_bytes`).
    Raises :class:`LLMConfigError` for a URL without a model, a model without a URL, a
    malformed URL or cap."""
    if not llm_url:
        if llm_model:
            raise LLMConfigError(f"--llm-model {llm_model} needs --llm-url (the server's "
                                 "OpenAI-compatible base URL, e.g. http://localhost:8000/v1)")
        return fallback
    endpoint = endpoint_from_options(llm_url, llm_model, api_key_env=api_key_env,
                                     requests_per_second=requests_per_second,
                                     timeout_s=timeout_s, max_retries=max_retries)
    return LLMVerbalizer(endpoint, Path(cache_dir), fallback, on_error)
