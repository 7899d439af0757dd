"""The retriever registry: each name a run may ask for maps to the function that builds it over a catalog
(dense and hybrid import FAISS and sentence-transformers only when chosen)."""

from __future__ import annotations

from collections.abc import Callable

from synth.records import Item
from synth.retrievers.base import Retriever
from synth.retrievers.bm25 import BM25Retriever


def _bm25(catalog: dict[str, Item], embedding_model: str | None) -> Retriever:
    return BM25Retriever(catalog)


def _dense(catalog: dict[str, Item], embedding_model: str | None) -> Retriever:
    from synth.retrievers.dense import DenseRetriever
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL, SentenceEncoder

    return DenseRetriever(catalog, SentenceEncoder(embedding_model or DEFAULT_EMBEDDING_MODEL))


def _hybrid(catalog: dict[str, Item], embedding_model: str | None) -> Retriever:
    from synth.retrievers.hybrid import HybridRetriever

    return HybridRetriever([_bm25(catalog, embedding_model), _dense(catalog, embedding_model)])


# BM25, dense (FAISS + sentence-transformers), hybrid (reciprocal rank fusion of the two).
RETRIEVERS: dict[str, Callable[[dict[str, Item], str | None], Retriever]] = {
    "bm25": _bm25,
    "dense": _dense,
    "hybrid": _hybrid,
}


def build_retriever(name: str, catalog: dict[str, Item], *, embedding_model: str | None = None) -> Retriever:
    """The retriever `name` over `catalog`; dense and hybrid encode with `embedding_model`."""
    if name not in RETRIEVERS:
        raise ValueError(f"unknown retriever '{name}': choose one of {', '.join(RETRIEVERS)}")
    return RETRIEVERS[name](catalog, embedding_model)
