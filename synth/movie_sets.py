"""GoRecDial movie sets: a seeker set of liked, mutually close movies and an expert set of candidates."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pydantic import BaseModel

from synth.config import SetRules
from synth.item_embeddings import ItemEmbeddings


class MovieSet(BaseModel):
    """One game's sets; `points` are the rewards of recommending each candidate."""

    user_id: str
    seeker_items: list[str]
    candidates: list[str]
    correct_index: int
    similarities: list[float]  # candidate to seeker-set mean
    points: list[float]
    coherence: float
    margin: float


@dataclass
class SetReport:
    users: int = 0
    users_with_too_few_liked: int = 0
    tried: int = 0
    kept: int = 0
    dropped: Counter = field(default_factory=Counter)


def softmax(values: np.ndarray, temperature: float) -> np.ndarray:
    scaled = values / temperature
    exp = np.exp(scaled - scaled.max())
    return exp / exp.sum()


def _draw(
    user: str, liked: list[str], seen: set[str], emb: ItemEmbeddings, rules: SetRules, rng: random.Random
) -> tuple[MovieSet | None, str | None]:
    """One attempt for one user: the set, or the reason it was dropped."""
    anchor = rng.choice(liked)
    to_anchor = emb.vector(liked) @ emb.vector([anchor])[0]
    seeker = [liked[i] for i in np.argsort(-to_anchor, kind="stable")[: rules.set_size]]
    vectors = emb.vector(seeker)
    pairwise = vectors @ vectors.T
    coherence = float((pairwise.sum() - len(seeker)) / (len(seeker) * (len(seeker) - 1)))
    if coherence < rules.min_coherence:
        return None, "incoherent"
    sims = emb.similarity_to(emb.mean_vector(seeker))
    unseen = np.array([item not in seen for item in emb.ids])
    order = [i for i in np.argsort(-sims, kind="stable") if unseen[i]]
    correct = rng.choice(order[: rules.correct_pool])
    cutoff = np.quantile(sims, rules.far_quantile)
    far_pool = [i for i in order if sims[i] < cutoff]
    far = rng.sample(far_pool, rules.n_far)
    margin = float(sims[correct] - max(sims[i] for i in far))
    if rules.easy_margin is not None and margin > rules.easy_margin:
        return None, "too_easy"
    if rules.hard_margin is not None and margin < rules.hard_margin:
        return None, "too_hard"
    rows = [correct, *far]
    rng.shuffle(rows)
    cand_sims = np.array([sims[i] for i in rows])
    return (
        MovieSet(
            user_id=user,
            seeker_items=seeker,
            candidates=[emb.ids[i] for i in rows],
            correct_index=rows.index(correct),
            similarities=[round(float(s), 4) for s in cand_sims],
            points=[round(float(p), 4) for p in softmax(cand_sims, rules.points_temperature)],
            coherence=round(coherence, 4),
            margin=round(margin, 4),
        ),
        None,
    )


def select_movie_sets(
    ratings: pd.DataFrame, emb: ItemEmbeddings, *, n: int, seed: int, rules: SetRules = SetRules(), max_tries: int = 20
) -> tuple[list[MovieSet], SetReport]:
    """Up to n sets, users cycled in a seeded order; at most `max_tries` attempts per set wanted."""
    report = SetReport()
    liked_by: dict[str, list[str]] = {}
    seen_by: dict[str, set[str]] = {}
    for user, rows in ratings.groupby("user", sort=True):
        report.users += 1
        liked = sorted(i for i in rows.loc[rows["rating"] >= rules.like_threshold, "item"] if i in emb)
        if len(liked) < rules.set_size:
            report.users_with_too_few_liked += 1
            continue
        liked_by[str(user)] = liked
        seen_by[str(user)] = set(rows["item"])
    users = sorted(liked_by)
    rng = random.Random(seed)
    rng.shuffle(users)
    sets: list[MovieSet] = []
    for attempt in range(n * max_tries):
        if len(sets) == n or not users:
            break
        user = users[attempt % len(users)]
        report.tried += 1
        movie_set, reason = _draw(user, liked_by[user], seen_by[user], emb, rules, rng)
        if movie_set is None:
            report.dropped[reason] += 1
        else:
            sets.append(movie_set)
    report.kept = len(sets)
    return sets, report
