"""BM25 and dense recommenders: the dialogue's latest words against each item's knowledge text (title,
year, genres, tags, a critic quote), with synth's own retrievers' scoring. Neither reads the training set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synth.benchmarks.crs.baselines.base import CONTEXT_WORDS, Setup, Untrained
from synth.benchmarks.crs.cases import RecommendationCase
from synth.retrievers.text import item_text


class BM25Recommender(Untrained):
    name = "bm25"

    def __init__(self, setup: Setup):
        from synth.retrievers.bm25 import BM25Retriever

        self.retriever = BM25Retriever(setup.space.items)

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        return np.stack([self.retriever.scores(case.text(CONTEXT_WORDS)) for case in cases])


class DenseRecommender(Untrained):
    """Cosine of sentence embeddings (all-MiniLM-L6-v2 by default) of the context and of each item's text."""

    name = "dense"

    def __init__(self, setup: Setup):
        self.encoder = setup.encoder()
        self.items = self.encoder.encode_documents([item_text(item) for item in setup.space.items.values()])

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        # contexts go through the embedding cache: `neural` embeds the same texts
        queries = self.encoder.encode_documents([case.text(CONTEXT_WORDS) for case in cases])
        return queries @ self.items.T
