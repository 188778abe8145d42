"""Prompt files: the prompts a user hands to a command with ``--prompts FILE`` in place
of kgbench's own (the papers' exact prompts live in the user's copy, never in kgbench).

Every command that takes ``--prompts`` reads its file here: :func:`read_prompt_json`
gives the JSON document or one :class:`PromptFileError` line naming the file and what
is wrong; :func:`template_of` takes one template out of it and checks its slots.

A template is text with named slots such as ``{paragraph}``. :meth:`PromptTemplate.render`
fills exactly those slots, in one pass: a value that itself holds ``{knowledge}`` is
never filled again, and nothing else in the text is interpreted (no ``str.format``, so
braces of a demonstration such as ``{qid: Q42, ...}`` stay as they are and a file's
text never reaches Python's formatting machinery).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MAX_PROMPT_FILE_BYTES", "PromptFileError", "PromptTemplate", "prompts_digest",
           "read_prompt_json", "template_of"]

MAX_PROMPT_FILE_BYTES = 1 << 20
"""A prompt file is a few kilobytes; one over 1 MiB is not a prompt file."""

_SLOT = re.compile(r"\{([a-z_]+)\}")


class PromptFileError(ValueError):
    """A ``--prompts`` file that cannot be used: ``str(error)`` names the file and what
    is missing or wrong, ``hint`` the layout the command expects."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def read_prompt_json(path: Path, *, layout: str) -> Any:
    """The JSON document of the prompt file ``path``. Raises :class:`PromptFileError`
    (``layout``, the expected layout in words, as its hint) when the file is missing, a
    directory, over :data:`MAX_PROMPT_FILE_BYTES`, not UTF-8 or not JSON."""
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_PROMPT_FILE_BYTES + 1)
    except FileNotFoundError:
        raise PromptFileError(f"{path}: no such prompt file", layout) from None
    except IsADirectoryError:
        raise PromptFileError(f"{path} is a directory, not a prompt file",
                              "pass the prompt file itself") from None
    except PermissionError:
        raise PromptFileError(f"{path}: permission denied",
                              "check the file's permissions") from None
    if len(raw) > MAX_PROMPT_FILE_BYTES:
        raise PromptFileError(f"{path}: over {MAX_PROMPT_FILE_BYTES:,} bytes, not a prompt "
                              "file", layout)
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PromptFileError(f"{path}: not UTF-8 text, not a prompt file", layout) from None
    except json.JSONDecodeError as exc:
        raise PromptFileError(f"{path}: not JSON ({exc.msg} at line {exc.lineno} column "
                              f"{exc.colno})", layout) from None


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A prompt with named slots (``{paragraph}``); ``source`` says where it comes from
    (kgbench's own prompts, or the user's file)."""

    name: str
    text: str
    source: str

    @property
    def slots(self) -> frozenset[str]:
        """The slot names the text holds."""
        return frozenset(_SLOT.findall(self.text))

    def render(self, **values: str) -> str:
        """The text with each slot of ``values`` filled, in one pass (see the module
        docstring); braces that name no slot of ``values`` stay as they are."""
        return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), self.text)


def template_of(doc: Mapping[str, Any], key: str, slots: Iterable[str], *, source: str,
                layout: str) -> PromptTemplate:
    """The template ``doc[key]`` of the prompt file ``source``, checked: it must be a
    string holding every slot of ``slots``. Raises :class:`PromptFileError` naming the
    file, the key and what is missing."""
    text = doc.get(key)
    if text is None:
        raise PromptFileError(f"{source}: no {key!r} prompt", layout)
    if not isinstance(text, str) or not text.strip():
        raise PromptFileError(f"{source}: prompt {key!r} is not a non-empty string", layout)
    template = PromptTemplate(key, text, source)
    missing = [slot for slot in slots if slot not in template.slots]
    if missing:
        named = " and ".join("{" + slot + "}" for slot in missing)
        raise PromptFileError(f"{source}: prompt {key!r} has no {named} slot"
                              f"{'s' if len(missing) > 1 else ''}", layout)
    return template


def prompts_digest(texts: Iterable[str]) -> str:
    """A short digest of prompt texts (SHA-256, 16 hex digits): recorded with a run, so
    a resumed run with other prompts is told from the same run."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]
