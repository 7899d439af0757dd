"""Response rankers, as the GoRecDial baselines: find the training context most like this one (its last two
utterances) and answer with the response that followed it. TF-IDF cosine (scikit-learn) or dense cosine
(sentence embeddings in a FAISS inner-product index)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.cases import ResponseCase
from synth.benchmarks.crs.torch_support import BENCH_HINT
from synth.errors import SynthError
from synth.tokens import words

KEY_UTTERANCES = 2
CHUNK = 1024


def context_key(case: ResponseCase) -> str:
    return " ".join(u.text for u in case.context[-KEY_UTTERANCES:])


def _training_pairs(data: TrainingData, name: str) -> tuple[list[str], list[str]]:
    if not data.responses:
        raise SynthError(f"'{data.label}' has no recommender responses for the {name} ranker")
    return [context_key(c) for c in data.responses], [c.reference for c in data.responses]


class TfidfRanker:
    name = "tfidf"
    trains = True

    def __init__(self, setup: Setup):
        self.vectorizer: Any = None
        self.matrix: Any = None
        self.responses: list[str] = []

    def fit(self, data: TrainingData) -> None:
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError:
            raise SynthError(BENCH_HINT) from None

        keys, self.responses = _training_pairs(data, self.name)
        self.vectorizer = TfidfVectorizer(tokenizer=words, lowercase=False, token_pattern=None, ngram_range=(1, 2),
                                          sublinear_tf=True)
        self.matrix = self.vectorizer.fit_transform(keys)

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]:
        best: list[int] = []
        for start in range(0, len(cases), CHUNK):
            queries = self.vectorizer.transform([context_key(c) for c in cases[start : start + CHUNK]])
            best += np.asarray((queries @ self.matrix.T).argmax(axis=1)).ravel().tolist()
        return [self.responses[i] for i in best]

    def state(self) -> dict[str, Any]:
        return {"vectorizer": self.vectorizer, "matrix": self.matrix, "responses": self.responses}

    def load_state(self, state: dict[str, Any]) -> None:
        self.vectorizer, self.matrix, self.responses = state["vectorizer"], state["matrix"], state["responses"]


class DenseRanker:
    name = "dense-ranker"
    trains = True

    def __init__(self, setup: Setup):
        self.encoder = setup.encoder()
        self.vectors = np.zeros((0, self.encoder.dim), dtype=np.float32)
        self.responses: list[str] = []

    def fit(self, data: TrainingData) -> None:
        keys, self.responses = _training_pairs(data, self.name)
        self.vectors = self.encoder.encode_documents(keys)

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]:
        import faiss

        index = faiss.IndexFlatIP(self.vectors.shape[1])
        index.add(self.vectors)
        _, found = index.search(self.encoder.encode_documents([context_key(c) for c in cases]), 1)
        return [self.responses[row] for row in found[:, 0]]

    def state(self) -> dict[str, Any]:
        return {"vectors": self.vectors, "responses": self.responses}

    def load_state(self, state: dict[str, Any]) -> None:
        self.vectors, self.responses = state["vectors"], state["responses"]
