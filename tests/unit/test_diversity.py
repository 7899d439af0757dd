"""Diversity in `synth stats`: self-BLEU, Dist-n at equal size, near-duplicates, distinct users / targets /
pairs and the reference sets' target coverage, on the golden run and the real ReDial and INSPIRED test sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU

from synth.analysis.stats.corpus import Corpus, load_corpus
from synth.analysis.stats.diversity import COVERAGE_OF
from synth.analysis.stats.run import collect_stats
from synth.analysis.stats.self_bleu import self_bleu
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_dataset
from synth.data.redial import load_redial
from synth.records import Item, Turn
from synth.runs.records import record_dialogue
from tests.helpers import invoke_synth, record

GOLDEN_RUN = Path(__file__).resolve().parents[1] / "golden" / "pearl_run.dialogues.jsonl"
SHARED = pytest.mark.skipif(
    not all(shared_dataset(name).exists() for name in COVERAGE_OF),
    reason="the shared datasets are not beside the project",
)


def hand_corpus(name: str, texts: list[str]) -> Corpus:
    """A human-like corpus: one seeker utterance per dialogue."""
    turns = [[DialogueTurn(role="seeker", text=text)] for text in texts]
    dialogues = [Dialogue(id=str(index), source="redial", turns=one) for index, one in enumerate(turns)]
    return Corpus.of(name, dialogues)


def redial_run(count: int, copies: int = 0) -> Corpus:
    """A generated run whose model-written turns are real ReDial test dialogues (distinct people's words), with
    the first `copies` of them planted again at the end; users cycle over 3 and targets over 4."""
    dialogues = load_redial(shared_dataset("redial-test"))[:count]
    records = []
    for index, dialogue in enumerate([*dialogues, *dialogues[:copies]]):
        turns = [Turn(role=turn.role, text=turn.text) for turn in dialogue.turns]
        title, year = [("Heat", 1995), ("Alien", 1979), ("Up", 2009), ("Jaws", 1975)][index % 4]
        target = Item(id=f"t{index % 4}", title=title, year=year)
        update = {"user_id": f"u{index % 3}", "target_item": target}
        records.append(record(turns, rid=f"d{index}").model_copy(update=update))
    return Corpus.of("run", [record_dialogue(r) for r in records], records)


def test_self_bleu_is_sacrebleus_sentence_bleu_of_each_text_against_the_others():
    texts = [
        "I loved Heat, the bank robbery scene is great.",
        "Heat is great, I loved the robbery scene.",
        "Do you like comedies? Try Airplane!",
        "Something scary tonight, like Alien or Jaws.",
        "I loved Heat.",
    ]
    sentence = BLEU(effective_order=True)
    expected = [sentence.sentence_score(text, texts[:i] + texts[i + 1 :]).score for i, text in enumerate(texts)]
    assert self_bleu(texts) == pytest.approx(sum(expected) / len(expected))
    assert self_bleu(["the same words here", "the same words here"]) == pytest.approx(100.0)
    with pytest.raises(ValueError):
        self_bleu(["alone"])


def test_dist_n_is_counted_over_the_same_number_of_words_in_every_corpus():
    ten = "a b c d e f g h i j"
    small = hand_corpus("small", ["k l m n o p q r s t u v w x y z aa bb cc dd"])  # 20 distinct words
    repeats = hand_corpus("repeats", [ten] * 5)  # 50 words, 10 distinct
    (small_stats, repeats_stats), _ = collect_stats([small, repeats], seed=4)
    assert small_stats.diversity.equal_size_words == repeats_stats.diversity.equal_size_words == 20
    assert small_stats.diversity.dist_equal_size == small_stats.dist  # the smallest corpus: all of it
    assert repeats_stats.dist["1"] == pytest.approx(10 / 50)
    assert repeats_stats.diversity.dist_equal_size["1"] == pytest.approx(10 / 20)  # two whole dialogues
    bigger = hand_corpus("bigger", ["k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg hh ii"])  # 25 words
    _, cut = collect_stats([bigger, repeats], seed=4)[0]
    assert cut.diversity.equal_size_words == 25
    assert cut.diversity.dist_equal_size["1"] == pytest.approx(10 / 25)  # two dialogues and half of a third
    assert cut.diversity.dist_equal_size["2"] == pytest.approx(9 / 22)  # bigrams never cross utterances


@SHARED
def test_near_duplicates_distinct_pairs_and_coverage_of_a_run_with_planted_copies():
    (clean,), _ = collect_stats([redial_run(24)])
    (planted,), _ = collect_stats([redial_run(24, copies=6)])
    assert clean.diversity.near_duplicates == 0 and clean.diversity.near_duplicate_rate == 0.0
    assert planted.diversity.near_duplicates == 6 and planted.diversity.near_duplicate_rate == pytest.approx(6 / 30)
    assert planted.distinct_users == 3 and planted.diversity.distinct_targets == 4
    assert planted.diversity.distinct_user_target_pairs == 12  # index mod 3 and mod 4: all 12 combinations
    assert planted.diversity.self_bleu > clean.diversity.self_bleu
    for name in COVERAGE_OF:
        coverage = planted.diversity.target_coverage[name]
        assert coverage.total > 100 and coverage.covered <= 4 and coverage.share == coverage.covered / coverage.total


@SHARED
def test_the_golden_run_beside_the_human_test_sets():
    corpora = [load_corpus(str(GOLDEN_RUN)), load_corpus("redial-test"), load_corpus("inspired-test")]
    all_stats, profiles = collect_stats(corpora, seed=2, self_bleu_sample=50)
    run, redial, inspired = (stats.diversity for stats in all_stats)
    smallest = min(sum(found.dialogue_words) for found in profiles)
    assert {d.equal_size_words for d in (run, redial, inspired)} == {smallest}
    assert {d.self_bleu_dialogues for d in (run, redial, inspired)} == {8}  # the golden run has 8 dialogues
    assert redial.dist_equal_size["1"] > all_stats[1].dist["1"]  # fewer words, fewer repeats
    assert run.distinct_targets == 8 and run.target_coverage["redial-test"].covered > 0
    assert redial.distinct_targets is None and redial.target_coverage == {} and redial.near_duplicate_rate < 0.01
    assert run.near_duplicate_rate > redial.near_duplicate_rate  # the scripted golden run repeats itself


def test_coverage_without_the_shared_data_is_left_out_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNTH_SHARED_DATA", str(tmp_path))
    (stats,), _ = collect_stats([load_corpus(str(GOLDEN_RUN))])
    assert stats.diversity.target_coverage == dict.fromkeys(COVERAGE_OF)
    assert str(tmp_path / "redial" / "test_data.jsonl") in stats.diversity.coverage_note
    assert stats.diversity.distinct_targets == 8


@SHARED
def test_stats_cli_prints_the_diversity_table_and_json(tmp_path):
    # both in this process (no new interpreter each; test_stats.py starts the console script)
    table = invoke_synth("stats", str(GOLDEN_RUN), "redial-test", "--sample", "40", "--no-similarity", "--no-progress")
    assert table.returncode == 0, table.stderr
    assert "target coverage of redial-test" in table.stdout and "Dist-2 at equal size" in table.stdout
    result = invoke_synth(
        "stats", str(GOLDEN_RUN), "redial-test", "--sample", "40", "--no-similarity", "--json",
        "--self-bleu-sample", "5",
    )
    assert result.returncode == 0, result.stderr
    run, redial = json.loads(result.stdout)
    assert redial["name"] == "redial-test" and (redial["dialogues"], redial["dialogues_in_file"]) == (40, 1342)
    assert run["diversity"]["self_bleu_dialogues"] == redial["diversity"]["self_bleu_dialogues"] == 5
    assert run["diversity"]["equal_size_words"] == redial["diversity"]["equal_size_words"] > 0
    assert set(run["diversity"]["target_coverage"]) == set(COVERAGE_OF)
