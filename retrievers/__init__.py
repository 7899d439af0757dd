"""Retrievers: pick the candidate items a recommender may suggest, from the dialogue so far."""

from synth.retrievers.base import Retriever
from synth.retrievers.bm25 import BM25Retriever

__all__ = ["BM25Retriever", "Retriever"]
