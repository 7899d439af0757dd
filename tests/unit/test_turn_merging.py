"""Utterances counted as turns: a speaker's consecutive messages merged into one (synth.data.dialogues), as
`synth stats` counts them by default, and each message alone with --per-message."""

from __future__ import annotations

import pytest

from synth.analysis.stats.corpus import Corpus, load_corpus
from synth.analysis.stats.measures import measure
from synth.analysis.stats.table import markdown_table
from synth.data.dialogues import Dialogue, DialogueTurn, merge_turns
from synth.data.paths import shared_dataset

REDIAL_TEST = shared_dataset("redial-test")


def redial_like() -> Dialogue:
    """A ReDial-like chat: the seeker's and the recommender's first turns each span two messages."""
    turns = [
        DialogueTurn(role="seeker", text="hi there", meta={"messageId": 1}),
        DialogueTurn(role="seeker", text="I like @7", items=["7"], meta={"messageId": 2, "acts": ["PRO"]}),
        DialogueTurn(role="recommender", text="Have you seen @9?", items=["9"], meta={"acts": ["REC-E"]}),
        DialogueTurn(role="recommender", text="@9 is great", items=["9"], meta={"acts": ["EXP-I", "REC-E"]}),
        DialogueTurn(role="seeker", text="I will watch it"),
    ]
    return Dialogue(id="1", source="redial", turns=turns, items={"7": "Alien (1979)", "9": "Heat (1995)"},
                    seeker_id="s1")


def test_consecutive_messages_of_one_speaker_become_one_turn():
    merged = merge_turns(redial_like())
    assert [(t.role, t.text) for t in merged.turns] == [
        ("seeker", "hi there I like @7"),
        ("recommender", "Have you seen @9? @9 is great"),
        ("seeker", "I will watch it"),
    ]
    seeker, recommender, _ = merged.turns
    assert recommender.items == ["9"]  # the same movie in two messages: once
    assert recommender.meta["acts"] == ["REC-E", "EXP-I"]  # the acts of the turn's messages united
    assert seeker.meta == {"messageId": 1, "acts": ["PRO"]}  # other meta: the first message's
    alternating = merged.model_copy()
    assert merge_turns(alternating) is alternating  # nothing to merge: the dialogue as it is


def test_stats_count_turns_by_default_and_messages_on_request():
    corpus = Corpus.of("hand", [redial_like()])
    turns, found = measure(corpus, encoder=None)
    # seeker turns: "hi there i like alien 1979" (6 words), "i will watch it" (4); recommender: one turn of
    # "have you seen heat 1995 heat 1995 is great" (9)
    assert turns.unit == "turn" and turns.utterances == 3 and found.seeker_lengths == [6, 4]
    assert turns.words_per_seeker_utterance == pytest.approx(5.0)
    assert turns.words_per_recommender_utterance == pytest.approx(9.0)
    assert turns.distinct_items == 2
    messages, found = measure(corpus, encoder=None, unit="message")
    assert messages.unit == "message" and messages.utterances == 5 and found.seeker_lengths == [2, 4, 4]
    assert messages.words_per_seeker_utterance == pytest.approx(10 / 3)
    assert messages.words_per_recommender_utterance == pytest.approx(4.5)  # 5 and 4 words
    assert messages.ngram_specificity == turns.ngram_specificity  # the seeker's side is joined either way
    assert messages.dist["1"] == turns.dist["1"] and messages.dist["2"] < turns.dist["2"]  # bigrams across messages
    assert "| words per seeker turn |" in markdown_table([turns])
    assert "| words per recommender message |" in markdown_table([messages])


@pytest.mark.skipif(not REDIAL_TEST.exists(), reason="the shared datasets are not beside the project")
def test_redial_test_has_longer_turns_than_messages():
    corpus = load_corpus("redial-test")
    turns, _ = measure(corpus, encoder=None)
    messages, _ = measure(corpus, encoder=None, unit="message")
    assert (turns.utterances, messages.utterances) == (15_704, 23_952)
    assert turns.words_per_recommender_utterance > messages.words_per_recommender_utterance
    # the figures of docs/statistics.md (PEARL's paper: 11.01 words per recommender turn, on more of ReDial)
    assert turns.words_per_recommender_utterance == pytest.approx(10.33, abs=0.005)
    assert messages.words_per_recommender_utterance == pytest.approx(7.13, abs=0.005)
