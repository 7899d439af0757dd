"""Score one baseline on one test set's cases with the metrics of `synth/analysis/metrics`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synth.analysis.metrics.generation import bleu, mean_token_f1, rouge
from synth.analysis.metrics.ranking import mrr, ndcg_at, recall_at
from synth.analysis.metrics.text import crslab_distinct, distinct_n
from synth.benchmarks.crs.baselines.base import Recommender, Responder
from synth.benchmarks.crs.cases import RecommendationCase, ResponseCase
from synth.benchmarks.crs.items import ItemSpace
from synth.progress import track
from synth.tokens import words

BATCH = 256
CUTOFF = 50  # MRR and NDCG cutoff
RECOMMENDATION_METRICS = ("recall@1", "recall@10", "recall@50", "mrr@50", "ndcg@50")
RESPONSE_METRICS = ("dist-1", "dist-2", "dist-3", "dist-4", "bleu-2", "bleu-4", "rouge-1", "rouge-2", "rouge-l", "f1")
CRSLAB_METRICS = ("crslab-dist@1", "crslab-dist@2", "crslab-dist@3", "crslab-dist@4")


def target_rank(scores: np.ndarray, target: int, excluded: Sequence[int] = ()) -> int | None:
    """1-based rank of `target` in one score row (excluded items removed); ties go to the lower row, as a
    stable sort would; None when the target is excluded or unranked (-inf)."""
    value = scores[target]
    if value == -np.inf or target in excluded:
        return None
    above = scores > value
    tied_before = scores[:target] == value
    if excluded:
        rows = np.asarray(excluded)
        above[rows] = False
        tied_before[rows[rows < target]] = False
    return int(above.sum() + tied_before.sum()) + 1


def recommendation_metrics(ranks: Sequence[int | None]) -> dict[str, float]:
    return {
        "recall@1": recall_at(ranks, 1),
        "recall@10": recall_at(ranks, 10),
        "recall@50": recall_at(ranks, 50),
        "mrr@50": mrr(ranks, CUTOFF),
        "ndcg@50": ndcg_at(ranks, CUTOFF),
    }


def score_recommender(
    model: Recommender, cases: Sequence[RecommendationCase], space: ItemSpace, *, exclude_mentioned: bool,
    description: str, progress: bool,
) -> dict[str, float]:
    """Recall@1/10/50, MRR@50 and NDCG@50 over the cases, ranking the whole item space."""
    return recommendation_metrics(target_ranks(model, cases, space, exclude_mentioned=exclude_mentioned,
                                               description=description, progress=progress))


def target_ranks(
    model: Recommender, cases: Sequence[RecommendationCase], space: ItemSpace, *, exclude_mentioned: bool,
    description: str, progress: bool,
) -> list[int | None]:
    """Each case's target rank in the model's ranking of the whole item space."""
    size = getattr(model, "batch_size", BATCH) or max(len(cases), 1)
    ranks: list[int | None] = []
    starts = range(0, len(cases), size)
    for start in track(starts, description, progress and len(starts) > 1):
        batch = cases[start : start + size]
        scores = model.score_batch(batch)
        for row, case in zip(scores, batch):
            excluded = [space.row(i) for i in case.mentioned] if exclude_mentioned else []
            ranks.append(target_rank(row, space.row(case.target), excluded))
    return ranks


def response_metrics(hypotheses: Sequence[str], references: Sequence[str], *, crslab_compat: bool = False) -> dict[str, float]:
    """Dist-1..4 over the hypotheses' words, corpus BLEU-2/4, mean ROUGE-1/2/L F and token F1; with
    `crslab_compat`, also CRSLab's character-n-gram "dist@n" under its own names."""
    metrics = distinct_metrics(hypotheses, crslab_compat=crslab_compat)
    metrics.update({"bleu-2": bleu(hypotheses, references, 2), "bleu-4": bleu(hypotheses, references, 4)})
    scores = rouge(hypotheses, references)
    metrics.update({"rouge-1": scores["rouge1"], "rouge-2": scores["rouge2"], "rouge-l": scores["rougeL"]})
    metrics["f1"] = mean_token_f1(hypotheses, references)
    return metrics


def distinct_metrics(texts: Sequence[str], *, crslab_compat: bool = False) -> dict[str, float]:
    """Dist-1..4 of responses (a model's, or a test set's own as the yardstick); with `crslab_compat`, also
    CRSLab's character variant under its own names."""
    tokens = [words(t) for t in texts]
    metrics = {f"dist-{n}": distinct_n(tokens, n) for n in range(1, 5)}
    if crslab_compat:
        metrics.update({f"crslab-dist@{n}": crslab_distinct(texts, n) for n in range(1, 5)})
    return metrics


def score_responder(
    model: Responder, cases: Sequence[ResponseCase], *, crslab_compat: bool
) -> tuple[dict[str, float], list[str]]:
    answers = model.respond(cases)
    return response_metrics(answers, [c.reference for c in cases], crslab_compat=crslab_compat), answers
