"""The act fidelity (synth.analysis.acts.fidelity): Jensen-Shannon divergences against hand-computed values, the
seeded bootstrap, the per-dialogue counts built from tagged dialogues (turns merged, scripted opening left out)
and the report's choice of reference. No act model: the tagged dialogues are made by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synth.analysis.acts.fidelity import ActCounts, fidelity, jensen_shannon, resample_weights
from synth.analysis.acts.model import TaggedDialogue, TaggedUtterance
from synth.analysis.acts.profile import act_counts, merge_tagged
from synth.analysis.acts.taxonomy import ROLES, sub_labels
from synth.analysis.stats.corpus import Corpus
from synth.report.build import fidelity_reference

LOG2_4_3 = np.log2(4 / 3)


def counts(name: str, seeker: list[dict[str, int]], recommender: list[dict[str, int]], requests: list[int],
           words: int = 5) -> ActCounts:
    """ActCounts of hand-made dialogues: per dialogue the seeker's and the recommender's act counts, one
    utterance per act counted, `words` words each."""
    acts = {}
    for role, rows in (("seeker", seeker), ("recommender", recommender)):
        codes = sub_labels(role)
        acts[role] = np.array([[row.get(code, 0) for code in codes] for row in rows], dtype=np.int64)
    utterances = {role: acts[role].sum(axis=1) for role in ROLES}
    return ActCounts(name, "turn", acts, utterances, {r: utterances[r] * words for r in ROLES}, np.array(requests))


def test_jensen_shannon_is_zero_for_the_same_one_for_disjoint_and_hand_computed_between():
    assert jensen_shannon([3, 1, 0], [6, 2, 0]) == 0.0  # counts are normalised first
    assert jensen_shannon([1, 0], [0, 1]) == pytest.approx(1.0)
    # p = (1, 0), q = (1/2, 1/2), m = (3/4, 1/4): (log2(4/3) + 1/2 log2(2/3) + 1/2 log2(2)) / 2 = 3/4 log2(4/3)
    assert jensen_shannon([1, 0], [1, 1]) == pytest.approx(0.75 * LOG2_4_3)
    assert np.isnan(jensen_shannon([0, 0], [1, 0]))  # an empty distribution has no divergence
    rows = jensen_shannon([[1, 0], [1, 0]], [[0, 1], [1, 0]])  # along the last axis
    assert rows == pytest.approx([1.0, 0.0])


def test_fidelity_of_a_hand_made_pair():
    reference = counts("ref", [{"IQU": 1}, {"IQU": 1}], [{"REC-S": 1}, {"REC-S": 1}], [0, 0])
    other = counts("other", [{"IQU": 1}, {"PRO": 1}], [{"REC-S": 1}, {"REC-S": 1}], [1, -1], words=8)
    found = fidelity(reference, other, resamples=300, seed=1)
    assert found.seeker_acts.value == pytest.approx(0.75 * LOG2_4_3)  # (1, 0) against (1/2, 1/2)
    assert found.recommender_acts.value == 0.0
    assert found.requests_before_recommendation.value == pytest.approx(1.0)  # bin 0 only against bin 1 only
    assert found.sum.value == pytest.approx(1 + 0.75 * LOG2_4_3)
    assert found.words == {"seeker": 8.0, "recommender": 8.0} and found.reference_words["seeker"] == 5.0
    assert (found.reference, found.dialogues, found.reference_dialogues, found.resamples) == ("ref", 2, 2, 300)
    for interval in (found.seeker_acts, found.recommender_acts, found.requests_before_recommendation, found.sum):
        assert 0 <= interval.low <= interval.value <= interval.high <= 3, interval


def test_the_bootstrap_is_seeded_and_its_interval_holds_the_estimate():
    rng = np.random.default_rng(7)

    def drawn(name: str, bias: float, n: int) -> ActCounts:
        seeker = [{"IQU": 1, "PRO": int(rng.random() < bias), "ACC": int(rng.random() < 0.5)} for _ in range(n)]
        recommender = [{"REQ": int(rng.random() < bias), "REC-S": 1} for _ in range(n)]
        return counts(name, seeker, recommender, list(rng.integers(-1, 5, n)))

    reference, other = drawn("ref", 0.2, 120), drawn("run", 0.8, 60)
    first = fidelity(reference, other, resamples=400, seed=3)
    assert fidelity(reference, other, resamples=400, seed=3) == first
    assert fidelity(reference, other, resamples=400, seed=4).sum != first.sum
    for name in ("seeker_acts", "recommender_acts", "sum"):
        interval = getattr(first, name)
        assert interval.low < interval.value < interval.high, (name, interval)
    itself = fidelity(reference, reference, resamples=200, seed=0)
    assert itself.sum.value == 0.0 and 0.0 <= itself.sum.low <= itself.sum.high  # resamples only add noise


def test_resample_weights_draw_each_resample_whole():
    weights = resample_weights(5, 1000, np.random.default_rng(0))
    assert weights.shape == (1000, 5) and set(weights.sum(axis=1)) == {5.0}
    assert weights.mean() == pytest.approx(1.0, abs=0.05)
    assert resample_weights(0, 3, np.random.default_rng(0)).shape == (3, 0)


def test_no_recommendation_anywhere_leaves_that_divergence_and_the_sum_empty():
    none = counts("a", [{"IQU": 1}], [{"REQ": 1}], [-1])
    found = fidelity(none, none, resamples=50)
    assert found.requests_before_recommendation.value is None and found.sum.value is None
    assert found.seeker_acts.value == 0.0
    with pytest.raises(ValueError, match="count both alike"):
        fidelity(none, ActCounts("b", "message", none.acts, none.utterances, none.words, none.requests))


def _tagged(utterances: list[tuple[str, str, list[str]]]) -> TaggedDialogue:
    return TaggedDialogue(
        "d", [TaggedUtterance(role, text, acts, np.full(len(sub_labels(role)), 0.1)) for role, text, acts in utterances],
        0.5,
    )


DIALOGUE = _tagged([
    ("recommender", "Hello! What do you like?", ["OTH", "REQ"]),  # scripted
    ("seeker", "I like comedies", ["IQU"]),  # scripted
    ("seeker", "something silly", ["PRO"]),
    ("recommender", "What era?", ["REQ"]),
    ("recommender", "Old or new?", ["CLQ"]),
    ("seeker", "new", ["ANS"]),
    ("recommender", "Try Heat", ["REC-S"]),
])


def test_act_counts_merge_turns_after_leaving_out_the_scripted_opening():
    recommender = sub_labels("recommender")
    turns = act_counts([(DIALOGUE, 2)], name="hand")
    assert turns.name == "hand" and turns.unit == "turn" and turns.dialogues == 1
    # the seeker's scripted IQU is not merged into the model's PRO that follows it
    assert turns.utterances["seeker"].tolist() == [2] and turns.acts["seeker"][0].sum() == 2
    assert turns.acts["seeker"][0][sub_labels("seeker").index("IQU")] == 0
    assert turns.utterances["recommender"].tolist() == [2]  # "What era? Old or new?" is one turn
    assert turns.acts["recommender"][0][[recommender.index(c) for c in ("REQ", "CLQ", "REC-S", "OTH")]].tolist() == [
        1, 1, 1, 0]
    assert turns.requests.tolist() == [1]  # one requesting turn before the recommendation
    assert turns.words["seeker"].tolist() == [3] and turns.words["recommender"].tolist() == [7]
    messages = act_counts([(DIALOGUE, 2)], unit="message")
    assert messages.utterances["recommender"].tolist() == [3] and messages.requests.tolist() == [2]
    assert messages.words["recommender"].tolist() == [7]  # words do not depend on the unit


def test_merged_tagged_turns_unite_acts_and_keep_the_highest_probability():
    first, second = (TaggedUtterance("seeker", text, acts, np.array(p)) for text, acts, p in (
        ("Hi", ["OTH"], [0.9, 0.1]), ("I like Heat", ["PRO", "OTH"], [0.2, 0.8])))
    (merged,) = merge_tagged([first, second])
    assert (merged.text, merged.acts, merged.probabilities.tolist()) == ("Hi I like Heat", ["OTH", "PRO"], [0.9, 0.8])
    alternating = [first, TaggedUtterance("recommender", "Hello", ["OTH"], np.zeros(2))]
    assert merge_tagged(alternating) == alternating


def test_the_report_measures_fidelity_against_the_first_compared_human_dataset():
    def corpus(name: str, format: str) -> Corpus:
        return Corpus(name, Path(name), format, 0, lambda: iter(()))

    run, dropped = corpus("run (kept)", "synth"), corpus("run (dropped)", "synth")
    assert fidelity_reference([run, dropped, corpus("other run", "synth"), corpus("PEARL", "pearl"),
                               corpus("ReDial", "redial"), corpus("INSPIRED", "inspired")], own=2) == 4
    assert fidelity_reference([run, corpus("other run", "synth")], own=1) is None
    assert fidelity_reference([run], own=1) is None
