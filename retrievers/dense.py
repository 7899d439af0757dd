"""Dense retrieval: a FAISS inner-product index over unit-length sentence embeddings of the items.

Inner product of unit vectors is cosine similarity, so FAISS returns the largest score, the most similar
item, first. (PEARL's released code sorted L2 distances as if larger were closer, and so picked the least
similar items; tests/unit/test_retrievers.py guards against that for every retriever.)"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from synth.errors import SynthError
from synth.records import Item, ScoredItem
from synth.retrievers.base import pool_mask
from synth.retrievers.embeddings import DENSE_EXTRA_HINT, SentenceEncoder
from synth.retrievers.text import item_text

try:
    import faiss
except ImportError:  # pragma: no cover - depends on the installed extras
    faiss = None


def query_tail(query: str, max_words: int | None) -> str:
    """The last `max_words` words: the encoder truncates from the end, and the latest turns matter most."""
    if max_words is None:
        return query
    words = query.split()
    return " ".join(words[-max_words:])


class DenseRetriever:
    """One index per catalog; each query is restricted to the dialogue's pool with an ID bitmap."""

    def __init__(self, catalog: dict[str, Item], encoder: SentenceEncoder, *, query_max_words: int | None = 128):
        if faiss is None:
            raise SynthError(DENSE_EXTRA_HINT)
        self.encoder, self.query_max_words = encoder, query_max_words
        self.name = f"dense({encoder.name})"
        self._ids = list(catalog)
        self._row = {item_id: row for row, item_id in enumerate(self._ids)}
        self._index = faiss.IndexFlatIP(encoder.dim)
        self._index.add(encoder.encode_documents([item_text(catalog[i]) for i in self._ids]))

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        mask = pool_mask(self._row, pool)
        held = int(mask.sum())
        k = min(k, held)
        if k < 1:
            return []
        vector = self.encoder.encode_queries([query_tail(query, self.query_max_words)])
        params = None
        if held < len(self._ids):
            bitmap = np.packbits(mask, bitorder="little")
            params = faiss.SearchParameters(sel=faiss.IDSelectorBitmap(len(self._ids), faiss.swig_ptr(bitmap)))
        scores, found = self._index.search(vector, k, params=params)
        return [
            ScoredItem(item_id=self._ids[row], score=float(score))
            for score, row in zip(scores[0], found[0])
            if row >= 0
        ]
