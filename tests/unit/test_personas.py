"""Personas and the game planner on the demo reviews (tests/conftest.py) and on small ratings tables."""

from collections import Counter

import numpy as np
import pytest

from synth.data.ratings_table import RatingsTable
from synth.errors import SynthError
from synth.personas import ReviewIndex, game_rows, make_game_specs, persona_signatures
from synth.planner import TooFewPairs, gini, plan_games, summarise
from synth.records import Item, Review


def specs_of(reviews, catalog, **options):
    return make_game_specs(ReviewIndex.from_reviews(reviews), catalog, **options)


def pairs(specs) -> list[tuple[str, str]]:
    return [(s.persona.user_id, s.persona.target.item) for s in specs]


def test_specs_follow_the_rules_and_are_seeded(catalog, reviews):
    specs, plan = specs_of(reviews, catalog, n=30, seed=3, min_score=0.75, n_general=3)
    own = {(r.user, r.item): r for r in reviews}
    for spec in specs:
        persona = spec.persona
        assert persona.target.score >= 0.75 and persona.target.rating >= 8
        assert own[(persona.user_id, persona.target.item)] == persona.target
        assert len(persona.general) == 3 and len({r.item for r in persona.general}) == 3
        assert persona.target.item not in {r.item for r in persona.general}
        assert all(own[(persona.user_id, r.item)] == r for r in persona.general)
        assert spec.target.id == persona.target.item
    again = specs_of(reviews, catalog, n=30, seed=3)[0]
    assert [(s.id, s.seed, s.persona) for s in specs] == [(s.id, s.seed, s.persona) for s in again]
    other = specs_of(reviews, catalog, n=30, seed=4)[0]
    assert [s.persona for s in other] != [s.persona for s in specs]
    # a longer or shorter run starts with the same games: ids, seeds and personas are stable per index
    assert [(s.id, s.persona) for s in specs_of(reviews, catalog, n=5, seed=3)[0]] == [(s.id, s.persona) for s in specs[:5]]


def test_every_pair_is_played_once_before_any_twice(catalog, reviews):
    available = {(r.user, r.item) for r in reviews if r.score >= 0.75}
    users = {user for user, _ in available}
    specs, plan = specs_of(reviews, catalog, n=len(available), seed=1)
    assert plan.available_pairs == len(available) == 69  # the demo's 14 users offer 69 (user, target) pairs
    assert set(pairs(specs)) == available and len(set(pairs(specs))) == len(specs)
    assert {s.persona.user_id for s in specs[: len(users)]} == users  # round one: every user once
    games = Counter(user for user, _ in pairs(specs[: 3 * len(users)]))
    assert max(games.values()) <= 3  # users take turns
    with pytest.raises(TooFewPairs, match=r"--n 70 asks for more games than the 69 distinct .*--allow-repeats"):
        specs_of(reviews, catalog, n=70, seed=1)
    repeated, _ = specs_of(reviews, catalog, n=70, seed=1, allow_repeats=True)
    assert pairs(repeated)[:69] == pairs(specs) and pairs(repeated)[69] == pairs(specs)[0]
    assert repeated[69].persona.general != specs[0].persona.general or repeated[69].seed != specs[0].seed


def test_the_old_planner_cycles_users_and_repeats_pairs(catalog, reviews):
    old, plan = specs_of(reviews, catalog, n=69, seed=1, planner="users")
    assert len({s.persona.user_id for s in old[:14]}) == 14
    assert len(set(pairs(old))) < 69  # targets drawn at random repeat long before the pairs run out


def test_threshold_is_configurable_and_checked(catalog, reviews):
    strict, plan = specs_of(reviews, catalog, n=5, seed=0, min_score=1.0)
    assert all(s.persona.target.rating == 10 for s in strict)
    report = plan.report
    assert report.users == 14 and report.eligible + report.no_target + report.too_few_reviews == 14
    with pytest.raises(SynthError, match="no user has a review or rating scored >= 1.01"):
        specs_of(reviews, catalog, n=1, seed=0, min_score=1.01)


