"""The chat-completions wire format: messages, the request body (temperature fixed at 0
so that a rerun asks for the same text), the request's cache key and the parsed reply.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from typing import Literal as TypingLiteral

from pydantic import BaseModel, ConfigDict, ValidationError

from llm.endpoint import ChatEndpoint
from llm.errors import LLMBadResponse

TEMPERATURE = 0.0
"""Sampling temperature of every request: 0, so the same prompt asks for the same text
(CAQA Appendix A generates with temperature 0 as well)."""


Role = TypingLiteral["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a chat request."""

    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The text of a chat completion's first choice and why generation stopped
    (``"length"``: cut off at ``max_tokens``)."""

    content: str
    finish_reason: str | None = None


def chat_request_body(endpoint: ChatEndpoint, messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """The JSON body of an OpenAI chat-completions request for ``messages``: model,
    messages, ``temperature`` 0 and ``max_tokens`` when the endpoint sets one."""
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "temperature": TEMPERATURE,
    }
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    return body


def request_key(body: Mapping[str, Any]) -> str:
    """The cache key of a request body: the SHA-256 (hex) of its canonical JSON (sorted
    keys, no spaces). The body holds model, messages, temperature and ``max_tokens``
    — everything that decides the reply — and not the URL, so the same model served
    elsewhere shares the cache."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _ResponseMessage(_Lenient):
    content: str | None = None


class _Choice(_Lenient):
    message: _ResponseMessage
    finish_reason: str | None = None


class _ChatCompletion(_Lenient):
    choices: list[_Choice]


def parse_chat_completion(raw: bytes, url: str) -> ChatReply:
    """The reply in an OpenAI chat-completion body (``choices[0].message.content``; a
    ``null`` content reads as ``""``). Raises :class:`LLMBadResponse` saying what is
    wrong when ``raw`` is not such a body."""
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LLMBadResponse(
            f"the LLM endpoint {url} answered with something that is not JSON "
            f"(starts with {_snippet(raw)!r}); is it an OpenAI-compatible "
            "chat-completions endpoint?") from None
    try:
        completion = _ChatCompletion.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise LLMBadResponse(
            f"the LLM endpoint {url} answered JSON that is not a chat completion "
            f"({where}: {first['msg']}; body starts with {_snippet(raw)!r})") from None
    if not completion.choices:
        raise LLMBadResponse(f"the LLM endpoint {url} answered a chat completion with no "
                             f"choices (body starts with {_snippet(raw)!r})")
    choice = completion.choices[0]
    return ChatReply(content=choice.message.content or "", finish_reason=choice.finish_reason)


def _snippet(raw: bytes, limit: int = 120) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "…"
