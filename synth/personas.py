"""Personas from reviews, and the seeded game specs that say who plays for which target."""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass

from synth.errors import SynthError
from synth.records import Item, Persona, Review


@dataclass(frozen=True)
class GameSpec:
    """One dialogue to play: stable id, its own seed, the persona and its target."""

    id: str
    seed: int
    persona: Persona
    target: Item


class ReviewIndex:
    """A user's reviews by item: the seeker's opinion of anything suggested to it."""

    def __init__(self, reviews: list[Review]):
        self._by_user: dict[str, dict[str, Review]] = defaultdict(dict)
        for review in reviews:
            self._by_user[review.user][review.item] = review

    def users(self) -> list[str]:
        return sorted(self._by_user)

    def of_user(self, user: str) -> dict[str, Review]:
        return self._by_user.get(user, {})

    def opinion(self, user: str, item_id: str) -> Review | None:
        """The user's own review of `item_id`, if they wrote one."""
        return self._by_user.get(user, {}).get(item_id)


def spec_seed(run_seed: int, index: int) -> int:
    """A 31-bit seed for one game, stable across processes and independent of the other games."""
    digest = hashlib.sha256(f"synth:{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass
class PersonaReport:
    """How many users can play: the rest are skipped and counted by reason."""

    users: int = 0
    eligible: int = 0
    too_few_reviews: int = 0
    no_target: int = 0


def _score(review: Review) -> float:
    if review.score is None:
        raise SynthError(f"review of {review.item} by {review.user} has no 0-1 score (unknown rating scale)")
    return review.score


def eligible_users(index: ReviewIndex, min_score: float, n_general: int) -> tuple[list[str], PersonaReport]:
    """Users with a review scored >= min_score and n_general other reviews."""
    report = PersonaReport(users=len(index.users()))
    eligible = []
    for user in index.users():
        reviews = index.of_user(user).values()
        if len(reviews) < n_general + 1:
            report.too_few_reviews += 1
        elif not any(_score(r) >= min_score for r in reviews):
            report.no_target += 1
        else:
            eligible.append(user)
    report.eligible = len(eligible)
    return eligible, report


def make_persona(user: str, index: ReviewIndex, rng: random.Random, *, min_score: float, n_general: int) -> Persona:
    """Target = a random item the user scored >= min_score; general taste = n random other reviews."""
    reviews = index.of_user(user)
    targets = sorted((r for r in reviews.values() if _score(r) >= min_score), key=lambda r: r.item)
    target = rng.choice(targets)
    others = sorted((r for r in reviews.values() if r.item != target.item), key=lambda r: r.item)
    general = rng.sample(others, min(n_general, len(others)))
    return Persona(user_id=user, general=general, target=target)


def make_game_specs(
    reviews: list[Review],
    catalog: dict[str, Item],
    *,
    n: int,
    seed: int,
    min_score: float = 0.75,
    n_general: int = 3,
) -> tuple[list[GameSpec], PersonaReport]:
    """n game specs; users are cycled in a seeded order so every eligible user plays before any repeats."""
    index = ReviewIndex(reviews)
    users, report = eligible_users(index, min_score, n_general)
    if not users:
        raise SynthError(
            f"no user has a review scored >= {min_score:g} and {n_general} other reviews: nothing can be a "
            f"target ({report.too_few_reviews} users have too few reviews; lower --target-min-score or add reviews)"
        )
    random.Random(seed).shuffle(users)
    specs = []
    for i in range(n):
        game_seed = spec_seed(seed, i)
        persona = make_persona(
            users[i % len(users)], index, random.Random(game_seed), min_score=min_score, n_general=n_general
        )
        specs.append(GameSpec(f"pearl-{seed}-{i:06d}", game_seed, persona, catalog[persona.target.item]))
    return specs, report
