"""The errors of :mod:`kalma`: one line that names the file, line or entry at fault, says
what is wrong and what to do (``hint``, when set, how); the CLI prints it without a
traceback."""

from __future__ import annotations

__all__ = ["KalmaError"]


class KalmaError(ValueError):
    """KaLMA generation, import, export or scoring that cannot be done as asked."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
