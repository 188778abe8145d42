"""The session fixtures of real models, ``tiny_hf``, ``exported`` and ``minilm``: see
:mod:`tests.scoring.models` for their API."""

from tests.scoring.models import exported, minilm, tiny_hf

__all__ = ["exported", "minilm", "tiny_hf"]
