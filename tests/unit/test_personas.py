import pytest

from synth.errors import SynthError
from synth.personas import ReviewIndex, make_game_specs
from synth.records import Review


def test_specs_follow_the_rules_and_are_seeded(catalog, reviews):
    specs = make_game_specs(reviews, catalog, n=30, seed=3, min_score=0.75, n_general=3)[0]
    index = ReviewIndex(reviews)
    for spec in specs:
        own = index.of_user(spec.persona.user_id)
        assert spec.persona.target.score >= 0.75 and spec.persona.target.rating >= 8 and spec.persona.target.item in own
        assert len(spec.persona.general) == 3
        assert spec.persona.target.item not in {r.item for r in spec.persona.general}
        assert all(r.user == spec.persona.user_id for r in spec.persona.general)
        assert spec.target.id == spec.persona.target.item
    assert len({s.persona.user_id for s in specs[:14]}) == 14  # every user plays before any repeats
    again = make_game_specs(reviews, catalog, n=30, seed=3)[0]
    assert [(s.id, s.seed, s.persona) for s in specs] == [(s.id, s.seed, s.persona) for s in again]
    other = make_game_specs(reviews, catalog, n=30, seed=4)[0]
    assert [s.persona for s in other] != [s.persona for s in specs]
    # a longer run starts with the same games: ids and seeds are stable per index
    assert [(s.id, s.persona) for s in make_game_specs(reviews, catalog, n=5, seed=3)[0]] == [
        (s.id, s.persona) for s in specs[:5]
    ]


def test_threshold_is_configurable_and_checked(catalog, reviews):
    strict = make_game_specs(reviews, catalog, n=20, seed=0, min_score=1.0)[0]
    assert all(s.persona.target.rating == 10 for s in strict)
    _, report = make_game_specs(reviews, catalog, n=1, seed=0, min_score=1.0)
    assert report.users == 14 and report.eligible + report.no_target + report.too_few_reviews == 14
    with pytest.raises(SynthError, match="no user has a review scored >= 1.01"):
        make_game_specs(reviews, catalog, n=1, seed=0, min_score=1.01)


def test_users_with_too_few_reviews_are_skipped_and_counted(catalog):
    reviews = [Review(user="a", item="m001", rating=9, text="x", score=0.9)] + [
        Review(user="b", item=f"m00{i}", rating=9, text="x", score=0.9) for i in range(1, 5)
    ]
    specs, report = make_game_specs(reviews, catalog, n=2, seed=0, n_general=3)
    assert {s.persona.user_id for s in specs} == {"b"}
    assert (report.users, report.eligible, report.too_few_reviews) == (2, 1, 1)


def test_opinion_lookup(reviews):
    index = ReviewIndex(reviews)
    review = reviews[0]
    assert index.opinion(review.user, review.item) == review
    assert index.opinion(review.user, "no-such-item") is None
