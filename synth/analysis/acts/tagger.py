"""One multi-label tagger per role: a one-vs-rest logistic regression (scikit-learn) over the utterance
features; a label is predicted from probability 0.6, and the most probable one when none reaches it.
C = 3 and 0.6 scored best of C in {1, 3} and thresholds {0.5, 0.6, 0.7, 0.8} in the IARD cross-validation."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synth.analysis.acts.taxonomy import Role, sub_labels

THRESHOLD = 0.6
C = 3.0  # inverse regularisation strength


@dataclass
class RoleTagger:
    role: Role
    labels: list[str]
    classifier: object  # a fitted sklearn OneVsRestClassifier

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(n, len(labels)): each label's probability."""
        if not len(features):
            return np.zeros((0, len(self.labels)))
        return np.asarray(self.classifier.predict_proba(features))

    def decide(self, probabilities: np.ndarray) -> list[list[str]]:
        """The labels of each row: those at or above the threshold, else the most probable one."""
        return [
            [self.labels[i] for i in np.flatnonzero(row >= THRESHOLD)] or [self.labels[int(row.argmax())]]
            for row in probabilities
        ]


def label_matrix(labels: Sequence[Sequence[str]], vocabulary: list[str]) -> np.ndarray:
    """(n, len(vocabulary)) 0/1 indicator rows."""
    index = {code: i for i, code in enumerate(vocabulary)}
    matrix = np.zeros((len(labels), len(vocabulary)), dtype=np.int64)
    for row, codes in enumerate(labels):
        for code in codes:
            matrix[row, index[code]] = 1
    return matrix


def fit_tagger(role: Role, features: np.ndarray, labels: Sequence[Sequence[str]], *, c: float = C, seed: int = 0) -> RoleTagger:
    """Train a role's tagger; labels are sub-level codes of that role."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    vocabulary = sub_labels(role)
    classifier = OneVsRestClassifier(
        LogisticRegression(C=c, class_weight="balanced", max_iter=2000, random_state=seed), n_jobs=-1
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Label .* is present in all training examples")
        warnings.filterwarnings("ignore", message="Label not .* is present in all training examples")
        classifier.fit(features, label_matrix(labels, vocabulary))
    return RoleTagger(role, vocabulary, classifier)
