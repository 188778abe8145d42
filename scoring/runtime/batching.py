"""Batches by token budget: what one onnxruntime call sees.

A transformer's cost grows with batch size × padded length, and dynamic padding pads a
batch to its longest member, so the runtime sorts inputs by length (neighbours have
nearly the same length, little padding is wasted) and fills each batch up to a token
budget (``batch_size × padded_length ≤ batch_tokens``) and a maximum batch size. Longest
first: the first batch is the most expensive one, so a budget that does not fit in
memory fails at once rather than at the end of a long run. An input longer than the
budget alone gets a batch of its own (it still has to be scored). Callers scatter each
batch's results back with :func:`in_input_order`.

Pure functions: no model, no array library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["DEFAULT_MAX_BATCH_SIZE", "in_input_order", "plan_batches"]

T = TypeVar("T")

DEFAULT_MAX_BATCH_SIZE = 256
"""Enough to keep a GPU busy on short inputs (256 × 64 tokens = the default 16,384-token
budget) without one batch's logits and activations growing without bound."""


def plan_batches(lengths: Sequence[int], *, batch_tokens: int,
                 max_batch_size: int = DEFAULT_MAX_BATCH_SIZE) -> list[list[int]]:
    """Indices into ``lengths``, grouped into batches: sorted longest first (ties in
    input order, so the plan is deterministic), each batch as many inputs as keep
    ``len(batch) × longest_in_batch ≤ batch_tokens`` and ``len(batch) ≤ max_batch_size``;
    an input longer than ``batch_tokens`` gets a batch of its own.

    >>> plan_batches([3, 9, 4, 9], batch_tokens=20)
    [[1, 3], [2, 0]]
    """
    if batch_tokens < 1 or max_batch_size < 1:
        raise ValueError(f"batch_tokens and max_batch_size must be positive, "
                         f"not {batch_tokens} and {max_batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    padded = 0
    for i in order:
        # Sorted longest first, so the batch's padded length is its first member's.
        if current and ((len(current) + 1) * padded > batch_tokens
                        or len(current) == max_batch_size):
            batches.append(current)
            current = []
        if not current:
            padded = max(lengths[i], 1)
        current.append(i)
    if current:
        batches.append(current)
    return batches


def in_input_order(batches: Sequence[Sequence[int]], results: Sequence[Sequence[T]]) -> list[T]:
    """Each batch's results (one per index, in the batch's order) put back in the order
    of the inputs the plan was made from."""
    n = sum(len(b) for b in batches)
    missing = object()
    slots: list[object] = [missing] * n
    for batch, batch_results in zip(batches, results, strict=True):
        if len(batch) != len(batch_results):
            raise ValueError(f"a batch of {len(batch)} inputs returned "
                             f"{len(batch_results)} results")
        for i, result in zip(batch, batch_results, strict=True):
            slots[i] = result
    if any(s is missing for s in slots):
        raise ValueError("the batches do not cover every input exactly once")
    return slots  # type: ignore[return-value]
