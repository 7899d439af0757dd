"""Hybrid retrieval: reciprocal rank fusion (Cormack et al., 2009) of several retrievers' rankings."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence

from synth.records import ScoredItem
from synth.retrievers.base import Retriever


class HybridRetriever:
    """score(item) = sum over retrievers of 1 / (rrf_k + rank), rank counted from 1 in each top-`depth`."""

    def __init__(self, retrievers: Sequence[Retriever], *, depth: int = 100, rrf_k: int = 60):
        if not retrievers:
            raise ValueError("a hybrid retriever needs at least one retriever")
        self.retrievers, self.depth, self.rrf_k = list(retrievers), depth, rrf_k
        self.name = "hybrid(" + "+".join(r.name for r in self.retrievers) + ")"

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        if k < 1:
            return []
        fused: dict[str, float] = defaultdict(float)
        for retriever in self.retrievers:
            for rank, found in enumerate(retriever.search(query, pool, max(k, self.depth)), start=1):
                fused[found.item_id] += 1.0 / (self.rrf_k + rank)
        ranked = sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))
        return [ScoredItem(item_id=item_id, score=score) for item_id, score in ranked[:k]]
