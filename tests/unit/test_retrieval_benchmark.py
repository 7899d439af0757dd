"""The retrieval benchmark's task, metrics and title matching, on the real ReDial test split."""

import json

import pytest
from typer.testing import CliRunner

from synth.analysis.metrics.ranking import mrr, rank_of, recall_at
from synth.benchmarks.retrieval.__main__ import app
from synth.benchmarks.retrieval.evaluate import case_pool
from synth.benchmarks.retrieval.tasks import RetrievalCase, redial_cases, synth_cases
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_data_root
from synth.data.redial import load_redial
from synth.data.title_match import TitleMatcher, title_key
from synth.personas import ReviewIndex, make_game_specs
from synth.records import Item
from tests.helpers import avoid_target, make_game, play

MOVIES = {
    "1": Item(id="1", title="The Matrix", year=1999),
    "2": Item(id="2", title="Amelie (Fabuleux destin d'Amélie Poulain, Le)", year=2001),
    "3": Item(id="3", title="Kill Bill: Vol. 1", year=2003),
    "4": Item(id="4", title="Kill Bill: Vol. 2", year=2004),
    "5": Item(id="5", title="Anchorman: The Legend of Ron Burgundy", year=2004),
    "6": Item(id="6", title="Titanic", year=1997),
    "7": Item(id="7", title="Titanic", year=1953),
}


def test_title_matching():
    match = TitleMatcher(MOVIES).match
    assert title_key("The Matrix") == title_key("matrix!") == "matrix"
    assert title_key("Fast & Furious") == "fast and furious"
    assert match("The Matrix (1999)") == match("Matrix, The (1999)") == match("Matrix") == "1"
    assert match("Matrix  (2000)") == "1"  # a year off by one still matches
    assert match("Amélie (2001)") == "2"  # alias in parentheses, accents folded
    assert match("Titanic (1997)") == "6" and match("Titanic") is None  # two Titanics: the year decides
    assert match("Kill Bill") is None  # two volumes: ambiguous
    assert match("Anchorman (2004)") == "5"  # the main title before the colon, when unique
    assert match("No Such Film (2001)") is None


def test_ranking_metrics():
    assert rank_of("b", ["a", "b"]) == 2 and rank_of("z", ["a"]) is None
    ranks = [1, 2, None, 20]
    assert recall_at(ranks, 1) == 0.25 and recall_at(ranks, 10) == 0.5
    assert mrr(ranks) == pytest.approx((1 + 0.5 + 1 / 20) / 4) and mrr(ranks, cutoff=10) == pytest.approx(1.5 / 4)
    assert recall_at([], 10) == 0.0 and mrr([]) == 0.0


def test_redial_cases_use_first_mentions_and_exclude_earlier_ones():
    dialogue = Dialogue(
        id="d", source="redial",
        items={"10": "The Matrix (1999)", "20": "Titanic (1997)", "30": "Unknown Film (1990)"},
        turns=[
            DialogueTurn(role="seeker", text="I loved @10", items=["10"]),
            DialogueTurn(role="recommender", text="Try @20 or @10", items=["20", "10"]),
            DialogueTurn(role="seeker", text="seen @20", items=["20"]),
            DialogueTurn(role="recommender", text="Then @30", items=["30"]),
        ],
    )
    cases, report = redial_cases([dialogue], TitleMatcher(MOVIES))
    assert cases == [RetrievalCase("d", "I loved The Matrix", "6", frozenset({"1"}))]
    assert (report.mentions, report.unmapped, report.unmapped_examples) == (2, 1, ["Unknown Film (1990)"])


def test_redial_test_split_gives_thousands_of_cases():
    from synth.data.movielens import load_movielens

    root = shared_data_root()
    movies = load_movielens(root / "movielens-latest-small/ml-latest-small.zip").movies
    cases, report = redial_cases(load_redial(root / "redial/test_data.jsonl"), TitleMatcher(movies))
    assert report.dialogues == 1342 and len(cases) > 3500 and report.mapped_share > 0.85
    assert all(c.target not in c.exclude and "@" not in c.query for c in cases[:200])


def test_synth_cases_follow_the_game(catalog, reviews):
    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=7)[0][0]
    game, _ = make_game(catalog, reviews, avoid_target(spec.target.display))  # scripted: five recommendations
    record = play(game, spec)
    cases, report = synth_cases([record])
    recommended = [t.recommended_item for t in record.turns if t.recommended_item]
    assert [c.target for c in cases] == recommended and report.mentions == len(recommended)
    general = {r.item for r in record.persona.general}
    assert len(cases) == 5 and cases[0].exclude == general and cases[-1].exclude == general | set(recommended[:-1])
    opening = record.turns[record.scripted_turns : record.scripted_turns + 2]  # the recommender asks, the seeker answers
    assert cases[0].query == " ".join(t.text for t in opening)


def test_sampled_pool_keeps_the_target_and_is_seeded():
    case = RetrievalCase("d", "q", "5", frozenset({"1"}))
    ids = frozenset(str(i) for i in range(1, 100))
    pool = case_pool(case, ids, 10, seed=0, index=3)
    assert len(pool) == 10 and "5" in pool and "1" not in pool
    assert pool == case_pool(case, ids, 10, seed=0, index=3) != case_pool(case, ids, 10, seed=0, index=4)
    assert case_pool(case, ids, None, 0, 0) == set(ids) - {"1"}


def test_benchmark_script_runs_on_the_shared_data(tmp_path):
    out = tmp_path / "scores.json"
    result = CliRunner().invoke(app, ["--retrievers", "bm25", "--limit", "40", "--no-progress", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "redial-test" in result.output and "R@10 / bm25" in result.output
    [score] = json.loads(out.read_text())
    assert score["retriever"] == "bm25" and score["cases"] == 40 and 0 <= score["recall_10"] <= 1
