"""The measures of a memory test, as pure functions over the ranks the pinned items got
(1-based; None when the agent did not inject the item)."""

from __future__ import annotations

from collections.abc import Sequence


def recall_at_k(ranks: Sequence[int | None], k: int) -> float:
    """The share of pins whose item the agent injects within its first ``k`` (1.0 for no
    pins: nothing pinned is lost)."""
    if not ranks:
        return 1.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def reciprocal_rank(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def mean_reciprocal_rank(ranks: Sequence[int | None]) -> float:
    """MRR: the mean of 1/rank, 0 for an item not injected (1.0 for no pins)."""
    if not ranks:
        return 1.0
    return sum(reciprocal_rank(r) for r in ranks) / len(ranks)
