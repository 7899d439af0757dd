"""BM25 (rank-bm25) over item texts: one index per catalog, filtered to the dialogue's pool per query."""

from __future__ import annotations

from collections.abc import Collection

from rank_bm25 import BM25Okapi

from synth.records import Item, ScoredItem
from synth.retrievers.text import item_text, tokenize


class BM25Retriever:
    name = "bm25"

    def __init__(self, catalog: dict[str, Item]):
        self._ids = list(catalog)
        self._row = {item_id: row for row, item_id in enumerate(self._ids)}
        self._bm25 = BM25Okapi([tokenize(item_text(catalog[i])) or ["_"] for i in self._ids])

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        rows = [self._row[item_id] for item_id in pool]
        if not rows or k < 1:
            return []
        scores = self._bm25.get_batch_scores(tokenize(query), rows)
        ranked = sorted(zip(rows, scores), key=lambda pair: (-pair[1], self._ids[pair[0]]))
        return [ScoredItem(item_id=self._ids[row], score=float(score)) for row, score in ranked[:k]]
