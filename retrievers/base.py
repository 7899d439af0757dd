"""The one retriever interface: rank a per-dialogue pool of items against a query."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from synth.records import ScoredItem


class Retriever(Protocol):
    name: str  # what the run records, e.g. "bm25" or "dense(sentence-transformers/all-MiniLM-L6-v2)"

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        """The k items of `pool` (item ids) most similar to `query`, most similar first."""
        ...
