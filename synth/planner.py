"""The run's game plan: which (user, target) pairs the PEARL games play, in a seeded order that uses every
pair once before any is used twice, and what a plan covers (distinct users, targets, pairs, personas)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synth.data.ratings_table import RatingsTable
from synth.errors import SynthError

PLAN_STREAM = 25  # mixed into the run seed, so the plan's random stream is its own
SCORE_TOLERANCE = 1e-6  # scores are float32: a rating exactly at --target-min-score still counts


class TooFewPairs(SynthError):
    """--n asks for more games than the source has distinct (user, target) pairs."""


@dataclass
class PersonaReport:
    """How many users can play: the rest are skipped and counted by reason."""

    users: int = 0
    eligible: int = 0
    too_few_reviews: int = 0
    no_target: int = 0


@dataclass(frozen=True, eq=False)
class GamePlan:
    """Game i plays the user of table row `target_rows[i]` for that row's item."""

    table: RatingsTable
    target_rows: np.ndarray  # int64, one per game
    available_pairs: int  # distinct (user, target) pairs the source offers
    report: PersonaReport
    general: list[list[int]] | None = None  # the 'users' planner draws each game's general taste itself

    def __len__(self) -> int:
        return len(self.target_rows)


def eligible_users(table: RatingsTable, min_score: float, n_general: int) -> tuple[np.ndarray, PersonaReport]:
    """A mask over user codes: users with a rating scored >= min_score and n_general other ratings."""
    counts = np.diff(table.offsets)
    has_target = np.zeros(len(counts), dtype=bool)
    has_target[table.user[table.score >= min_score - SCORE_TOLERANCE]] = True
    enough = counts >= n_general + 1
    eligible = enough & has_target
    report = PersonaReport(
        users=len(counts), eligible=int(eligible.sum()), too_few_reviews=int((~enough).sum()),
        no_target=int((enough & ~has_target).sum()),
    )
    return eligible, report


def ordered_pairs(table: RatingsTable, eligible: np.ndarray, min_score: float, seed: int) -> np.ndarray:
    """Every eligible (user, target) row in play order: round r gives each user, in a seeded user order, its
    r-th target of a seeded per-user order; so users take turns and no pair repeats within the order."""
    rows = np.flatnonzero((table.score >= min_score - SCORE_TOLERANCE) & eligible[table.user])
    rng = np.random.default_rng([seed, PLAN_STREAM])
    user_rank = rng.permutation(len(eligible))
    users = table.user[rows]
    by_user = np.lexsort((rng.random(len(rows)), users))  # users ascending, a random order inside each
    sorted_users = users[by_user]
    first_of_user = np.r_[True, sorted_users[1:] != sorted_users[:-1]]
    round_ = np.arange(len(rows)) - np.flatnonzero(first_of_user)[np.cumsum(first_of_user) - 1]
    return rows[by_user[np.lexsort((user_rank[sorted_users], round_))]]


def plan_games(
    table: RatingsTable, *, n: int, seed: int, min_score: float, n_general: int, allow_repeats: bool = False
) -> GamePlan:
    """The first n pairs of the play order; with `allow_repeats`, the order again from its start past its end.
    Stops before any model call when n exceeds the distinct pairs and repeats are not allowed."""
    eligible, report = eligible_users(table, min_score, n_general)
    if not report.eligible:
        raise SynthError(
            f"no user has a review or rating scored >= {min_score:g} and {n_general} others: nothing can be a "
            f"target ({report.too_few_reviews} users have too few; lower --target-min-score or add reviews or ratings)"
        )
    order = ordered_pairs(table, eligible, min_score, seed)
    if n > len(order) and not allow_repeats:
        raise TooFewPairs(
            f"--n {n} asks for more games than the {len(order):,} distinct (user, target) pairs this source offers "
            f"at --target-min-score {min_score:g}: lower --n, pass --allow-repeats, lower --target-min-score or "
            "use a bigger source (--source movielens, a bigger --movielens such as ml-25m, or --ratings FILE)"
        )
    rows = np.resize(order, n) if n > len(order) else order[:n]
    return GamePlan(table, rows.astype(np.int64), len(order), report)


def plan_users_cycle(
    table: RatingsTable, *, n: int, seed: int, min_score: float, n_general: int, game_seeds: list[int]
) -> GamePlan:
    """The planner before #25 ('users'), kept so that a run started by an older synth resumes with the same
    games: users cycle in a seeded order, and each game draws a random target and general taste from its own
    seed, so pairs repeat long before they run out."""
    eligible, report = eligible_users(table, min_score, n_general)
    if not report.eligible:
        raise SynthError(f"no user has a review or rating scored >= {min_score:g} and {n_general} others")
    users = sorted(np.flatnonzero(eligible), key=lambda code: str(table.user_ids[code]))
    random.Random(seed).shuffle(users)
    targets, general = [], []
    by_user: dict[int, tuple[list[int], list[int]]] = {}  # user -> rows by item id, target rows by item id
    for index, game_seed in enumerate(game_seeds[:n]):
        user = int(users[index % len(users)])
        if user not in by_user:
            rows = sorted(table.rows_of(user), key=lambda row: str(table.item_ids[table.item[row]]))
            by_user[user] = rows, [row for row in rows if table.score[row] >= min_score - SCORE_TOLERANCE]
        rows, user_targets = by_user[user]
        rng = random.Random(game_seed)
        target = rng.choice(user_targets)
        others = [row for row in rows if row != target]
        targets.append(target)
        general.append(rng.sample(others, min(n_general, len(others))))
    available = int(np.count_nonzero((table.score >= min_score - SCORE_TOLERANCE) & eligible[table.user]))
    return GamePlan(table, np.array(targets, dtype=np.int64), available, report, general)


def gini(counts: np.ndarray) -> float:
    """The Gini coefficient of non-negative counts: 0 when all are equal, towards 1 when one item has all."""
    values = np.sort(np.asarray(counts, dtype=np.float64))
    if len(values) == 0 or values.sum() == 0:
        return 0.0
    ranks = np.arange(1, len(values) + 1)
    return float((2 * ranks - len(values) - 1) @ values / (len(values) * values.sum()))


@dataclass(frozen=True)
class PlanSummary:
    """What a plan plays, before any model call."""

    n: int
    available_pairs: int | None  # distinct (user, target) pairs the source offers (PEARL)
    distinct_users: int
    distinct_targets: int
    distinct_user_target_pairs: int
    distinct_personas: int
    max_games_per_user: int
    target_gini: float  # of the games per distinct target: 0 when every target is played equally often


def summarise(
    users: Sequence[str], targets: Sequence[str], personas: Sequence[str], available_pairs: int | None = None
) -> PlanSummary:
    """Distinct counts of the games' users, targets, pairs and persona signatures (one of each per game)."""
    games_per_user = Counter(users)
    target_games = Counter(targets)
    return PlanSummary(
        n=len(users),
        available_pairs=available_pairs,
        distinct_users=len(games_per_user),
        distinct_targets=len(target_games),
        distinct_user_target_pairs=len(set(zip(users, targets))),
        distinct_personas=len(set(personas)),
        max_games_per_user=max(games_per_user.values(), default=0),
        target_gini=gini(np.fromiter(target_games.values(), dtype=np.int64)),
    )
