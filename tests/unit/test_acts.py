"""Dialogue acts: the IARD taxonomy, the tagger and satisfaction predictor trained and cross-validated on the
real IARD data with the real MiniLM embeddings, `synth stats --acts` and the satisfaction filter."""

from __future__ import annotations

import asyncio
import json
import re

import numpy as np
import pytest

from synth.analysis.acts import model as act_models
from synth.analysis.acts.evaluation import dialogue_folds, level_scores
from synth.analysis.acts.model import TaggedDialogue, TaggedUtterance, act_model, load_encoder, train_act_model
from synth.analysis.acts.profile import ActProfile, _Tally
from synth.analysis.acts.tables import fidelity_rows, sequence_rows, share_rows
from synth.analysis.acts.taxonomy import TAXONOMY, sub_labels, top_of
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.iard import load_iard
from synth.data.paths import shared_data_root
from synth.filters.config import FilterConfig
from synth.filters.pipeline import filter_run
from synth.report.build import ReportOptions, write_report
from tests.helpers import invoke_synth

IARD = shared_data_root() / "iard" / "umap2020_IARD_Cai.json"
REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The act model trained on all of IARD (2-fold cross-validated first: `synth acts train` cross-validates on 5,
    the figures of docs/acts.md; 2 folds halve the suite's fits and still test held-out scores), saved in a folder."""
    folder = tmp_path_factory.mktemp("acts")
    model = train_act_model(IARD, load_encoder(None), folds=2, seed=0)
    model.save(folder)
    return folder, model


def test_the_taxonomy_covers_every_iard_label_under_its_top_level():
    dialogues = load_iard(IARD)
    assert len(dialogues) == 336
    checked = 0
    for dialogue in dialogues:
        for turn in dialogue.turns:
            assert set(turn.meta["acts"]) <= set(TAXONOMY[turn.role]), turn.meta["acts"]
            assert top_of(turn.role, turn.meta["acts"]) == sorted(
                turn.meta["top_acts"], key=lambda top: [t for _, t in TAXONOMY[turn.role].values()].index(top)
            ), (turn.meta["acts"], turn.meta["top_acts"])
            checked += 1
    assert checked == 4583
    assert len(sub_labels("seeker")) == 15 + 1 and len(sub_labels("recommender")) == 9 + 1  # + OTH


def test_folds_keep_each_dialogue_in_one_fold():
    groups = [f"d{i // 3}" for i in range(60)]  # 20 dialogues of 3 utterances
    folds = dialogue_folds(groups, 5, seed=1)
    for dialogue in set(groups):
        assert len({folds[i] for i, g in enumerate(groups) if g == dialogue}) == 1
    assert sorted(np.bincount(folds)) == [12] * 5
    assert list(folds) == list(dialogue_folds(groups, 5, seed=1))
    with pytest.raises(ValueError, match="at least 5 dialogues"):
        dialogue_folds(["a", "a", "b"], 5, seed=0)


def test_scores_computed_by_hand():
    gold = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    predicted = np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    scores = level_scores(gold, predicted, ["A", "B"], {"A": "a", "B": "b"})
    a, b = scores.labels
    assert (a.precision, a.recall, a.support) == (2 / 3, 1.0, 2) and a.f1 == pytest.approx(0.8)
    assert (b.precision, b.recall, b.f1, b.support) == (1.0, 0.5, pytest.approx(2 / 3), 2)
    assert scores.macro_f1 == pytest.approx((0.8 + 2 / 3) / 2)
    assert scores.micro_f1 == pytest.approx(2 * 3 / (2 * 3 + 1 + 1))  # tp 3, fp 1, fn 1
    assert scores.accuracy == 0.5  # rows 1 and 4 match exactly


def test_cross_validated_taggers_beat_the_majority_label_by_far(trained):
    _, model = trained
    evaluation = model.evaluation
    for role, scores in (("seeker", evaluation.seeker), ("recommender", evaluation.recommender)):
        assert scores.dialogues == 336 and scores.folds == 2
        # always predicting the most frequent label (OTH) has a macro F1 under 1 / number of labels
        assert scores.sub.macro_f1 > 0.4, role
        assert scores.top.macro_f1 > 0.7 and scores.top.accuracy > 0.5, role
        frequent = {row.code: row.f1 for row in scores.sub.labels if row.support >= 250}
        assert all(f1 > 0.4 for f1 in frequent.values()), frequent
    satisfaction = evaluation.satisfaction
    assert (satisfaction.dialogues, satisfaction.satisfied) == (336, 253)
    assert satisfaction.roc_auc > 0.7 and satisfaction.balanced_accuracy > 0.65
    assert evaluation.embedding_model == "sentence-transformers/all-MiniLM-L6-v2" and len(evaluation.iard_sha256) == 64


def _dialogue(id: str, turns: list[tuple[str, str]]) -> Dialogue:
    return Dialogue(id=id, source="synth", turns=[DialogueTurn(role=r, text=t) for r, t in turns])


HAPPY = _dialogue(
    "happy",
    [
        ("seeker", "Hi! I love funny movies, can you recommend a comedy?"),
        ("recommender", "What kind of comedy do you like?"),
        ("seeker", "Something silly with a lot of slapstick."),
        ("recommender", "Have you seen Spaceballs (1987)? It is a hilarious parody of Star Wars."),
        ("seeker", "No I haven't, that sounds great! I will definitely watch it, thank you!"),
    ],
)
UNHAPPY = _dialogue(
    "unhappy",
    [
        ("seeker", "Hi! I love funny movies, can you recommend a comedy?"),
        ("recommender", "You could watch Saw (2004)."),
        ("seeker", "No, I hated that one, it is too scary and gory for me."),
        ("recommender", "How about The Exorcist (1973)?"),
        ("seeker", "That is a horror movie too, I don't like those at all. Never mind, bye."),
    ],
)


def test_a_saved_model_tags_new_dialogues_and_is_reused(trained, monkeypatch):
    folder, model = trained
    monkeypatch.setattr(act_models, "train_act_model", lambda *a, **k: pytest.fail("the saved model must be reused"))
    loaded, encoder = act_model(folder)
    happy, unhappy = loaded.tag([HAPPY, UNHAPPY], encoder)
    again = model.tag([HAPPY, UNHAPPY], encoder)
    assert [u.acts for u in happy.utterances] == [u.acts for u in again[0].utterances]  # the saved model is the model
    tops = [top_of(u.role, u.acts) for u in happy.utterances]
    assert "AskForRec" in tops[0] and "Request" in tops[1] and "Recommend" in tops[3]
    assert "ACC" in happy.utterances[4].acts and "REJ" in unhappy.utterances[2].acts
    assert happy.satisfaction > unhappy.satisfaction + 0.1  # measured 0.45 and 0.23


def test_missing_model_without_iard_names_both(tmp_path):
    with pytest.raises(act_models.SynthError, match="no act model in .* and no IARD data at .*synth acts train"):
        act_model(tmp_path / "model", iard=tmp_path / "iard.json", encoder=load_encoder(None))


def _tagged(acts: list[tuple[str, list[str]]], satisfaction: float = 0.9) -> TaggedDialogue:
    return TaggedDialogue(
        "d", [TaggedUtterance(role, "", codes, np.zeros(len(TAXONOMY[role]))) for role, codes in acts], satisfaction
    )


def _hand_made_tally(unit: str) -> _Tally:
    tally = _Tally(unit)
    scripted = [("recommender", ["REQ", "OTH"]), ("seeker", ["IQU"])]
    tally.add(
        _tagged(scripted + [("recommender", ["OTH"]), ("recommender", ["REQ"]), ("seeker", ["PRO"]),
                            ("recommender", ["CLQ"]), ("seeker", ["ANS"]), ("recommender", ["REC-S", "EXP-P"]),
                            ("seeker", ["ACC"])]),
        skip=2,
    )
    tally.add(_tagged([("seeker", ["IQU"]), ("recommender", ["REC-E"]), ("seeker", ["REJ"])], satisfaction=0.2))
    tally.add(_tagged([("seeker", ["OTH"]), ("recommender", ["OTH"])], satisfaction=0.4))
    return tally


def test_the_profile_counts_turns_with_their_messages_acts_united():
    profile = _hand_made_tally("turn").profile("hand-made")
    # the first dialogue's "OTH" and "REQ" messages after the scripted opening are one recommender turn
    assert profile.unit == "turn" and profile.utterances == {"recommender": 5, "seeker": 6}
    assert profile.sub["recommender"]["REQ"] == pytest.approx(1 / 5) and profile.sub["recommender"]["OTH"] == 0.4
    assert profile.requests_before_recommendation_shares == {"0": 0.5, "1": 0.0, "2": 0.5, "3+": 0.0}
    assert profile.utterances_before_recommendation == pytest.approx((4 + 1) / 2)
    assert profile.openings[0] == ("Request > Request > Recommend+Explain", pytest.approx(1 / 3))
    assert ("S:AskForRec > R:Recommend > S:GiveFeedback", pytest.approx(1 / 5)) in profile.trigrams


def test_the_profile_counts_requests_before_the_first_recommendation_and_skips_the_scripted_opening():
    profile = _hand_made_tally("message").profile("hand-made")
    assert profile.unit == "message"
    assert profile.dialogues == 3 and profile.utterances == {"recommender": 6, "seeker": 6}
    assert profile.with_recommendation == pytest.approx(2 / 3)
    assert profile.requests_before_recommendation == 1.0  # 2, then 0
    assert profile.requests_before_recommendation_shares == {"0": 0.5, "1": 0.0, "2": 0.5, "3+": 0.0}
    assert profile.utterances_before_recommendation == pytest.approx((5 + 1) / 2)
    assert profile.openings[0] == ("Request > Request > Recommend+Explain", pytest.approx(1 / 3))
    assert profile.sub["recommender"]["REQ"] == pytest.approx(1 / 6)  # the scripted REQ is not counted
    assert profile.top["seeker"]["GiveFeedback"] == pytest.approx(2 / 6)
    assert profile.satisfaction_mean == pytest.approx(0.5) and profile.satisfied_share == pytest.approx(1 / 3)
    # OTH-only utterances leave the sequences: 4 trigrams in the first dialogue, 1 in the second
    assert ("S:AskForRec > R:Recommend > S:GiveFeedback", pytest.approx(1 / 5)) in profile.trigrams


def test_stats_acts_side_by_side_with_a_plot(trained, scripted_run, tmp_path):
    folder, _ = trained
    plots = tmp_path / "plots"
    args = ["stats", f"ReDial test={REDIAL_TEST}", str(scripted_run), "--sample", "30", "--no-similarity", "--acts",
            "--acts-model", str(folder), "--fidelity-resamples", "200"]
    result = invoke_synth(*args, "--json", "--plot", str(plots))
    assert result.returncode == 0, result.stderr
    redial, run = json.loads(result.stdout)
    for stats in (redial, run):
        acts = stats["acts"]
        assert acts["dialogues"] == stats["dialogues"] and acts["name"] == stats["name"]
        for role in ("seeker", "recommender"):
            assert set(acts["sub"][role]) == set(TAXONOMY[role])
            assert any(share > 0 for share in acts["sub"][role].values())
    assert (redial["acts"]["dialogues"], run["acts"]["dialogues"]) == (30, 20)  # the statistics' sample; the whole run
    assert redial["acts"]["utterances"]["seeker"] > 100  # ReDial test has 11.7 turns per dialogue
    assert (plots / "acts.png").read_bytes().startswith(b"\x89PNG")
    profiles = [ActProfile(**stats["acts"]) for stats in (redial, run)]
    rows = share_rows(profiles) + sequence_rows(profiles) + fidelity_rows(profiles)
    labels = "\n".join(label for label, _ in rows)
    for line in ("IQU Initial Query", "REC-S Recommend-Show", "requests before the 1st recommendation",
                 "turns before the 1st recommendation", "JSD seeker acts", "sum (fidelity divergence)",
                 "words per recommender turn"):
        assert line in labels
    assert dict(rows)["JSD recommender acts"][0] == "reference"
    # the fidelity: the run against the first dataset, ReDial
    assert redial["acts"]["unit"] == run["acts"]["unit"] == "turn" and redial["acts"]["fidelity"] is None
    found = run["acts"]["fidelity"]
    assert (found["reference"], found["resamples"], found["dialogues"], found["reference_dialogues"]) == (
        "ReDial test", 200, 20, 30)
    parts = [found[name] for name in ("seeker_acts", "recommender_acts", "requests_before_recommendation")]
    assert all(0 < part["value"] <= 1 and part["low"] <= part["high"] for part in parts), parts
    assert found["sum"]["value"] == pytest.approx(sum(part["value"] for part in parts))
    assert found["reference_words"]["recommender"] > 8 and found["words"]["recommender"] > 0  # ReDial: 10.3

    per_message = invoke_synth(*args, "--json", "--per-message")
    assert per_message.returncode == 0, per_message.stderr
    redial_messages, run_messages = (stats["acts"] for stats in json.loads(per_message.stdout))
    assert redial_messages["unit"] == run_messages["fidelity"]["unit"] == "message"
    assert redial_messages["utterances"]["seeker"] > redial["acts"]["utterances"]["seeker"]  # turns span messages
    assert run_messages["utterances"] == run["acts"]["utterances"]  # synth's speakers alternate
    assert run_messages["sub"] == run["acts"]["sub"]

    text = invoke_synth(*args, "--sample", "10")
    assert text.returncode == 0, text.stderr
    printed = " ".join(text.stdout.split())
    for line in ("fidelity to the reference", "JSD requests before 1st recommendation", "from ReDial test",
                 "share of seeker turns"):
        assert line in printed, line


def test_satisfaction_filter_drops_with_the_score_and_the_seeker_turn(trained, scripted_run, tmp_path):
    folder, _ = trained
    strict = invoke_synth("filter", str(scripted_run), "--out", str(tmp_path / "strict"), "--filters", "satisfaction",
                       "--set", f"satisfaction.model={folder}", "--set", "satisfaction.min_score=1", "--json",
                       "--no-progress")
    assert strict.returncode == 0, strict.stderr
    assert json.loads(strict.stdout)["dropped"] == 20  # no score reaches 1
    drop = json.loads((tmp_path / "strict" / "dropped.jsonl").read_text().splitlines()[0])["drops"][0]
    assert drop["filter"] == "satisfaction" and drop["reason"].startswith("predicted satisfaction 0.")
    record = json.loads((tmp_path / "strict" / "dropped.jsonl").read_text().splitlines()[0])["record"]
    turn = record["turns"][drop["turn"]]
    assert turn["role"] == "seeker" and turn["text"].startswith(drop["evidence"].rstrip("…"))
    config = FilterConfig(filters=["basic", "satisfaction"], satisfaction={"model": folder, "min_score": 0})
    lenient = asyncio.run(filter_run(scripted_run, tmp_path / "lenient", config))
    satisfaction = lenient.filters["satisfaction"]
    assert (satisfaction.ran_on, satisfaction.dropped) == (20, 0)


def test_report_shows_the_acts_when_a_model_is_saved(trained, scripted_run, tmp_path):
    folder, _ = trained
    options = ReportOptions(compare=[f"ReDial test={REDIAL_TEST}"], acts_model=folder, sample=30, similarity_model=None,
                            fidelity_resamples=100)
    summary = write_report(scripted_run, tmp_path / "report.html", options)  # acts: on, since a model is saved
    html = (tmp_path / "report.html").read_text()
    section = re.search(r'<section id="acts">.*?</section>', html, re.S).group(0)
    assert summary.acts and "Not in this report" not in section
    for line in ("IQU Initial Query", "REC-S Recommend-Show", "requests before the 1st recommendation (mean)",
                 "JSD seeker acts", "sum (fidelity divergence)", "from ReDial test", "<td>reference</td>"):
        assert line in section, line
    assert section.count('src="data:image/png;base64,') == 1
    without = write_report(scripted_run, tmp_path / "none.html", ReportOptions(compare=[], acts_model=tmp_path / "none",
                                                                               similarity_model=None))
    assert not without.acts and "Not in this report: pass --acts" in (tmp_path / "none.html").read_text()
