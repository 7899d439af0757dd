"""python -m synth.benchmarks.perf.planning: the game planner before #25 ('users') against the new one
('pairs'), side by side in one run.

For each source (demo, movielens+rt, movielens) at n games: the distinct users, targets, (user, target) pairs
and personas a plan plays, the most games any user plays, the Gini of the targets' games, and the planning
time and peak memory (tracemalloc, which sees numpy's arrays), each game's general taste drawn included. The 'pairs' planner stops when n exceeds the
distinct pairs, so it is also shown with --allow-repeats. Then both planners on a synthetic ratings table of
ml-25m's size (162,541 users, 59,047 movies, 25,000,095 ratings drawn, a movie rated twice by one user kept
once) at n = 1,000,000.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.data.ratings_table import RatingsTable
from synth.modes import review_index
from synth.personas import persona_signatures, spec_seed
from synth.planner import GamePlan, PlanSummary, TooFewPairs, plan_games, plan_users_cycle, summarise

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=200)
ML25M = (162_541, 59_047, 25_000_095)  # users, movies, ratings
# ml-25m's share of each half-star rating, 0.5 .. 5
STAR_SHARES = [0.016, 0.032, 0.016, 0.066, 0.050, 0.196, 0.126, 0.266, 0.085, 0.145]


def synthetic_table(users: int, items: int, ratings: int, seed: int = 0) -> RatingsTable:
    """A ratings table of the given size: heavy-tailed ratings per user (at least 20, as MovieLens keeps),
    Zipf-like movie popularity, MovieLens' star shares."""
    rng = np.random.default_rng(seed)
    per_user = 20 + rng.pareto(1.2, users)
    per_user = np.maximum(20, np.round(per_user / per_user.sum() * ratings)).astype(np.int64)
    per_user[np.argmax(per_user)] += ratings - per_user.sum()
    user = np.repeat(np.arange(users, dtype=np.int32), per_user)
    popularity = 1 / np.arange(1, items + 1) ** 0.9
    item = rng.choice(items, size=ratings, p=popularity / popularity.sum()).astype(np.int32)
    stars = np.arange(1, 11, dtype=np.float32) / 2
    rating = rng.choice(stars, size=ratings, p=np.array(STAR_SHARES) / sum(STAR_SHARES)).astype(np.float32)
    order = np.lexsort((item, user))
    user, item, rating = user[order], item[order], rating[order]
    once = np.r_[True, (user[1:] != user[:-1]) | (item[1:] != item[:-1])]  # a movie rated twice by one user: once
    user, item, rating = user[once], item[once], rating[once]
    offsets = np.zeros(users + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(user, minlength=users))
    return RatingsTable(
        user_ids=np.array([str(u) for u in range(1, users + 1)], dtype=object),
        item_ids=np.array([str(i) for i in range(1, items + 1)], dtype=object),
        user=user, item=item, rating=rating, score=(rating - 0.5) / 4.5, offsets=offsets, scale=(0.5, 5.0),
    )


def measured(make: Callable[[], GamePlan], seed: int, n_general: int) -> tuple[GamePlan, list[str], float, float]:
    """The plan, every game's persona signature (which draws each game's general taste), the seconds both
    took and their peak memory in MiB."""
    tracemalloc.start()
    clock = time.perf_counter()
    plan = make()
    signatures = persona_signatures(plan, seed, n_general)
    seconds = time.perf_counter() - clock
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return plan, signatures, seconds, peak


def plan_summary(plan: GamePlan, signatures: list[str]) -> PlanSummary:
    table, rows = plan.table, plan.target_rows
    return summarise(table.user_ids[table.user[rows]], table.item_ids[table.item[rows]], signatures, plan.available_pairs)


def plans(table: RatingsTable, n: int, seed: int, min_score: float, n_general: int) -> list[tuple[str, Callable[[], GamePlan]]]:
    seeds = [spec_seed(seed, i) for i in range(n)]
    common = {"n": n, "seed": seed, "min_score": min_score, "n_general": n_general}
    return [
        ("users (today)", lambda: plan_users_cycle(table, **common, game_seeds=seeds)),
        ("pairs", lambda: plan_games(table, **common)),
        ("pairs --allow-repeats", lambda: plan_games(table, **common, allow_repeats=True)),
    ]


def add_rows(out: Table, label: str, table: RatingsTable, n: int, seed: int, min_score: float, n_general: int) -> None:
    for planner, make in plans(table, n, seed, min_score, n_general):
        try:
            plan, signatures, seconds, peak = measured(make, seed, n_general)
        except TooFewPairs as exc:
            available = str(exc).split(" distinct")[0].split()[-1]
            out.add_row(label, planner, f"{n:,}", available, "stops before any model call")
            continue
        summary = asdict(plan_summary(plan, signatures))
        out.add_row(
            label, planner, f"{n:,}", f"{summary['available_pairs']:,}",
            *(f"{summary[k]:,}" for k in ("distinct_users", "distinct_targets", "distinct_user_target_pairs",
                                          "distinct_personas", "max_games_per_user")),
            f"{summary['target_gini']:.3f}", f"{seconds:.2f}", f"{peak:.1f}",
        )


@app.command()
def main(
    n: int = typer.Option(50_000, help="Games planned per source."),
    big_n: int = typer.Option(1_000_000, help="Games planned on the synthetic ml-25m-sized table (0: skip)."),
    seed: int = typer.Option(0),
) -> None:
    """Print the planners' table."""
    out = Table(title=f"Game plans (seed {seed}): distinct counts, planning time and peak memory (tracemalloc)")
    for column in ["source", "planner", "n", "pairs available", "users", "targets", "pairs", "personas",
                   "most games of one user", "target Gini", "plan s", "peak MiB"]:
        out.add_column(column, justify="left" if column in ("source", "planner") else "right")
    for source in ("demo", "movielens+rt", "movielens"):
        config = GenerateConfig(source=source, n=n, seed=seed)
        data = load_data(config)
        table = review_index(config, data).table
        add_rows(out, source, table, n, seed, config.target_min_score, config.general_reviews)
    if big_n:
        clock = time.perf_counter()
        table = synthetic_table(*ML25M, seed=seed)
        console.print(f"synthetic ml-25m-sized table: {len(table):,} ratings, made in {time.perf_counter() - clock:.1f} s")
        add_rows(out, "synthetic ml-25m size", table, big_n, seed, 0.75, 3)
    console.print(out)


if __name__ == "__main__":
    app()
