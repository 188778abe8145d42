"""LLM replies on disk (:class:`ResponseCache`), one file per request hash, so reruns and
resumed runs send nothing for what they already asked.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgstore.confined import WriteOutsideError, make_dirs, open_fd, remove_file, replace
from llm.chat import ChatReply


class ResponseCache:
    """Chat replies on disk, keyed by :func:`request_key` (SHA-256 of model, messages,
    temperature and ``max_tokens``): ``{directory}/{key[:2]}/{key}.json`` holding the
    request and the reply.

    Why one file per key rather than SQLite: several processes (resumed runs, parallel
    workers) write at once, and a file written to a temporary name in the same
    directory and moved into place with :func:`os.replace` (atomic on POSIX and
    Windows) can never be seen half-written, needs no lock, no busy-timeouts and no
    WAL (which SQLite does not support on network file systems). Two writers of one key
    both write a complete entry and the last rename wins. The 256 shard directories keep
    each directory small for millions of entries. An entry that cannot be read (a
    manual edit, a full disk) counts as a miss and is rewritten. Nothing is fsynced: a
    crash can lose recent entries, never corrupt one, and a lost entry is asked again.
    """

    FORMAT = 1

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        """The file of ``key``."""
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValueError(f"not a SHA-256 hex key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatReply | None:
        """The cached reply of ``key``, or ``None`` (absent or unreadable)."""
        try:
            doc = json.loads(self.path(key).read_bytes())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        if (not isinstance(doc, dict) or doc.get("format") != self.FORMAT
                or doc.get("key") != key or not isinstance(doc.get("content"), str)):
            return None
        finish = doc.get("finish_reason")
        return ChatReply(content=doc["content"], finish_reason=finish if isinstance(finish, str)
                         else None)

    def put(self, key: str, request: Mapping[str, Any], reply: ChatReply) -> None:
        """Store ``reply`` for ``key`` (atomically: temporary file, then rename)."""
        target = self.path(key)
        make_dirs(target.parent)
        doc = {"format": self.FORMAT, "key": key, "request": request,
               "content": reply.content, "finish_reason": reply.finish_reason,
               "created": datetime.now(UTC).isoformat(timespec="seconds")}
        tmp = target.with_name(f".{key[:12]}-{secrets.token_hex(8)}.tmp")
        fd = open_fd(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(doc, out, ensure_ascii=False)
            replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError, WriteOutsideError):
                remove_file(tmp)
            raise

    def keys(self) -> list[str]:
        """Every key with an entry file (readable or not), sorted."""
        if not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("??/*.json"))
