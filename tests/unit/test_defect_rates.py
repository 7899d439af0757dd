"""Utterance defect rates (synth.analysis.defects.rates) and their table in `synth stats`: exact counts on
hand-built utterances, a scripted run's records, and the real ReDial test set (word-level measures only)."""

from __future__ import annotations

import asyncio
import json

import pytest

from synth.analysis.defects import DEFECTS, ReplyContext, Spoken, defect_rates
from synth.analysis.stats.corpus import Corpus, load_corpus
from synth.analysis.stats.defects import measure_defects
from synth.analysis.stats.measures import measure
from synth.analysis.stats.table import DEFECT_ROWS, cell
from synth.config import GenerateConfig
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import shared_dataset
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate
from tests.helpers import invoke_synth

NAMES = [m.name for m in DEFECTS]
PERSONA_MEASURES = ("contradicts_review", "names_target", "borrows_description", "copies_example")
EXAMPLE = "Three hours of a sinking ship is a lot for a weeknight."
OPENING = "What kind of movies do you enjoy watching?"


def said(role, text, *, other="", own=(), named=None, rejection=False, known=True, **context) -> Spoken:
    return Spoken(role, text, ReplyContext(role, other, tuple(own), **context), named, rejection, known)


def hand_dialogues() -> list[list[Spoken]]:
    """Two synth-like dialogues with one defect of each kind planted, and a human-like one (no persona)."""
    u1 = said("recommender", f"Hello there! {OPENING} Three hours of a sinking ship is fine.", examples=(EXAMPLE,))
    u2 = said("seeker", "What kind of movies do you enjoy watching on a rainy night? I love thrillers.", other=u1.text)
    u3 = said("recommender", "You should try Heat, the Seeker will love it.", other=u2.text, own=[u1.text],
              named="Heat (1995)")
    u4 = said("seeker", "No thanks, I have seen it already, I was hoping for Ronin.", other=u3.text, own=[u2.text],
              rejection=True, hidden_target="Ronin (1998)")
    descriptions = {"Airplane! (1980)": "A spoof of disaster films.",
                    "Alien (1979)": "The crew of a commercial spacecraft meets a deadly lifeform."}
    v1 = said("recommender", f"Hi. {OPENING}")
    v2 = said("seeker", "Alien was boring, I mostly watch comedies with my friends.", other=v1.text,
              liked=("Alien (1979)",))
    v3 = said("recommender", "Then try Airplane, the crew of a commercial spacecraft would laugh.", other=v2.text,
              own=[v1.text], named="Airplane! (1980)", descriptions=descriptions)
    v4 = said("seeker", "No thanks, I have seen it twice and it bored me.", other=v3.text, own=[v2.text],
              rejection=True)
    v5 = said("recommender", "Then try Airplane, the crew of a commercial spacecraft would laugh a lot.",
              other=v4.text, own=[v1.text, v3.text])
    w1 = said("recommender", "Do you like horror?", known=False)
    w2 = said("seeker", "Yes.", other=w1.text, known=False)
    return [[u1, u2, u3, u4], [v1, v2, v3, v4, v5], [w1, w2]]


def test_defect_rates_count_each_planted_defect_over_what_it_applies_to():
    rates = defect_rates(hand_dialogues())
    assert list(rates) == NAMES
    found = {name: (rate.hits, rate.of) for name, rate in rates.items()}
    assert found == {
        "same_opening": (2, 3),  # u1 and v1 open alike; w1 asks another question
        "shared_rejection_start": (2, 2),  # "no thanks i have seen it"
        "copies_other": (1, 11),  # u2 repeats 8 words of u1; every utterance counts, the human-like ones too
        "repeats_itself": (1, 11),  # v5 repeats 9 of its 11 3-grams from v3
        "third_person": (1, 11),  # u3: "the Seeker"
        "contradicts_review": (1, 4),  # v2 pans Alien, which its review liked; known seeker utterances only
        "names_target": (1, 4),  # u4 names Ronin, its hidden target
        "borrows_description": (1, 5),  # v3 describes Airplane! with Alien's description
        "copies_example": (1, 9),  # u1 copies the example; known utterances only
        "echoes_instructions": (0, 11),
        "unsaid_reference": (0, 9),
        "speaks_as_other": (1, 11),  # u2: a seeker asking "what kind of movies do you enjoy"
        "unnamed_recommendation": (0, 0),  # no utterance recommends (`recommends` unset)
        "recites_target": (0, 0),  # no seeker knows a review of its target here
        "unasked_question": (0, 0),  # no move planned as a question
        "early_goodbye": (0, 9),  # nothing was recommended in any of them
        "premature_goodbye": (0, 0),  # so no goodbye can come after a recommendation
        "contradicts_catalog": (0, 9),
        "accepts_in_words": (0, 4),  # the known seeker utterances, none accepting
        "suggests_unlisted": (0, 5),  # the known recommender utterances
        "other_domain": (0, 9),  # a movie run: no other domain's words
    }
    assert rates["copies_other"].rate == pytest.approx(1 / 11)
    assert defect_rates([])["copies_other"].rate is None


