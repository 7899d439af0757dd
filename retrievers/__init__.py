"""Retrievers: pick the candidate items a recommender may suggest, from the dialogue so far.

`dense` (FAISS + sentence-transformers) lives in `synth.retrievers.dense` and needs the `dense` extra;
LangChain adapters live in `synth.retrievers.langchain` (the `langchain` extra)."""

from synth.retrievers.base import Retriever
from synth.retrievers.bm25 import BM25Retriever
from synth.retrievers.factory import RETRIEVERS, build_retriever
from synth.retrievers.hybrid import HybridRetriever

__all__ = ["BM25Retriever", "HybridRetriever", "RETRIEVERS", "Retriever", "build_retriever"]
