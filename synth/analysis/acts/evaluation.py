"""Dialogue-grouped cross-validation of the taggers: out-of-fold predictions, then per-label and macro F1
and exact-set accuracy at the sub and the top level."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel

from synth.analysis.acts.tagger import C, fit_tagger, label_matrix
from synth.analysis.acts.taxonomy import TAXONOMY, Role, top_labels, top_of


class LabelScore(BaseModel):
    code: str
    name: str
    precision: float
    recall: float
    f1: float
    support: int  # gold utterances with the label


class LevelScores(BaseModel):
    labels: list[LabelScore]
    macro_f1: float  # mean over the labels with support
    micro_f1: float
    accuracy: float  # share of utterances whose predicted label set is exactly the gold one


class RoleEvaluation(BaseModel):
    role: Role
    utterances: int
    dialogues: int
    folds: int
    sub: LevelScores
    top: LevelScores


def dialogue_folds(groups: Sequence[str], k: int, seed: int) -> np.ndarray:
    """The fold (0..k-1) of each sample; all samples of one dialogue share a fold. Seeded."""
    dialogues = sorted(set(groups))
    if len(dialogues) < k:
        raise ValueError(f"{k}-fold cross-validation needs at least {k} dialogues, got {len(dialogues)}")
    order = np.random.default_rng(seed).permutation(len(dialogues))
    fold_of = {dialogues[i]: position % k for position, i in enumerate(order)}
    return np.array([fold_of[g] for g in groups])


def out_of_fold(
    role: Role,
    features: np.ndarray,
    labels: Sequence[Sequence[str]],
    folds: np.ndarray,
    *,
    c: float = C,
    seed: int = 0,
    fitted: Callable[[], object] | None = None,
) -> np.ndarray:
    """Each sample's label probabilities from the tagger trained on the other folds; `fitted` is called after
    each fold's fit."""
    probabilities = np.zeros((len(features), len(TAXONOMY[role])))
    for fold in np.unique(folds):
        held = folds == fold
        tagger = fit_tagger(role, features[~held], [labels[i] for i in np.flatnonzero(~held)], c=c, seed=seed)
        probabilities[held] = tagger.probabilities(features[held])
        if fitted is not None:
            fitted()
    return probabilities


def level_scores(gold: np.ndarray, predicted: np.ndarray, codes: list[str], names: dict[str, str]) -> LevelScores:
    """Scores of 0/1 prediction rows against gold rows over the label columns `codes`."""
    from sklearn.metrics import precision_recall_fscore_support

    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, average=None, zero_division=0)
    micro = precision_recall_fscore_support(gold, predicted, average="micro", zero_division=0)[2]
    rows = [
        LabelScore(code=c, name=names[c], precision=p, recall=r, f1=f, support=int(s))
        for c, p, r, f, s in zip(codes, precision, recall, f1, support)
    ]
    supported = [row.f1 for row in rows if row.support]
    return LevelScores(
        labels=rows,
        macro_f1=float(np.mean(supported)) if supported else 0.0,
        micro_f1=float(micro),
        accuracy=float(np.mean((gold == predicted).all(axis=1))) if len(gold) else 0.0,
    )


def evaluate_role(
    role: Role,
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str]],
    *,
    dialogues: int,
    folds: int,
) -> RoleEvaluation:
    """Sub- and top-level scores of predicted sub-level label sets against the gold ones."""
    taxonomy = TAXONOMY[role]
    subs = list(taxonomy)
    tops = top_labels(role)
    sub_names = {code: name for code, (name, _) in taxonomy.items()}
    top_names = {code: code for code in tops}

    def tops_of(rows: Sequence[Sequence[str]]) -> np.ndarray:
        return label_matrix([top_of(role, list(row)) for row in rows], tops)

    return RoleEvaluation(
        role=role,
        utterances=len(gold),
        dialogues=dialogues,
        folds=folds,
        sub=level_scores(label_matrix(gold, subs), label_matrix(predicted, subs), subs, sub_names),
        top=level_scores(tops_of(gold), tops_of(predicted), tops, top_names),
    )