def test_a_human_corpus_counts_merged_turns_and_shows_no_persona_measure():
    messages = [("seeker", "hi there"), ("seeker", "I want a film like @7 with lots of space monsters"),
                ("recommender", "a film like Alien (1979) with lots of space monsters and more"), ("recommender", "ok?")]
    turns = [DialogueTurn(role=role, text=text) for role, text in messages]
    dialogue = Dialogue(id="1", source="redial", turns=turns, items={"7": "Alien (1979)"})
    corpus = Corpus.of("hand", [dialogue])
    merged = measure_defects(corpus)
    # two turns; the recommender copies 8+ words of the seeker's once "@7" reads as its title
    assert (merged["copies_other"].hits, merged["copies_other"].of) == (1, 2)
    assert measure_defects(corpus, "message")["copies_other"].of == 4
    assert all(merged[name].of == 0 and merged[name].rate is None for name in PERSONA_MEASURES)
    stats, _ = measure(corpus, encoder=None)
    stats.defects = merged
    cells = {label: cell(value(stats), spec) for label, spec, value in DEFECT_ROWS}
    assert cells["copies 8+ words of the other speaker (share of utterances)"] == "50.0%"
    assert cells["contradicts its own review (share of seeker utterances)"] == "–"
    assert len(cells) == len(DEFECTS)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("defects-run")
    asyncio.run(generate(GenerateConfig(n=4, seed=5, progress=False), folder,
                         backend=ScriptedBackend(rule_following_script)))
    return folder


def test_stats_json_and_table_of_a_scripted_run_show_every_defect(small_run):
    # both in this process (no new interpreter each; test_stats.py starts the console script)
    result = invoke_synth("stats", str(small_run), "--no-similarity", "--json", "--self-bleu-sample", "3")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    defects = stats["defects"]
    assert list(defects) == NAMES
    for found in defects.values():
        assert set(found) == {"hits", "of", "rate"} and 0 <= found["hits"] <= found["of"]
        assert found["rate"] == (found["hits"] / found["of"] if found["of"] else None)
    # the scripted opening is left out: fewer utterances checked than the run has
    assert 0 < defects["copies_other"]["of"] < stats["utterances"]
    assert defects["same_opening"]["of"] <= stats["dialogues"] == 4
    # a run's records know their persona and the items shown
    assert all(defects[name]["of"] > 0 for name in ("contradicts_review", "names_target", "borrows_description"))
    table = invoke_synth("stats", str(small_run), "--no-similarity", "--no-progress")
    assert table.returncode == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "utterance defects" in text and "copies 8+ words of the other speaker (share of utterances)" in text
    assert "persona, plan and item measures need a synth run's records; human sets show only the word-level ones" in text


@pytest.mark.skipif(not shared_dataset("redial-test").exists(), reason="the shared datasets are not beside the project")
def test_redial_test_has_only_the_word_level_measures():
    corpus = load_corpus("redial-test", sample=300, seed=1)
    defects = measure_defects(corpus)
    assert all(defects[name].of == 0 for name in PERSONA_MEASURES)
    stats, _ = measure(corpus, encoder=None)
    # every merged turn of every dialogue is checked against the other speaker's words
    assert defects["copies_other"].of == defects["third_person"].of == stats.utterances > 0
    assert 0 < defects["same_opening"].of <= 300
    assert defects["copies_other"].rate < 0.05  # people rarely repeat 8 words of each other
