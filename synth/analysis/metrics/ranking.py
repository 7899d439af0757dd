"""Ranking metrics over the 1-based rank of the target item (None: not in the ranked list)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def rank_of(target: str, ranked: Sequence[str]) -> int | None:
    """1-based position of `target` in `ranked`, or None."""
    try:
        return ranked.index(target) + 1
    except ValueError:
        return None


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of cases whose target is in the top k (one relevant item per case)."""
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr(ranks: Sequence[int | None], cutoff: int | None = None) -> float:
    """Mean reciprocal rank; a target missing, or ranked below `cutoff`, counts 0."""
    if not ranks:
        return 0.0
    return sum(1.0 / r for r in ranks if r is not None and (cutoff is None or r <= cutoff)) / len(ranks)


def ndcg_at(ranks: Sequence[int | None], k: int) -> float:
    """Mean NDCG@k with one relevant item per case: 1 / log2(rank + 1) within the top k, else 0 (the ideal
    DCG is 1)."""
    if not ranks:
        return 0.0
    return sum(1.0 / math.log2(r + 1) for r in ranks if r is not None and r <= k) / len(ranks)
