"""Popularity: items ranked by how often recommenders mentioned them in the training cases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.cases import RecommendationCase


def target_counts(data: TrainingData, setup: Setup) -> np.ndarray:
    """How many training cases have each item of the space as their target."""
    counts = np.zeros(len(setup.space), dtype=np.float32)
    for case in data.recommendation:
        counts[setup.space.row(case.target)] += 1
    return counts


class Popularity:
    name = "popularity"
    trains = True

    def __init__(self, setup: Setup):
        self.setup = setup
        self.counts = np.zeros(len(setup.space), dtype=np.float32)

    def fit(self, data: TrainingData) -> None:
        self.counts = target_counts(data, self.setup)

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        return np.tile(self.counts, (len(cases), 1))

    def state(self) -> dict[str, Any]:
        return {"counts": self.counts}

    def load_state(self, state: dict[str, Any]) -> None:
        self.counts = state["counts"]
