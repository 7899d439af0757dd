"""`synth benchmark`: cases, the item space and the simple baselines on hand-made data; the whole matrix
through the CLI on real ReDial and INSPIRED dialogues with the real embedding model."""

import json
from pathlib import Path

import numpy as np
import pytest

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.cooccurrence import CoOccurrence
from synth.benchmarks.crs.baselines.llm import listed_items
from synth.benchmarks.crs.baselines.popularity import Popularity
from synth.benchmarks.crs.cases import recommendation_cases, response_cases, sample
from synth.benchmarks.crs.datasets import Conversation, Utterance
from synth.benchmarks.crs.items import ItemSpace, MappingReport
from synth.benchmarks.crs.registry import resolve_models
from synth.errors import SynthError
from synth.records import Item
from tests.helpers import invoke_synth, run_synth

CATALOG = {
    "1": Item(id="1", title="Heat", year=1995),
    "2": Item(id="2", title="Ronin", year=1998),
    "3": Item(id="3", title="Collateral", year=2004),
}


def conversation(dialogue_id: str, *turns: tuple[str, str, list[str]]) -> Conversation:
    return Conversation(dialogue_id, tuple(Utterance(role, text, tuple(items)) for role, text, items in turns))  # type: ignore[arg-type]


DIALOGUE = conversation(
    "d1",
    ("seeker", "I liked Heat", ["1"]),
    ("recommender", "Try Ronin", ["2"]),
    ("seeker", "Seen Ronin. Heat was better", ["2", "1"]),
    ("recommender", "Then Heat again, or Collateral", ["1", "3"]),
)


def test_cases_follow_recommender_mentions_and_can_exclude_earlier_ones():
    cases = recommendation_cases([DIALOGUE])
    assert [(c.target, c.mentioned, len(c.context)) for c in cases] == [
        ("2", ("1",), 1), ("1", ("1", "2"), 3), ("3", ("1", "2"), 3)
    ]
    assert cases[0].text() == "I liked Heat"
    assert [c.target for c in recommendation_cases([DIALOGUE], exclude_mentioned=True)] == ["2", "3"]
    responses = response_cases([DIALOGUE])
    assert [(r.reference, len(r.context)) for r in responses] == [("Try Ronin", 1), ("Then Heat again, or Collateral", 3)]
    assert sample(list(range(10)), 3, seed=1) == sample(list(range(10)), 3, seed=1)
    assert sample([1, 2], 5, seed=0) == [1, 2]


def test_item_space_matches_titles_and_adds_the_ones_it_lacks():
    space, report = ItemSpace(CATALOG), MappingReport()
    assert space.resolve("Heat (1995)", report) == "1"
    assert space.resolve("RONIN", report) == "2"  # a unique title without its year
    assert space.resolve("Ronin (1998)", report, item_id="2") == "2"
    joker = space.resolve("Joker (2019)", report)
    assert joker == "title:joker|2019" and space.row(joker) == 3 and len(space) == 4
    assert (report.mentions, report.unmapped, report.unmapped_share) == (4, 1, 0.25)
    assert space.find("Joker (2019)") == joker and space.find("Unknown (2001)") is None and len(space) == 4


def training(*conversations: Conversation) -> TrainingData:
    return TrainingData("hand", "f", list(conversations), recommendation_cases(conversations), response_cases(conversations))


