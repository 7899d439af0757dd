"""`synth stats` on a generated run and on the real ReDial and INSPIRED test sets (real embedding model)."""

import io
import json

import pytest
from rich.console import Console

from synth.analysis.stats import run as stats_run
from synth.analysis.stats.corpus import Corpus
from synth.analysis.stats.measures import measure
from synth.analysis.stats.table import markdown_table
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_data_root
from synth.progress import progress_bar
from tests.helpers import invoke_synth, run_synth

REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"
INSPIRED_TEST = shared_data_root() / "inspired" / "data" / "dialog_data" / "test.tsv"
REQUIRED = {
    "dialogues",
    "unit",
    "utterances",
    "words_per_seeker_utterance",
    "words_per_recommender_utterance",
    "ngram_specificity",
    "inter_dialogue_similarity",
    "dist",
}


def test_stats_of_a_hand_made_corpus():
    turns = [
        DialogueTurn(role="seeker", text="I like @7 a lot"),
        DialogueTurn(role="recommender", text="Try Heat", items=["9"]),
        DialogueTurn(role="seeker", text="I like it"),
    ]
    dialogue = Dialogue(id="1", source="redial", turns=turns, items={"7": "Alien (1979)"}, seeker_id="s1")
    corpus = Corpus.of("hand", [dialogue, dialogue.model_copy(update={"id": "2"})])
    stats, found = measure(corpus, encoder=None)
    assert found.seeker_lengths == [6, 3, 6, 3] and found.turns_to_goal == []
    # seeker: "i like alien 1979 a lot" (6 words; @7 read as its title), "i like it" (3) -> 4.5 words
    assert stats.words_per_seeker_utterance == pytest.approx(4.5)
    assert stats.words_per_recommender_utterance == pytest.approx(2.0)
    assert stats.utterances == 6 and stats.distinct_users == 1 and stats.distinct_items == 1
    # seeker side of a dialogue joined: i like alien 1979 a lot i like it -> 8 bigrams, "i like" twice -> 7 distinct
    assert stats.ngram_specificity["2"] == pytest.approx(7.0)
    # unigrams over the corpus: 2 x (6 + 2 + 3) = 22; distinct: i like alien 1979 a lot try heat it = 9
    assert stats.dist["1"] == pytest.approx(9 / 22)
    assert stats.inter_dialogue_similarity is None and stats.generation is None
    assert "acceptance rate" not in markdown_table([stats])


def test_the_stats_bar_counts_every_dialogue_of_every_dataset_against_its_total(monkeypatch):
    dialogue = Dialogue(id="1", source="redial", turns=[DialogueTurn(role="seeker", text="I like Heat")])
    corpora = [Corpus.of(name, [dialogue] * size) for name, size in (("a", 3), ("b", 2))]
    drawn = io.StringIO()
    bars = []

    def on_a_terminal(enabled, label, *fields, **options):
        bars.append(progress_bar(enabled, label, *fields, **{**options, "console": Console(file=drawn, force_terminal=True)}))
        return bars[-1]

    monkeypatch.setattr(stats_run, "progress_bar", on_a_terminal)
    stats_run.collect_stats(corpora, self_bleu_sample=2, progress=True)
    (task,) = bars[0].tasks
    assert task.total == 5 and task.completed == 5 and "5/5" in drawn.getvalue() and "eta" in drawn.getvalue()


@pytest.mark.skipif(not REDIAL_TEST.exists(), reason="the shared datasets are not beside the project")
def test_stats_cli_on_a_run_and_the_human_test_sets_with_plots(scripted_run, tmp_path):
    plots = tmp_path / "plots"
    # in this process: the embedding model's imports are paid once by the suite (the console script: the tests below)
    result = invoke_synth(
        "stats",
        str(scripted_run),
        f"ReDial test={REDIAL_TEST}",
        f"INSPIRED test={INSPIRED_TEST}",
        "--json",
        "--sample",
        "40",
        "--similarity-sample",
        "20",
        "--plot",
        str(plots),
    )
    assert result.returncode == 0, result.stderr
    run, redial, inspired = json.loads(result.stdout)
    for stats in (run, redial, inspired):
        assert REQUIRED <= stats.keys()
        assert set(stats["ngram_specificity"]) == {"2", "3", "4"} and set(stats["dist"]) == {"1", "2", "3", "4"}
        assert all(0 < value <= 1 for value in stats["dist"].values())
        assert -1 < stats["inter_dialogue_similarity"] < 1
        assert stats["similarity"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
        assert stats["similarity"]["dialogues"] == 20 and stats["similarity"]["pairs"] == 190
    assert (run["dialogues"], redial["dialogues"], inspired["dialogues"]) == (20, 40, 40)
    assert redial["dialogues_in_file"] == 1342 and redial["name"] == "ReDial test"
    assert inspired["distinct_users"] is None and redial["distinct_users"] > 1
    assert run["generation"]["acceptance_rate"] == 1.0 and run["generation"]["tokens_per_dialogue"] > 0
    assert redial["generation"] is None
    assert {stats["unit"] for stats in (run, redial, inspired)} == {"turn"}
    # human ReDial turns are short chat lines; the scripted seeker's are short sentences too, but not the same
    assert 3 < redial["words_per_seeker_utterance"] < 15
    written = sorted(p.name for p in plots.iterdir())
    assert written == ["comparison.png", "turns_to_goal.png", "utterance_lengths.png"]
    assert all((plots / name).read_bytes().startswith(b"\x89PNG") for name in written)


def test_stats_cli_prints_a_table_for_one_dataset(scripted_run):
    result = run_synth("stats", str(scripted_run), "--no-similarity")
    assert result.returncode == 0, result.stderr
    assert "words per seeker turn" in result.stdout and "acceptance rate" in result.stdout
    assert "a turn is a speaker's consecutive messages merged" in " ".join(result.stdout.split())  # the caption
    single = run_synth("stats", str(scripted_run), "--no-similarity", "--json")
    assert json.loads(single.stdout)["dialogues"] == 20  # one path: one object


def test_stats_cli_names_a_missing_or_unreadable_file(tmp_path):
    result = run_synth("stats", str(tmp_path / "nowhere.jsonl"), "--no-similarity")
    assert result.returncode == 2 and "nowhere.jsonl" in result.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"turns": [], "outcome": {}, "target_item": {}}\n')
    result = run_synth("stats", str(bad), "--no-similarity")
    assert result.returncode == 2 and "bad.jsonl" in result.stderr and "line 1" in result.stderr