def test_users_with_too_few_reviews_are_skipped_and_counted(catalog):
    reviews = [Review(user="a", item="m001", rating=9, text="x", score=0.9)] + [
        Review(user="b", item=f"m00{i}", rating=9, text="x", score=0.9) for i in range(1, 5)
    ]
    specs, plan = specs_of(reviews, catalog, n=2, seed=0, n_general=3, allow_repeats=True)
    assert {s.persona.user_id for s in specs} == {"b"}
    assert (plan.report.users, plan.report.eligible, plan.report.too_few_reviews) == (2, 1, 1)


def test_opinion_lookup(reviews):
    index = ReviewIndex.from_reviews(reviews)
    review = reviews[0]
    assert index.opinion(review.user, review.item) == review
    assert index.opinion(review.user, "no-such-item") is None
    assert index.opinion("no-such-user", review.item) is None


def ratings_table(rows: list[tuple[str, str, float]], tags: dict[tuple[str, str], tuple[str, ...]] | None = None) -> RatingsTable:
    """A MovieLens-scale (0.5-5) table from (user, item, stars) rows."""
    users = sorted({u for u, _, _ in rows})
    items = sorted({i for _, i, _ in rows})
    ordered = sorted(rows, key=lambda r: (users.index(r[0]), items.index(r[1])))
    user = np.array([users.index(u) for u, _, _ in ordered], dtype=np.int32)
    rating = np.array([s for _, _, s in ordered], dtype=np.float32)
    offsets = np.zeros(len(users) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(user, minlength=len(users)))
    row_tags = {k: (tags or {})[(u, i)] for k, (u, i, _) in enumerate(ordered) if (u, i) in (tags or {})}
    return RatingsTable(
        user_ids=np.array(users, dtype=object), item_ids=np.array(items, dtype=object), user=user,
        item=np.array([items.index(i) for _, i, _ in ordered], dtype=np.int32), rating=rating,
        score=(rating - 0.5) / 4.5, offsets=offsets, scale=(0.5, 5.0), tags=row_tags,
    )


def test_rating_personas_show_stars_tags_and_a_disliked_movie():
    rows = [("u1", f"{i}", 5.0 if i < 3 else 4.5) for i in range(8)] + [("u1", "9", 1.0)]
    table = ratings_table(rows, tags={("u1", "0"): ("heist", "twist ending")})
    catalog = {f"{i}": Item(id=f"{i}", title=f"Movie {i}", year=2000 + i) for i in range(10)}
    specs, plan = make_game_specs(ReviewIndex(table), catalog, n=8, seed=5, n_general=3)
    assert len(set(pairs(specs))) == 8  # every 4+ star rating is a target once
    for spec in specs:
        general = spec.persona.general
        assert [r for r in general if r.item == "9"], "the one disliked movie is part of every general taste"
        assert all(r.text == "" and r.scale == [0.5, 5.0] for r in general)
    target = next(s.persona.target for s in specs if s.persona.target.item == "0")
    assert target.tags == ["heist", "twist ending"] and target.stars == "5/5" and target.score == 1.0


def test_plan_summary_counts_and_gini(catalog, reviews):
    index = ReviewIndex.from_reviews(reviews)
    plan = plan_games(index.table, n=69, seed=0, min_score=0.75, n_general=3)
    rows = plan.target_rows
    summary = summarise(
        index.table.user_ids[index.table.user[rows]], index.table.item_ids[index.table.item[rows]],
        persona_signatures(plan, 0, 3), plan.available_pairs,
    )
    assert (summary.n, summary.distinct_user_target_pairs, summary.distinct_personas, summary.distinct_users) == (69, 69, 69, 14)
    assert summary.distinct_targets == len({r.item for r in reviews if r.score >= 0.75})
    assert summary.max_games_per_user == max(Counter(r.user for r in reviews if r.score >= 0.75).values())
    assert gini(np.array([5, 5, 5])) == 0 and gini(np.array([0, 0, 9])) == pytest.approx(2 / 3)
    assert game_rows(plan, 3, 0, 3) == game_rows(plan, 3, 0, 3)
