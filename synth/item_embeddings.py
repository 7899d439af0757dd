"""Item embeddings from co-ratings: truncated SVD of the mean-centred user x item rating matrix."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import svds

from synth.errors import SynthError


@dataclass(frozen=True)
class ItemEmbeddings:
    """L2-normalised item vectors: a dot product is a cosine similarity."""

    ids: list[str]
    vectors: np.ndarray  # (items, dim)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_row", {item: i for i, item in enumerate(self.ids)})

    def __contains__(self, item: str) -> bool:
        return item in self._row  # type: ignore[attr-defined]

    def rows(self, items: list[str]) -> np.ndarray:
        return np.array([self._row[i] for i in items])  # type: ignore[attr-defined]

    def vector(self, items: list[str]) -> np.ndarray:
        return self.vectors[self.rows(items)]

    def similarity_to(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every item to `query` (normalised here)."""
        norm = np.linalg.norm(query)
        return self.vectors @ (query / norm if norm else query)

    def mean_vector(self, items: list[str]) -> np.ndarray:
        mean = self.vector(items).mean(axis=0)
        return mean / (np.linalg.norm(mean) or 1.0)


def corating_embeddings(ratings: pd.DataFrame, *, dim: int = 32, min_ratings: int = 20, seed: int = 0) -> ItemEmbeddings:
    """Embed items rated at least `min_ratings` times; `ratings` has columns user, item, rating."""
    counts = ratings["item"].value_counts()
    kept = ratings[ratings["item"].isin(counts[counts >= min_ratings].index)]
    if kept["item"].nunique() <= dim:
        raise SynthError(f"too few items with >= {min_ratings} ratings to embed in {dim} dimensions")
    users = pd.Categorical(kept["user"])
    items = pd.Categorical(kept["item"])
    centred = kept["rating"].to_numpy(float) - kept.groupby("user")["rating"].transform("mean").to_numpy(float)
    matrix = csr_matrix((centred, (users.codes, items.codes)), shape=(len(users.categories), len(items.categories)))
    start = np.random.default_rng(seed).standard_normal(min(matrix.shape))
    _, singular, vt = svds(matrix, k=dim, v0=start)
    vectors = (vt.T * np.sqrt(singular))[:, ::-1]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    return ItemEmbeddings([str(i) for i in items.categories], vectors)
