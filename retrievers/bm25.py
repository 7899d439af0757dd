"""BM25 over item texts: rank-bm25 fits the statistics (idf, lengths), and its Okapi scores are laid out
once as a sparse item x term matrix, so a query costs a few sparse columns instead of a Python loop over
the catalog. One index per catalog, filtered to the dialogue's pool per query."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

import numpy as np
from rank_bm25 import BM25Okapi
from scipy.sparse import csc_matrix

from synth.records import Item, ScoredItem
from synth.retrievers.base import pool_mask
from synth.retrievers.text import item_text
from synth.tokens import search_terms


def okapi_weights(bm25: BM25Okapi) -> tuple[csc_matrix, dict[str, int]]:
    """weight[d, t] = idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)): BM25Okapi's per-term score."""
    vocabulary = {term: column for column, term in enumerate(bm25.idf)}
    rows, columns, values = [], [], []
    for row, freqs in enumerate(bm25.doc_freqs):
        norm = bm25.k1 * (1 - bm25.b + bm25.b * bm25.doc_len[row] / bm25.avgdl)
        for term, tf in freqs.items():
            rows.append(row)
            columns.append(vocabulary[term])
            values.append(bm25.idf[term] * tf * (bm25.k1 + 1) / (tf + norm))
    shape = (len(bm25.doc_freqs), len(vocabulary))
    return csc_matrix((np.array(values, dtype=np.float64), (rows, columns)), shape=shape), vocabulary


class BM25Retriever:
    name = "bm25"

    def __init__(self, catalog: dict[str, Item]):
        self._ids = list(catalog)
        self._row = {item_id: row for row, item_id in enumerate(self._ids)}
        self.bm25 = BM25Okapi([search_terms(item_text(catalog[i])) or ["_"] for i in self._ids])
        self._weights, self._vocabulary = okapi_weights(self.bm25)

    def scores(self, query: str) -> np.ndarray:
        """BM25Okapi.get_scores(search_terms(query)) for every catalog item, in catalog order."""
        counts = Counter(t for t in search_terms(query) if t in self._vocabulary)
        if not counts:
            return np.zeros(len(self._ids))
        columns = [self._vocabulary[t] for t in counts]
        return self._weights[:, columns] @ np.array([counts[t] for t in counts], dtype=np.float64)

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        rows = np.flatnonzero(pool_mask(self._row, pool))
        if rows.size == 0 or k < 1:
            return []
        pool_scores = self.scores(query)[rows]
        if k < rows.size:  # keep every item tied with the k-th so that ties break by id, not by chance
            kth = np.partition(pool_scores, rows.size - k)[rows.size - k]
            keep = pool_scores >= kth
            rows, pool_scores = rows[keep], pool_scores[keep]
        ranked = sorted(zip(pool_scores.tolist(), rows.tolist()), key=lambda pair: (-pair[0], self._ids[pair[1]]))
        return [ScoredItem(item_id=self._ids[row], score=score) for score, row in ranked[:k]]
