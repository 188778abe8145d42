"""The session fixtures of tiny real models, ``tiny_hf`` and ``exported``: see
:mod:`tests.scoring.models` for their API."""

from tests.scoring.models import exported, tiny_hf

__all__ = ["exported", "tiny_hf"]