def test_popularity_and_cooccurrence_rank_as_counted():
    space = ItemSpace(CATALOG)
    setup = Setup(space, progress=False)
    data = training(
        conversation("a", ("seeker", "x", ["1"]), ("recommender", "y", ["2"])),
        conversation("b", ("seeker", "x", ["1"]), ("recommender", "y", ["2"])),
        conversation("c", ("seeker", "x", ["1"]), ("recommender", "y", ["3"])),
        conversation("d", ("seeker", "x", []), ("recommender", "y", ["3"])),
        conversation("e", ("seeker", "x", []), ("recommender", "y", ["3"])),
    )
    popularity = Popularity(setup)
    popularity.fit(data)
    case = recommendation_cases([conversation("t", ("seeker", "Heat", ["1"]), ("recommender", "?", ["2"]))])
    assert popularity.score_batch(case)[0].tolist() == [0, 2, 3]  # targets: Ronin twice, Collateral three times
    together = CoOccurrence(setup)
    together.fit(data)
    scores = together.score_batch(case)[0]
    # P(Ronin | Heat) = 2/3 and P(Collateral | Heat) = 1/3, each plus the popularity tie-break
    assert scores[1] == pytest.approx(2 / 3 + 1e-3 * 2 / 3) and scores[2] == pytest.approx(1 / 3 + 1e-3)
    empty = recommendation_cases([conversation("t", ("seeker", "anything", []), ("recommender", "?", ["2"]))])
    assert np.argmax(together.score_batch(empty)[0]) == 2  # no context item: popularity alone


def test_an_llm_list_is_read_line_by_line_into_known_items():
    space = ItemSpace(CATALOG)
    answer = "Here you go:\n1. Ronin (1998)\n2) \"Heat (1995)\"\n- Unknown Film (2001)\n* Ronin (1998)\n• Collateral"
    assert listed_items(answer, space.find) == ["2", "1", "3"]


def test_model_groups_and_unknown_names():
    assert resolve_models(["rec"]) == ["popularity", "cooccurrence", "bm25", "dense", "neural"]
    assert resolve_models(["tfidf,seq2seq", "tfidf"]) == ["tfidf", "seq2seq"]
    with pytest.raises(SynthError, match="unknown model 'bert'.*popularity"):
        resolve_models(["bert"])


