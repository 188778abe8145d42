"""Which definitions a command's numbers follow: ``--protocol kgbench`` (the default) or
``--protocol released``. One home for every scoring command (``evaluate``, ``kalma
score``, ``conner score``).

``kgbench``
    kgbench's documented definitions: every reply and every sample counts, an empty
    ratio is 0.0 with its support beside it, replies are read strictly (README,
    "Protocols").
``released``
    Every number as the paper's released code computes it on the same inputs, its
    quirks included (its reply parsing, which samples it drops, NaN where it divides
    0 by 0, its aggregation), so a number can be quoted next to the paper's tables.
    kgbench re-implements that code from reading it; it ships none of it.

Every output records the protocol it was computed under (:data:`PROTOCOL_KEY`). The
released code's NaN is written as JSON ``null`` (:func:`json_safe`): JSON has no NaN.
"""

from __future__ import annotations

import math
from typing import Any, Literal, cast, get_args

from scoring.errors import ScoringError

__all__ = ["DEFAULT_PROTOCOL", "PROTOCOLS", "PROTOCOL_KEY", "ProtocolName", "json_safe",
           "protocol_of"]

ProtocolName = Literal["kgbench", "released"]
"""A protocol's name (``typing.Protocol`` is another thing)."""
PROTOCOLS: tuple[ProtocolName, ...] = get_args(ProtocolName)
DEFAULT_PROTOCOL: ProtocolName = "kgbench"
PROTOCOL_KEY = "protocol"
"""The key under which every output document names its protocol."""


def protocol_of(name: str) -> ProtocolName:
    """The protocol called ``name`` (any case, surrounding spaces ignored). Raises
    :class:`ScoringError` naming the choices otherwise."""
    choice = name.strip().lower()
    if choice not in PROTOCOLS:
        raise ScoringError(f"unknown protocol {name!r}",
                           f"use --protocol with one of {', '.join(PROTOCOLS)}")
    return cast(ProtocolName, choice)


def json_safe(value: Any) -> Any:
    """``value`` with every NaN float (a released code's 0/0) replaced by ``None``, in
    nested dicts, lists and tuples, so that it is written as JSON ``null``."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value
