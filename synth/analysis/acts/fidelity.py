"""How close a dataset's dialogue acts are to a reference's: the Jensen-Shannon divergence (base 2: 0 the same,
1 disjoint) of the seeker's sub-level act shares, of the recommender's, and of the requests before the first
recommendation (0 / 1 / 2 / 3+), their sum (the fidelity divergence: lower is closer), each with a seeded
bootstrap interval over dialogues, and the words per utterance of both.

Pure functions over per-dialogue counts (`ActCounts`; `synth.analysis.acts.profile.act_counts` builds them from
tagged dialogues), so resampling is numpy work: a resample is a vector of how often each dialogue was drawn,
and its totals are one matrix product. (`scipy.stats.bootstrap`, which synth.analysis.intervals uses for means,
is not used here: it hands the statistic each resample's dialogues, and this statistic needs their summed act
counts, which the weight matrix gives for a chunk of resamples at once, two datasets resampled apart.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel

from synth.analysis.acts.taxonomy import ROLES, Role
from synth.data.dialogues import Unit

REQUEST_BINS = ("0", "1", "2", "3+")
RESAMPLES = 1000
CONFIDENCE = 0.95
CHUNK = 64  # resamples drawn at once: CHUNK x dialogues counts in memory
DIVERGENCES = ("seeker_acts", "recommender_acts", "requests_before_recommendation")


@dataclass
class ActCounts:
    """Per-dialogue counts of one dataset's tagged dialogues, row i for dialogue i (scripted openings left out)."""

    name: str
    unit: Unit  # what an utterance is: a speaker's turn (consecutive messages merged) or a message
    acts: dict[Role, np.ndarray]  # (dialogues, the role's sub-level codes): its utterances that carry each act
    utterances: dict[Role, np.ndarray]  # (dialogues,): the role's utterances
    words: dict[Role, np.ndarray]  # (dialogues,): the words of the role's utterances
    requests: np.ndarray  # (dialogues,): requests before the first recommendation; -1: no recommendation

    @property
    def dialogues(self) -> int:
        return len(self.requests)

    def request_bins(self) -> np.ndarray:
        """(dialogues, 4): 1 in the column of the dialogue's bin (0, 1, 2, 3+); a zero row without a
        recommendation."""
        binned = np.where(self.requests < 0, -1, np.minimum(self.requests, len(REQUEST_BINS) - 1))
        return (binned[:, None] == np.arange(len(REQUEST_BINS))).astype(np.int64)

    def mean_words(self) -> dict[str, float | None]:
        """Words per utterance of each role; None for a role with no utterance."""
        return {
            role: float(self.words[role].sum() / self.utterances[role].sum()) if self.utterances[role].sum() else None
            for role in ROLES
        }


class Interval(BaseModel):
    value: float | None  # None: a distribution is empty (no utterance of the role, or no recommendation)
    low: float | None  # the bootstrap percentile interval
    high: float | None


class Fidelity(BaseModel):
    """A dataset's act divergences from a reference (see the module's docstring)."""

    reference: str
    unit: Unit
    dialogues: int
    reference_dialogues: int
    seeker_acts: Interval
    recommender_acts: Interval
    requests_before_recommendation: Interval
    sum: Interval  # the fidelity divergence: the three summed, in each resample for its interval
    words: dict[str, float | None]  # role -> words per utterance
    reference_words: dict[str, float | None]
    resamples: int
    seed: int
    confidence: float = CONFIDENCE


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Jensen-Shannon divergence, base 2, between the vectors along the last axis, each first normalised to
    sum to 1 (counts or shares both do); NaN where either sums to 0. The square of scipy's distance."""
    from scipy.spatial.distance import jensenshannon

    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(jensenshannon(p, q, base=2, axis=-1) ** 2, 0.0, 1.0)


def divergences(reference: list[np.ndarray], other: list[np.ndarray]) -> np.ndarray:
    """(..., 3): the divergence of each of the three distributions (seeker acts, recommender acts, request
    bins), given as totals, e.g. from `totals`."""
    return np.stack([jensen_shannon(r, o) for r, o in zip(reference, other)], axis=-1)


def totals(counts: ActCounts, weights: np.ndarray | None = None) -> list[np.ndarray]:
    """The seeker's act totals, the recommender's and the request-bin totals of a dataset, each dialogue counted
    as often as its weight ((dialogues,) or (resamples, dialogues); None: once each)."""
    weights = np.ones(counts.dialogues) if weights is None else weights
    return [weights @ counts.acts["seeker"], weights @ counts.acts["recommender"], weights @ counts.request_bins()]


def resample_weights(dialogues: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """(size, dialogues): how often each dialogue is drawn in each of `size` resamples with replacement."""
    if not dialogues:
        return np.zeros((size, 0))
    drawn = rng.integers(0, dialogues, size=(size, dialogues)) + np.arange(size)[:, None] * dialogues
    return np.bincount(drawn.ravel(), minlength=size * dialogues).reshape(size, dialogues).astype(float)


def bootstrap(reference: ActCounts, other: ActCounts, *, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """(resamples, 3): the divergences of `resamples` pairs of resamples, the reference's dialogues and the
    other's drawn with replacement, independently of each other; the same seed gives the same draws."""
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)]
    found = []
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        drawn = [totals(c, resample_weights(c.dialogues, size, rng)) for c, rng in zip((reference, other), streams)]
        found.append(divergences(*drawn))
    return np.concatenate(found) if found else np.zeros((0, len(DIVERGENCES)))


def fidelity(reference: ActCounts, other: ActCounts, *, resamples: int = RESAMPLES, seed: int = 0) -> Fidelity:
    """The divergences of `other`'s acts from `reference`'s, their sum, each with its 95% bootstrap percentile
    interval over `resamples` resamples of both datasets' dialogues (seeded), and both datasets' words per
    utterance. Both must count the same unit (turns or messages)."""
    if reference.unit != other.unit:
        raise ValueError(f"{reference.name} counts {reference.unit}s and {other.name} {other.unit}s: count both alike")
    point = divergences(totals(reference), totals(other))
    drawn = bootstrap(reference, other, resamples=resamples, seed=seed)
    values = np.append(point, point.sum())
    samples = np.column_stack([drawn, drawn.sum(axis=1)])
    intervals = [_interval(value, samples[:, column]) for column, value in enumerate(values)]
    return Fidelity(
        reference=reference.name,
        unit=other.unit,
        dialogues=other.dialogues,
        reference_dialogues=reference.dialogues,
        **dict(zip([*DIVERGENCES, "sum"], intervals)),
        words=other.mean_words(),
        reference_words=reference.mean_words(),
        resamples=resamples,
        seed=seed,
    )


def _interval(value: float, samples: np.ndarray) -> Interval:
    kept = samples[~np.isnan(samples)]
    if np.isnan(value) or not len(kept):
        return Interval(value=None if np.isnan(value) else float(value), low=None, high=None)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(kept, [tail, 100 - tail])
    return Interval(value=float(value), low=float(low), high=float(high))