def benchmark(out: Path, cache: Path, *args: str, in_process: bool = False):
    """`synth benchmark` in a new process, offline, or (`in_process`) in this one: results.json and the output."""
    command = ("benchmark", "--out", str(out), "--cache-dir", str(cache), "--no-progress", *args)
    result = invoke_synth(*command) if in_process else run_synth(*command, env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr
    return json.loads((out / "results.json").read_text()), result


def test_the_matrix_runs_end_to_end_on_real_dialogues(redial_small, scripted_run, tmp_path):
    train, test = redial_small
    args = ["--train", f"redial-60={train}", "--train", f"scripted={scripted_run}", "--test", f"redial-test-40={test}",
            "--test", "inspired-test", "--max-cases", "60", "--crslab-compat"]
    results, shown = benchmark(tmp_path / "out", tmp_path / "cache", *args)
    trained = ["popularity", "cooccurrence", "neural", "tfidf", "dense-ranker", "seq2seq"]
    rows = {(r["model"], r["train"], r["test"]): r for r in results["results"]}
    for test_set in ("redial-test-40", "inspired-test"):
        for model in trained:
            for train_set in ("redial-60", "scripted"):
                assert (model, train_set, test_set) in rows
        assert ("bm25", None, test_set) in rows and ("dense", None, test_set) in rows
        assert ("references", None, test_set) in rows
    for row in rows.values():
        metrics = row["metrics"]
        assert all(0 <= value <= 1 for name, value in metrics.items() if not name.startswith("crslab")), row
        if row["task"] == "recommendation":
            assert metrics["recall@1"] <= metrics["recall@10"] <= metrics["recall@50"]
            assert row["cases"] == results["test_cases"][row["test"]]["recommendation"] <= 60
        elif row["model"] != "references":
            assert {"crslab-dist@1", "crslab-dist@4"} <= set(metrics)  # distinct characters per response: not 0-1
            assert len(row["examples"]) == 3 and all(isinstance(e["answer"], str) for e in row["examples"])
    # the generated-format run went through the data layer with its own items
    assert results["datasets"]["train"]["scripted"]["dialogues"] == 20
    assert results["training_cases"]["scripted"]["recommendation"] > 20
    assert results["datasets"]["test"]["inspired-test"]["items"]["mentions"] > 0
    coverage = results["target_coverage"]
    assert set(coverage) == {"redial-60", "scripted"} and all(0 <= v <= 1 for c in coverage.values() for v in c.values())
    assert coverage["scripted"]["redial-test-40"] < coverage["redial-60"]["redial-test-40"]  # demo movies vs ReDial's
    table = (tmp_path / "out" / "results.md").read_text()
    assert "| model | train | redial-test-40 R@1 |" in table and "| neural | scripted |" in table
    assert "crslab-dist@n: CRSLab's variant" in table and "| train | scripted | 20 |" in table
    assert "### Fits" in table and "| neural | scripted | " in table.split("### Fits")[1]
    assert (tmp_path / "out" / "recommendation.png").stat().st_size > 0
    assert (tmp_path / "out" / "response.png").stat().st_size > 0
    assert "recommendation on inspired-test" in shown.stdout

    # the same command twice more in this process (no new interpreter importing torch and the embedding model;
    # the first run's was a new one): fitted models come from the cache
    again, _ = benchmark(tmp_path / "again", tmp_path / "cache", *args, in_process=True)
    # seeded: the same models (the two whose training draws random numbers; the others only count or embed), in
    # another process than the first run's fits
    refit, _ = benchmark(tmp_path / "refit", tmp_path / "cache", *args, "--refit", "--models", "neural,seq2seq",
                         in_process=True)
    for other, cached in ((again, True), (refit, False)):
        for row in other["results"]:
            if row["model"] in trained:
                assert row["cached"] is cached
                assert row["metrics"] == pytest.approx(rows[(row["model"], row["train"], row["test"])]["metrics"])


def test_bad_datasets_and_models_are_named(tmp_path):
    result = invoke_synth("benchmark", "--train", str(tmp_path / "missing.jsonl"), "--test", "redial-test")
    assert result.returncode != 0 and "missing.jsonl" in result.stderr and "no such file" in result.stderr
    result = invoke_synth("benchmark", "--train", "redial-test", "--test", "redial-test", "--models", "bert")
    assert result.returncode != 0 and "unknown model 'bert'" in result.stderr


def test_paired_differences_between_training_sets_are_significant_only_when_they_hold_case_by_case():
    from synth.benchmarks.crs.significance import RowValues, compare_training_sets, verdict

    cases = 200
    human = RowValues("recommendation", "pop", "human", "t", {"recall@10": [0.0] * cases, "recall@50": [1.0] * cases})
    more = [1.0] * 40 + [0.0] * (cases - 40)  # 40 more hits, none lost
    both = RowValues("recommendation", "pop", "both", "t", {"recall@10": more, "recall@50": [1.0] * cases})
    untrained = RowValues("recommendation", "bm25", None, "t", {"recall@10": more, "recall@50": more})
    found = {c["metric"]: c for c in compare_training_sets([human, both, untrained], seed=0)}
    assert set(found) == {"recall@10", "recall@50"} and found["recall@10"]["first"] == "human"
    assert found["recall@10"]["significant"] and found["recall@10"]["difference"] == 0.2
    assert 0.1 < found["recall@10"]["ci95"][0] < 0.2 < found["recall@10"]["ci95"][1] < 0.3
    assert not found["recall@50"]["significant"]  # equal on every case
    sentence = verdict(list(found.values()), {"recall@10": "R@10"})
    assert sentence.startswith("Differences between training sets") and "1 of 2 significant" in sentence
    assert "pop R@10 on t: both +0.200 against human" in sentence


def test_a_trained_model_is_compared_case_by_case_with_its_untrained_twin():
    from synth.benchmarks.crs.significance import UNTRAINED, RowValues, compare_training_sets, verdict

    cases = 100
    better = [1.0] * 30 + [0.0] * (cases - 30)
    zero_shot = RowValues("response", "lm-zero", None, "t", {"f1": [0.0] * cases})
    trained = RowValues("response", "lm", "redial", "t", {"f1": better})
    other = RowValues("response", "bm25", None, "t", {"f1": better})  # untrained, no twin: compared with nothing
    rows = [trained, zero_shot, other]
    assert compare_training_sets(rows, seed=0) == []  # without twins, one training set compares with nothing
    (found,) = compare_training_sets(rows, seed=0, twins={"lm": "lm-zero"})
    assert (found["model"], found["first"], found["second"]) == ("lm", UNTRAINED, "redial")
    assert found["significant"] and found["difference"] == 0.3
    sentence = verdict([found], {"f1": "F1"})
    assert "'untrained' being the untrained model" in sentence and "lm F1 on t: redial +0.300 against untrained" in sentence


def test_joined_and_equal_sized_training_sets_with_intervals(redial_small, scripted_run, tmp_path):
    from synth.benchmarks.crs.run import BenchmarkOptions, run_benchmark

    train, test = redial_small
    space = ItemSpace.movielens()
    options = BenchmarkOptions(train=[f"redial-60={train}", f"both={train}+{scripted_run}"],
                               test=[f"redial-test-40={test}"], models=["popularity", "tfidf"], max_cases=60,
                               progress=False)
    results = run_benchmark(options, space)
    assert {label: d["dialogues"] for label, d in results["datasets"]["train"].items()} == {"redial-60": 60, "both": 80}
    for row in results["results"]:
        if row["model"] != "references":
            (metric, interval), *_ = row["ci95"].items()
            assert interval[0] <= row["metrics"][metric] <= interval[1], row
    pairs = {(c["model"], c["metric"]) for c in results["comparisons"]}
    assert pairs == {("popularity", "recall@10"), ("popularity", "recall@50"), ("tfidf", "f1")}
    assert all(c["first"] == "redial-60" and c["second"] == "both" for c in results["comparisons"])
    from synth.benchmarks.crs.results import markdown
    table = markdown(results)
    assert "Differences between training sets (paired bootstrap" in table and "In brackets: 95%" in table

    sized = run_benchmark(BenchmarkOptions(**{**vars(options), "train_size": 20}), space)
    assert {d["dialogues"] for d in sized["datasets"]["train"].values()} == {20}
    with pytest.raises(SynthError, match="'redial-60' has 60 dialogues, fewer than --train-size 70"):
        run_benchmark(BenchmarkOptions(**{**vars(options), "train_size": 70}), space)


def test_a_seeded_part_of_a_set_is_the_scarce_regime_and_grows_by_adding(redial_small, scripted_run):
    """'PATH@N': the first N of the set's seeded order, so 20 ReDial dialogues are among its 40 and the same in a
    join with a generated run; the size reaches the fingerprint (no fit is reused for the whole set)."""
    from synth.benchmarks.crs.datasets import load_dataset, parse_specs

    train, _ = redial_small
    space = ItemSpace.movielens()
    specs = parse_specs([f"{train}@20", f"more={train}@40", f"scarce={train}@20+{scripted_run}", str(train)])
    few, more, scarce, whole = (load_dataset(spec, space, seed=1) for spec in specs)
    assert few.label == f"{train}@20" and len(few.conversations) == 20 and len(more.conversations) == 40
    ids = [c.id for c in few.conversations]
    assert set(ids) < {c.id for c in more.conversations} and ids == [c.id for c in scarce.conversations[:20]]
    assert len(scarce.conversations) == 40 and len({few.fingerprint, more.fingerprint, whole.fingerprint}) == 3
    assert [c.id for c in load_dataset(specs[0], space, seed=2).conversations] != ids
    with pytest.raises(SynthError, match="fewer than the 61 asked for"):
        load_dataset(parse_specs([f"{train}@61"])[0], space)
    with pytest.raises(SynthError, match="no such file"):
        parse_specs([f"{train}.missing@20"])
