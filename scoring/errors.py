"""The errors of :mod:`scoring`: every message names the file, line or record at fault,
says what is wrong and what to do, and the CLI prints it as one line (no traceback)."""

from __future__ import annotations

__all__ = ["ModelDirError", "ScoringError"]


class ScoringError(ValueError):
    """Scoring or evaluation that cannot be done as asked; ``str(error)`` says what is
    wrong and ``hint`` (when set) what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ModelDirError(ScoringError):
    """A model directory that is not what the command needs (no ``model.onnx``, no
    tokenizer, a card of another format version, an ONNX graph that is not a text
    model's, a Hugging Face checkpoint that cannot be read)."""
