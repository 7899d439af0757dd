"""Build the retriever a run asks for by name."""

from __future__ import annotations

from synth.records import Item
from synth.retrievers.base import Retriever
from synth.retrievers.bm25 import BM25Retriever

RETRIEVER_NAMES: tuple[str, ...] = ("bm25", "dense", "hybrid")


def build_retriever(name: str, catalog: dict[str, Item], *, embedding_model: str | None = None) -> Retriever:
    """bm25, dense (FAISS + sentence-transformers) or hybrid (reciprocal rank fusion of the two)."""
    if name == "bm25":
        return BM25Retriever(catalog)
    if name not in ("dense", "hybrid"):
        raise ValueError(f"unknown retriever '{name}': choose one of {', '.join(RETRIEVER_NAMES)}")
    from synth.retrievers.dense import DenseRetriever
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL, SentenceEncoder

    dense = DenseRetriever(catalog, SentenceEncoder(embedding_model or DEFAULT_EMBEDDING_MODEL))
    if name == "dense":
        return dense
    from synth.retrievers.hybrid import HybridRetriever

    return HybridRetriever([BM25Retriever(catalog), dense])
