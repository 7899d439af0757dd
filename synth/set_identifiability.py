"""How much a GoRecDial set gives its correct movie away before a word is said: two rankers that never read a
dialogue each pick one of the five candidates, and a set is identifiable to a ranker that picks the correct one
first. Measured when the sets are drawn and written to the plan, so a user sees how hard the games are before
spending a token (chance: 1 in 5).

- description: BM25 over the catalog's item texts (title, year, genres, description), the seeker's set's texts
  as the query;
- co-rating: item-kNN on the raw ratings (each item's user-mean-centred rating column, cosine), the candidate
  with the highest mean similarity to the seeker's set. It reads the ratings the sets are drawn from, but not
  the truncated SVD that draws them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix

from synth.movie_sets import MovieSet
from synth.records import Item
from synth.retrievers.bm25 import BM25Retriever
from synth.retrievers.text import item_text


@dataclass(frozen=True)
class Identifiability:
    """Of `sets` sets, how many each ranker picked correctly first (a tie at the top is no pick)."""

    sets: int
    description_first: int
    corating_first: int

    def counts(self) -> dict[str, int]:
        """The manifest's and the plan's counts."""
        return {"sets_description_first": self.description_first, "sets_corating_first": self.corating_first}


def picks_first(scores: np.ndarray, correct: int) -> bool:
    """Whether `correct` alone has the highest score."""
    return bool(scores[correct] > np.delete(scores, correct).max())


class CoratingRanker:
    """Item-kNN on user-mean-centred ratings: an item's vector is its rating column, L2-normalised."""

    def __init__(self, ratings: pd.DataFrame):
        users = pd.Categorical(ratings["user"])
        items = pd.Categorical(ratings["item"].astype(str))
        centred = ratings["rating"].to_numpy(float) - ratings.groupby("user")["rating"].transform("mean").to_numpy(float)
        matrix = csr_matrix((centred, (items.codes, users.codes)), shape=(len(items.categories), len(users.categories)))
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel()).clip(min=1e-12)
        self.vectors = csr_matrix(matrix.multiply(1.0 / norms[:, None]))
        self.row = {item: row for row, item in enumerate(items.categories)}

    def scores(self, seeker: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """Each candidate's mean cosine to the seeker's items (0 for an item without ratings)."""
        known = [self.row[i] for i in seeker if i in self.row]
        if not known:
            return np.zeros(len(candidates))
        profile = np.asarray(self.vectors[known].mean(axis=0)).ravel()
        rows = [self.row.get(c, 0) for c in candidates]
        scores = np.asarray(self.vectors[rows] @ profile).ravel()
        return np.where([c in self.row for c in candidates], scores, 0.0)


def identifiability(sets: Sequence[MovieSet], ratings: pd.DataFrame, catalog: dict[str, Item]) -> Identifiability:
    """Both rankers over every set."""
    description = BM25Retriever(catalog)
    corating = CoratingRanker(ratings)
    row = {item: i for i, item in enumerate(catalog)}
    by_description = by_corating = 0
    for movie_set in sets:
        query = " ".join(item_text(catalog[i]) for i in movie_set.seeker_items)
        scores = description.scores(query)[[row[c] for c in movie_set.candidates]]
        by_description += picks_first(scores, movie_set.correct_index)
        by_corating += picks_first(corating.scores(movie_set.seeker_items, movie_set.candidates), movie_set.correct_index)
    return Identifiability(len(sets), by_description, by_corating)
