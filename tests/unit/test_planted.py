"""`synth benchmark --planted`: the instrument's three training sets from real ReDial dialogues (a half, both
halves, the half plus the other half with its mentions shuffled), its table, and what it reads from paired
comparisons. Whether the real baselines see the planted gain is measured in docs/benchmarks.md."""

from collections import Counter

import pytest

from synth.benchmarks.crs.datasets import DatasetSpec, load_dataset
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.planted import BOTH, HALF, SHUFFLED, instrument, planted_sets
from synth.benchmarks.crs.results import markdown
from synth.benchmarks.crs.run import BenchmarkOptions, run_benchmark
from synth.errors import SynthError


@pytest.fixture(scope="module")
def space() -> ItemSpace:
    return ItemSpace.movielens()


def test_the_shuffled_half_keeps_its_words_and_items_but_not_their_links(redial_small, space):
    dataset = load_dataset(DatasetSpec("redial-60", [redial_small[0]]), space)
    half, both, shuffled = planted_sets(dataset, seed=0)
    assert (half.label, both.label, shuffled.label) == (HALF, BOTH, SHUFFLED)
    assert [len(d.conversations) for d in (half, both, shuffled)] == [30, 60, 60]
    assert both.conversations[:30] == half.conversations == shuffled.conversations[:30]
    assert len({half.fingerprint, both.fingerprint, shuffled.fingerprint}) == 3
    added, moved = both.conversations[30:], shuffled.conversations[30:]
    pairs = [(a, b) for c, d in zip(added, moved) for a, b in zip(c.utterances, d.utterances, strict=True)]
    assert all(a == b for a, b in pairs if a.role == "seeker")  # the seekers' turns stay where they were
    replies = [(a, b) for a, b in pairs if a.role == "recommender"]
    assert Counter(a for a, _ in replies) == Counter(b for _, b in replies)  # every reply, words and items, once
    assert sum(a != b for a, b in replies) > 0.9 * len(replies)  # nearly all of them answer another dialogue now
    recommended = Counter(i for a, _ in replies for i in a.items)
    assert recommended == Counter(i for _, b in replies for i in b.items)  # each item recommended as often
    assert planted_sets(dataset, seed=0)[2] == shuffled and planted_sets(dataset, seed=1)[2] != shuffled


def test_the_benchmark_reports_the_planted_gain_and_nothing(redial_small, space):
    train, test = redial_small
    options = BenchmarkOptions(train=[f"redial-60={train}"], test=[f"redial-test-40={test}"],
                               models=["popularity", "tfidf"], max_cases=60, planted=True, progress=False)
    results = run_benchmark(options, space)
    assert list(results["datasets"]["train"]) == [HALF, BOTH, SHUFFLED]
    rows = {(r["model"], r["metric"]): r for r in results["planted"]}
    assert set(rows) == {("popularity", "recall@10"), ("popularity", "recall@50"), ("tfidf", "f1")}
    for row in rows.values():
        low, high = row["positive_ci95"]
        assert row["smallest_gain"] == pytest.approx((high - low) / 2, abs=1e-4) and "negative" in row
    table = markdown(results)
    assert "### The instrument: a planted gain and a planted nothing" in table and "| popularity | redial-test-40 |" in table
    with pytest.raises(SynthError, match="--planted splits one training set; 2 were given"):
        run_benchmark(BenchmarkOptions(**{**vars(options), "train": [f"a={train}", f"b={train}"]}), space)


def test_the_instrument_reads_a_gain_only_where_the_interval_leaves_out_zero():
    def compared(second, difference, interval):
        return {"task": "recommendation", "model": "m", "test": "t", "metric": "recall@50", "first": HALF,
                "second": second, "difference": difference, "ci95": interval, "significant": True}

    (row,) = instrument([compared(BOTH, 0.05, [0.02, 0.08]), compared(SHUFFLED, -0.01, [-0.03, 0.01]),
                         {**compared(SHUFFLED, 0.0, [0, 0]), "first": BOTH}])
    assert row["positive_seen"] and not row["negative_seen_as_gain"] and row["smallest_gain"] == 0.03
    (row,) = instrument([compared(BOTH, 0.01, [-0.01, 0.03]), compared(SHUFFLED, 0.04, [0.01, 0.07])])
    assert not row["positive_seen"] and row["negative_seen_as_gain"]
