"""The one retriever interface: rank a per-dialogue pool of items against a query."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

import numpy as np

from synth.records import ScoredItem


class Retriever(Protocol):
    name: str  # what the run records, e.g. "bm25" or "dense(sentence-transformers/all-MiniLM-L6-v2)"

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        """The k items of `pool` (item ids) most similar to `query`, most similar first."""
        ...


def pool_mask(rows: Mapping[str, int], pool: Collection[str]) -> np.ndarray:
    """Which catalog rows (`rows`: item id -> row, rows 0..n-1) the pool holds. A pool of most of the catalog (a
    dialogue's pool is the catalog less a few items) is found from the ids it lacks, a set difference in C, not a
    Python loop over thousands of ids on every search."""
    if len(pool) * 2 > len(rows):
        mask = np.ones(len(rows), dtype=bool)
        mask[[rows[item_id] for item_id in rows.keys() - pool]] = False
    else:
        mask = np.zeros(len(rows), dtype=bool)
        mask[[rows[item_id] for item_id in pool if item_id in rows]] = True
    return mask
