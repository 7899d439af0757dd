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


def eligible_users(index: ReviewIndex, min_rating: float) -> list[str]:
    """Users with at least one review rated >= min_rating and at least one other review."""
    return [
        user
        for user in index.users()
        if len(index.of_user(user)) >= 2 and any(r.rating >= min_rating for r in index.of_user(user).values())
    ]


def make_persona(user: str, index: ReviewIndex, rng: random.Random, *, min_rating: float, n_general: int) -> Persona:
    """Target = a random item the user rated >= min_rating; general taste = n random other reviews."""
    reviews = index.of_user(user)
    targets = sorted((r for r in reviews.values() if r.rating >= min_rating), key=lambda r: r.item)
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
    min_rating: float = 8.0,
    n_general: int = 3,
) -> list[GameSpec]:
    """n game specs; users are cycled in a seeded order so every eligible user plays before any repeats."""
    index = ReviewIndex(reviews)
    users = eligible_users(index, min_rating)
    if not users:
        raise SynthError(
            f"no user has a review rated >= {min_rating:g} and another review: nothing can be a target "
            "(lower --target-min-rating or add reviews)"
        )
    random.Random(seed).shuffle(users)
    specs = []
    for i in range(n):
        game_seed = spec_seed(seed, i)
        persona = make_persona(
            users[i % len(users)], index, random.Random(game_seed), min_rating=min_rating, n_general=n_general
        )
        specs.append(GameSpec(f"pearl-{seed}-{i:06d}", game_seed, persona, catalog[persona.target.item]))
    return specs
