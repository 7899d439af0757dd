"""95% bootstrap percentile intervals of a mean (scipy.stats.bootstrap, seeded), so that a gain and its
absence are both readable in the benchmarks' tables (`synth evaluate`, the GoRecDial suite)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.stats import bootstrap

RESAMPLES = 1000


def mean_interval(values: Iterable[float], seed: int = 0) -> list[float] | None:
    """[low, high] of the mean of `values`; None for no values, the value twice when all are equal."""
    data = np.fromiter(values, dtype=float)
    if data.size == 0:
        return None
    if np.all(data == data[0]):
        return [float(data[0])] * 2
    found = bootstrap((data,), np.mean, n_resamples=RESAMPLES, method="percentile", rng=np.random.default_rng(seed))
    return [round(float(found.confidence_interval.low), 4), round(float(found.confidence_interval.high), 4)]


def clustered_mean_interval(clusters: Sequence[Sequence[float]], seed: int = 0) -> list[float] | None:
    """[low, high] of the mean of every value, resampling whole clusters (a game's turns, which move together):
    the interval a per-value bootstrap draws too narrow where values of one cluster are alike."""
    clusters = [list(c) for c in clusters if len(c)]
    if not clusters:
        return None
    values = {v for c in clusters for v in c}
    if len(values) == 1:
        return [float(values.pop())] * 2
    sums = np.array([sum(c) for c in clusters], dtype=float)
    sizes = np.array([len(c) for c in clusters], dtype=float)
    found = bootstrap((sums, sizes), lambda total, count, axis=-1: total.sum(axis) / count.sum(axis), paired=True,
                      vectorized=True, n_resamples=RESAMPLES, method="percentile", rng=np.random.default_rng(seed))
    return [round(float(found.confidence_interval.low), 4), round(float(found.confidence_interval.high), 4)]


def apart(first: list[float] | None, second: list[float] | None) -> bool:
    """Whether two intervals do not overlap."""
    return first is not None and second is not None and (first[0] > second[1] or second[0] > first[1])
