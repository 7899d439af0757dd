"""Dialogue loaders on the real shared datasets, on the fixtures we author, and on bad input."""

import json
from pathlib import Path

import pytest

from synth.data.bad_lines import BadLines
from synth.data.paths import shared_data_root
from synth.data.redial import load_redial_movies
from synth.datasets import detect_format, load_dialogues
from synth.errors import InputError

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"


def shared(relative: str) -> Path:
    path = shared_data_root() / relative
    assert path.exists(), f"shared dataset file missing: {path} (run from the repo root or set SYNTH_SHARED_DATA)"
    return path


def by_id(dialogues):
    return {dialogue.id: dialogue for dialogue in dialogues}


def turn_count(dialogues):
    return sum(len(dialogue.turns) for dialogue in dialogues)


@pytest.fixture(scope="module")
def redial_test():
    return by_id(load_dialogues(shared("redial/test_data.jsonl"), "redial"))


def test_redial_counts_roles_and_mentions(redial_test):
    assert (len(redial_test), turn_count(redial_test.values())) == (1342, 23952)
    dialogue = redial_test["20001"]
    assert (dialogue.seeker_id, dialogue.recommender_id) == ("956", "957")
    first, second, third, fourth = dialogue.turns[:4]
    assert (first.role, first.items, first.meta["messageId"]) == ("seeker", ["111776"], 204171)
    assert second.role == "recommender" and second.items == ["151656"]
    assert third.role == fourth.role == "seeker"  # consecutive messages stay separate turns
    assert dialogue.items["151656"] == "Police Academy (1984)"  # "Police Academy  (1984)" upstream
    assert dialogue.items["192131"] == "American Pie"  # trailing space upstream
    assert redial_test["21239"].items["119662"] == "What About Bob? (1991)"  # "What About Bob%3F (1991)" upstream
    assert all(set(turn.items) <= set(d.items) for d in redial_test.values() for turn in d.turns)
    assert dialogue.meta["respondentQuestions"]["111776"] == {"suggested": 0, "seen": 1, "liked": 1}


def test_redial_empty_questionnaires_and_train_subset(redial_test):
    unanswered = redial_test["20291"]  # both forms are [] upstream
    assert unanswered.meta["initiatorQuestions"] == unanswered.meta["respondentQuestions"] == {}
    assert unanswered.meta["conversationId"] == "20291" and len(unanswered.turns) == 22
    train = by_id(load_dialogues(shared("redial/train_subset_kgsf_valid.jsonl")))
    assert (len(train), turn_count(train.values())) == (901, 16397)
    assert train["12269"].turns[31].text == ""  # empty messages are kept as turns


def test_redial_movies_table():
    movies = load_redial_movies(shared("redial/movies_with_mentions.csv"))
    assert len(movies) == 6924
    assert movies["151656"] == ("Police Academy", 1984, 21)
    assert movies["76171"].title == "The Mummy" and movies["76171"].year is None
    assert movies["87947"] == ("Why Did I Get Married?", 2007, 7)  # URL-escaped upstream


def test_inspired_literal_columns_labels_and_the_broken_cell():
    test = load_dialogues(shared("inspired/data/dialog_data/test.tsv"))
    assert (len(test), turn_count(test)) == (99, 3438)
    first = test[0]
    assert first.id == "20191127-224739_530_live.pkl"
    assert first.meta["movie_dict"] == {
        "Hustlers (2019)": 0,
        "Deadpool (2016)": 1,
        "A Beautiful Day in the Neighborhood (2019)": 2,
    }
    assert first.meta["actor_dict"] == {"Tom Hanks": 0} and first.meta["others_dict"] == {}
    assert (first.meta["coarse_label"], first.meta["movie_id"]) == ("accept_new", "XQw658a-8UQ")
    assert first.turns[1].role == "recommender" and first.turns[1].meta["strategies"] == ["offer_help"]
    assert {"Hustlers (2019)", "Deadpool (2016)"} <= set(first.items)
    assert all(set(turn.items) <= set(d.items) for d in test for turn in d.turns)

    dev = shared("inspired/data/dialog_data/dev.tsv")
    with pytest.raises(InputError, match=r"dev.tsv, line 2896, field 'movie_dict': not a Python literal"):
        load_dialogues(dev)
    skipping = BadLines(skip=True)
    dialogues = by_id(load_dialogues(dev, bad_lines=skipping))
    assert (len(dialogues), turn_count(dialogues.values()), skipping.skipped) == (99, 3538, 1)
    assert "movie_dict" not in dialogues["20200305-072858_888_live.pkl"].meta
    quoted = dialogues["20191202-103716_425_live.pkl"].turns[12]
    assert quoted.text.startswith('I guess the "future"') and quoted.items == ["The Future (2011)"]


def test_iard_labels_and_satisfaction():
    dialogues = by_id(load_dialogues(shared("iard/umap2020_IARD_Cai.json")))
    assert (len(dialogues), turn_count(dialogues.values())) == (336, 4583)
    assert sum(d.meta["satisfied"] for d in dialogues.values()) == 253
    assert all(turn.meta["acts"] and turn.meta["top_acts"] for d in dialogues.values() for turn in d.turns)
    dialogue = dialogues["474"]
    assert dialogue.meta["accepted_recommendation"] == [13] and dialogue.meta["satisfied"]
    recommend = dialogue.turns[1]
    assert (recommend.role, recommend.items, recommend.meta["acts"]) == ("recommender", ["187028"], ["REC-E"])
    assert dialogue.turns[0].meta["acts"] == ["OTH", "IQU"]
    assert dialogue.items["187028"] == "It (2017)"  # "<It  (2017)>" upstream


