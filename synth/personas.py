"""Personas from a user's own ratings and reviews, and the seeded game specs that say who plays for which
target (the order of the pairs is the planner's)."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

import numpy as np

from synth.data.ratings_table import RatingsTable
from synth.planner import GamePlan, plan_games, plan_users_cycle
from synth.records import Item, Persona, Review

DISLIKED_BELOW = 0.5  # a general taste shows one rating scored below this when the user has one


@dataclass(frozen=True)
class GameSpec:
    """One dialogue to play: stable id, its own seed, the persona and its target."""

    id: str
    seed: int
    persona: Persona
    target: Item


class ReviewIndex:
    """A user's ratings (and review texts) by item: the seeker's opinion of anything suggested to it."""

    def __init__(self, table: RatingsTable, reviews: list[Review] | None = None):
        self.table = table
        self._reviews = {(r.user, r.item): r for r in reviews} if reviews is not None else None

    @classmethod
    def from_reviews(cls, reviews: list[Review]) -> ReviewIndex:
        """An index of review texts: `review` gives back the source's own Review objects."""
        return cls(RatingsTable.from_reviews(reviews), reviews)

    def review(self, row: int) -> Review:
        """Row `row` as a review: rating, 0-1 score, text ('' when rating-only), the scale and the user's tags."""
        table = self.table
        if self._reviews is not None:
            return self._reviews[(str(table.user_ids[table.user[row]]), str(table.item_ids[table.item[row]]))]
        return Review(
            user=str(table.user_ids[table.user[row]]),
            item=str(table.item_ids[table.item[row]]),
            rating=float(table.rating[row]),
            text=table.texts[row] if table.texts is not None else "",
            score=round(float(table.score[row]), 6),
            scale=list(table.scale),
            tags=list(table.tags.get(row, ())),
        )

    def opinion(self, user: str, item_id: str) -> Review | None:
        """The user's own rating or review of `item_id`, if they gave one."""
        code = self.table.user_code(user)
        row = None if code is None else self.table.find(code, item_id)
        return None if row is None else self.review(row)


def spec_seed(run_seed: int, index: int) -> int:
    """A 31-bit seed for one game, stable across processes and independent of the other games."""
    digest = hashlib.sha256(f"synth:{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def general_rows(table: RatingsTable, target_row: int, rng: random.Random, n_general: int) -> list[int]:
    """n_general random other ratings of the target's user; the last one swapped for a disliked one when none
    of them is disliked and the user has one."""
    user_rows = table.rows_of(int(table.user[target_row]))
    others = len(user_rows) - 1
    skip = target_row - user_rows.start
    picked = [user_rows.start + p + (p >= skip) for p in rng.sample(range(others), min(n_general, others))]
    if picked and all(table.score[r] >= DISLIKED_BELOW for r in picked):
        disliked = user_rows.start + np.flatnonzero(table.score[user_rows.start : user_rows.stop] < DISLIKED_BELOW)
        disliked = [int(r) for r in disliked if r != target_row]
        if disliked:
            picked[-1] = rng.choice(disliked)
    return picked


def persona_signature(table: RatingsTable, target_row: int, general: list[int]) -> str:
    """User, target and general taste: two games with the same signature play the same persona."""
    items = sorted(str(table.item_ids[table.item[r]]) for r in general)
    return f"{table.user_ids[table.user[target_row]]}|{table.item_ids[table.item[target_row]]}|{','.join(items)}"


def game_rows(plan: GamePlan, index: int, run_seed: int, n_general: int) -> tuple[int, int, list[int]]:
    """Game `index`'s seed, target row and general-taste rows (drawn with the game's own seed)."""
    seed = spec_seed(run_seed, index)
    target = int(plan.target_rows[index])
    if plan.general is not None:
        return seed, target, plan.general[index]
    return seed, target, general_rows(plan.table, target, random.Random(seed), n_general)


def persona_signatures(plan: GamePlan, run_seed: int, n_general: int) -> list[str]:
    """Every game's persona signature, without building the personas."""
    signatures = []
    for index in range(len(plan)):
        _, target, general = game_rows(plan, index, run_seed, n_general)
        signatures.append(persona_signature(plan.table, target, general))
    return signatures


def plan_for(
    index: ReviewIndex, *, n: int, seed: int, min_score: float, n_general: int, allow_repeats: bool, planner: str
) -> GamePlan:
    """The run's plan: 'pairs' (every (user, target) pair once before any twice) or 'users' (before #25)."""
    if planner == "users":
        seeds = [spec_seed(seed, i) for i in range(n)]
        return plan_users_cycle(index.table, n=n, seed=seed, min_score=min_score, n_general=n_general, game_seeds=seeds)
    return plan_games(index.table, n=n, seed=seed, min_score=min_score, n_general=n_general, allow_repeats=allow_repeats)


def make_game_specs(
    index: ReviewIndex,
    catalog: dict[str, Item],
    *,
    n: int,
    seed: int,
    min_score: float = 0.75,
    n_general: int = 3,
    allow_repeats: bool = False,
    planner: str = "pairs",
) -> tuple[list[GameSpec], GamePlan]:
    """n game specs in the planner's order, each persona built from the user's own ratings or reviews."""
    plan = plan_for(
        index, n=n, seed=seed, min_score=min_score, n_general=n_general, allow_repeats=allow_repeats, planner=planner
    )
    table = index.table
    specs = []
    for i in range(n):
        game_seed, target, general = game_rows(plan, i, seed, n_general)
        persona = Persona(
            user_id=str(table.user_ids[table.user[target]]),
            general=[index.review(r) for r in general],
            target=index.review(target),
        )
        specs.append(GameSpec(f"pearl-{seed}-{i:06d}", game_seed, persona, catalog[persona.target.item]))
    return specs, plan
