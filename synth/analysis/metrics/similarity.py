"""Inter-dialogue similarity: how alike a corpus's dialogues are, as the mean cosine between their embeddings."""

from __future__ import annotations

import numpy as np


def mean_pairwise_cosine(vectors: np.ndarray) -> float:
    """Mean cosine similarity over all unordered pairs of distinct rows (rows need not be unit length).

    With unit rows u_i, sum over i != j of u_i . u_j = |sum u_i|^2 - sum |u_i|^2, so no n x n matrix is built.
    """
    count = len(vectors)
    if count < 2:
        raise ValueError("the mean pairwise cosine needs at least two vectors")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=np.float64), where=norms > 0)
    total = unit.sum(axis=0)
    off_diagonal = float(total @ total) - float((unit * unit).sum())
    return off_diagonal / (count * (count - 1))


def sample_indices(count: int, size: int, seed: int) -> list[int]:
    """`size` distinct indices of range(count) drawn with `seed` (all of them, in order, when size >= count)."""
    if size >= count:
        return list(range(count))
    return sorted(np.random.default_rng(seed).choice(count, size=size, replace=False).tolist())