def test_pearl_fixture():
    dialogues = load_dialogues(FIXTURES / "pearl_sample.json")
    assert [len(d.turns) for d in dialogues] == [5, 7, 5]
    first = dialogues[0]
    assert [turn.role for turn in first.turns[:2]] == ["seeker", "recommender"]
    assert first.turns[0].text.startswith("Hi! I want") and first.turns[-1].text.endswith("[EOD]")
    assert first.meta["gt_movie_title"] == "Knives Out (2019)" and first.meta["gt_genre"] == "Mystery"
    assert dialogues[1].meta["seen_movie_titles"] == ["WALL-E (2008)"]


def test_gorecdial_fixture():
    dialogues = load_dialogues(FIXTURES / "gorecdial_sample.txt")
    assert [d.id for d in dialogues] == ["1", "2"] and [len(d.turns) for d in dialogues] == [6, 6]
    first = dialogues[0]
    assert [turn.role for turn in first.turns] == ["seeker", "recommender"] * 3
    assert first.turns[0].text.startswith("Hi! I am into")  # the context lines are not part of the utterance
    assert first.meta["context"][1].startswith("expert movies:") and first.meta["context_items"][0] == "2571"
    assert first.turns[2].items == ["1240", "1200"] and first.turns[3].items == ["541"]
    assert "\t" in dialogues[1].turns[3].text  # ParlAI's "\t" escape
    assert dialogues[1].turns[-1].meta == {"reward": "1"}


def test_detect_format_on_every_source():
    files = {
        "redial/test_data.jsonl": "redial",
        "redial/train_subset_kgsf_valid.jsonl": "redial",
        "inspired/data/dialog_data/test.tsv": "inspired",
        "iard/umap2020_IARD_Cai.json": "iard",
    }
    assert {name: detect_format(shared(name)) for name in files} == files
    assert detect_format(FIXTURES / "pearl_sample.json") == "pearl"
    assert detect_format(FIXTURES / "gorecdial_sample.txt") == "gorecdial"


def redial_line(conversation_id: str) -> str:
    record = {
        "conversationId": conversation_id,
        "initiatorWorkerId": 1,
        "respondentWorkerId": 2,
        "messages": [
            {"messageId": 1, "text": "Anything like @10?", "senderWorkerId": 1, "timeOffset": 0},
            {"messageId": 2, "text": "Try @20", "senderWorkerId": 2, "timeOffset": 5},
        ],
        "movieMentions": {"10": "Heat (1995)", "20": "Ronin  (1998)"},
        "initiatorQuestions": [],
        "respondentQuestions": {"20": {"suggested": 1, "seen": 0, "liked": 1}},
    }
    return json.dumps(record)


def test_bad_redial_lines_are_located_and_skippable(tmp_path):
    no_messages = json.loads(redial_line("c"))
    del no_messages["messages"]
    path = tmp_path / "bad.jsonl"
    lines = [redial_line("a"), '{"conversationId": ', redial_line("b"), json.dumps(no_messages)]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl, line 2: not valid JSON"):
        load_dialogues(path)
    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps(no_messages) + "\n")
    with pytest.raises(InputError, match=r"missing.jsonl, line 1, field 'messages': missing"):
        load_dialogues(missing, "redial")
    skipping = BadLines(skip=True)
    dialogues = load_dialogues(path, "redial", bad_lines=skipping)
    assert [d.id for d in dialogues] == ["a", "b"] and dialogues[0].items["20"] == "Ronin (1998)"
    assert skipping.skipped == 2 and "line 4, field 'messages'" in skipping.warnings[1]


def test_other_bad_inputs(tmp_path):
    pearl = tmp_path / "p.json"
    pearl.write_text(json.dumps([{"dialogue": ["Seeker: hi"]}, {"dialogue": ["Seeker: hi", "Narrator: meanwhile"]}]))
    with pytest.raises(InputError, match=r"p.json, line 2, field 'dialogue': utterance 2 starts with neither"):
        load_dialogues(pearl)
    gorecdial = tmp_path / "g.txt"
    gorecdial.write_text("text:hi\tlabels:hello\tepisode_done:True\ntext:no reply\tepisode_done:True\n")
    with pytest.raises(InputError, match=r"g.txt, line 2, field 'labels': missing"):
        load_dialogues(gorecdial)
    iard = tmp_path / "i.json"
    iard.write_text(json.dumps({"7": {"accepted_recommendation": [], "dialogue_info": {"S1": {"role": "seeker"}}}}))
    with pytest.raises(InputError, match=r"i.json, line 1, field '7.dialogue_info.S1.utterance_pos': missing"):
        load_dialogues(iard, "iard")
    short = tmp_path / "s.tsv"
    short.write_text("dialog_id\tutt_id\tspeaker\tturn_id\ttext\nd1\t1\tSEEKER\t1\n")
    with pytest.raises(InputError, match=r"s.tsv, line 2: the row does not have as many"):
        load_dialogues(short)


def test_unknown_and_undetectable_formats(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    with pytest.raises(InputError, match=r"unknown dialogue format 'msdialog'; known formats: redial, inspired"):
        load_dialogues(path, "msdialog")
    with pytest.raises(InputError, match=r"notes.txt: cannot tell the dialogue format"):
        load_dialogues(path)


def test_a_synth_run_is_one_more_dialogue_format(scripted_run):
    assert detect_format(scripted_run) == detect_format(scripted_run / "dialogues.jsonl") == "synth"
    dialogues = load_dialogues(scripted_run)
    assert len(dialogues) == 20 and all(d.source == "synth" and d.seeker_id for d in dialogues)
    recommended = [t for d in dialogues for t in d.turns if t.items]
    assert recommended and all(t.role == "recommender" and len(t.items) == 1 for t in recommended)
