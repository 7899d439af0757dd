"""Item co-occurrence: P(item | a context item) from the training dialogues that mention both, summed over
the context's items; popularity breaks ties (and is all there is for a context that names no item)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.popularity import target_counts
from synth.benchmarks.crs.cases import RecommendationCase

TIE_BREAK = 1e-3  # popularity (scaled to 0..1) times this is below any co-occurrence score


class CoOccurrence:
    name = "cooccurrence"
    trains = True

    def __init__(self, setup: Setup):
        self.setup = setup
        size = len(setup.space)
        self.conditional = csr_matrix((size, size), dtype=np.float32)
        self.prior = np.zeros(size, dtype=np.float32)

    def fit(self, data: TrainingData) -> None:
        space, size = self.setup.space, len(self.setup.space)
        rows, columns = [], []
        dialogues_with = np.zeros(size, dtype=np.float32)
        for conversation in data.conversations:
            items = sorted({space.row(i) for u in conversation.utterances for i in u.items})
            dialogues_with[items] += 1
            for a, b in permutations(items, 2):
                rows.append(a)
                columns.append(b)
        together = csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)), shape=(size, size))
        together.sum_duplicates()
        scale = np.divide(1.0, dialogues_with, out=np.zeros_like(dialogues_with), where=dialogues_with > 0)
        self.conditional = csr_matrix(together.multiply(scale[:, None]))
        counts = target_counts(data, self.setup)
        self.prior = TIE_BREAK * counts / counts.max() if counts.max() > 0 else counts

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        space = self.setup.space
        rows = [r for r, case in enumerate(cases) for _ in case.mentioned]
        columns = [space.row(i) for case in cases for i in case.mentioned]
        context = csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)), shape=(len(cases), len(space)))
        return np.asarray((context @ self.conditional).todense()) + self.prior

    def state(self) -> dict[str, Any]:
        return {"conditional": self.conditional, "prior": self.prior}

    def load_state(self, state: dict[str, Any]) -> None:
        self.conditional, self.prior = state["conditional"], state["prior"]
