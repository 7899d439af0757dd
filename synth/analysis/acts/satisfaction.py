"""Satisfaction: IARD splits its dialogues into satisfied ones (the seeker accepted a recommendation) and
unsatisfied ones. A logistic regression over a dialogue's act profile (the taggers' probabilities) gives
each dialogue a score, the probability that its seeker ends satisfied."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synth.analysis.acts.taxonomy import TAXONOMY, Role

ActRows = Sequence[tuple[Role, np.ndarray]]  # each utterance's role and its sub-level act probabilities


def satisfaction_features(acts: ActRows) -> np.ndarray:
    """[mean, max and last of the seeker's act probabilities, mean of the recommender's]."""
    seeker = np.array([p for role, p in acts if role == "seeker"]).reshape(-1, len(TAXONOMY["seeker"]))
    recommender = np.array([p for role, p in acts if role == "recommender"]).reshape(-1, len(TAXONOMY["recommender"]))

    def mean(rows: np.ndarray) -> np.ndarray:
        return rows.mean(axis=0) if len(rows) else np.zeros(rows.shape[1])

    last = seeker[-1] if len(seeker) else np.zeros(seeker.shape[1])
    peak = seeker.max(axis=0) if len(seeker) else np.zeros(seeker.shape[1])
    return np.concatenate([mean(seeker), peak, last, mean(recommender)])


@dataclass
class SatisfactionModel:
    classifier: object  # a fitted sklearn pipeline: scaler, logistic regression

    def scores(self, features: np.ndarray) -> np.ndarray:
        """P(satisfied) of each row."""
        if not len(features):
            return np.zeros(0)
        return np.asarray(self.classifier.predict_proba(features))[:, 1]


def fit_satisfaction(features: np.ndarray, satisfied: Sequence[bool], *, seed: int = 0) -> SatisfactionModel:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    classifier = make_pipeline(
        StandardScaler(), LogisticRegression(C=0.1, class_weight="balanced", max_iter=2000, random_state=seed)
    )
    classifier.fit(features, np.asarray(satisfied, dtype=int))
    return SatisfactionModel(classifier)
