"""The DialogueKit / UserSimCRS export of a run: read back by synth's loader, read by DialogueKit's own reader
(annotations at the right characters), and an item collection that holds every rated and mentioned item."""

import csv
import json

import pytest

from synth.data.dialoguekit import load_dialoguekit
from synth.data.mentions import TitleTagger, clean_text, dialogue_items
from synth.data.title_match import normalise, title_key
from synth.errors import InputError
from synth.export.dialoguekit import AGENT_ID, dialoguekit_object, export_dialoguekit, stars
from synth.export.splits import RunSplits
from synth.runs.folder import RunFolder

SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}
FILES = {"train": "train_dialogues.json", "validation": "valid_dialogues.json", "test": "test_dialogues.json"}


@pytest.fixture(scope="module")
def exported(scripted_run, tmp_path_factory):
    """(run, export folder, splits, the marker's facts) of the scripted run exported once."""
    run = RunFolder.open(scripted_run)
    folder = tmp_path_factory.mktemp("dialoguekit")
    splits = RunSplits.of(run, SHARES, 0)
    return run, folder, splits, export_dialoguekit(run, folder, splits)


def _spoken(record):
    return [(turn.role, clean_text(turn.text)) for turn in record.turns if clean_text(turn.text)]


def test_the_export_reads_back_with_its_utterances_roles_and_items(exported):
    run, folder, splits, facts = exported
    records = {record.id: record for record in run.records()}
    assert facts["mentions"]["share"] == 1.0 and not facts["mentions"]["dialogues_without_mentions"]
    assert set(splits.names) == set(SHARES)
    dialogues = load_dialoguekit(folder / "all_dialogues.json")
    assert [d.id for d in dialogues] == list(records)
    for dialogue in dialogues:
        record = records[dialogue.id]
        assert dialogue.source == "dialoguekit"
        assert [(t.role, t.text) for t in dialogue.turns] == _spoken(record)
        assert (dialogue.seeker_id, dialogue.recommender_id) == (record.user_id, AGENT_ID)
        assert dialogue.meta["target_item"] == record.target_item.id
        tagger = TitleTagger(dialogue_items(record, run.items))
        for turn in dialogue.turns:
            assert turn.items == list(dict.fromkeys(m.item for m in tagger.find(turn.text)))
        recommended = {t.recommended_item for t in record.turns if t.recommended_item}
        assert recommended <= {item for turn in dialogue.turns for item in turn.items}
        assert all(dialogue.items[item] == run.items[item].display for item in dialogue.items)
        acts = [act for turn in dialogue.turns for act in turn.meta.get("acts", [])]
        assert acts.count("REC-S") == len([t for t in record.turns if t.recommended_item])
        answers = [t.accepted for t in record.turns if t.role == "seeker" and t.accepted is not None]
        assert (acts.count("ACC"), acts.count("REJ")) == (answers.count(True), answers.count(False))
    in_splits = [d.id for split in splits.names for d in load_dialoguekit(folder / FILES[split])]
    assert sorted(in_splits) == sorted(records)


def test_dialoguekit_reads_every_split_with_annotations_at_the_titles(exported):
    reader = pytest.importorskip("dialoguekit.utils.dialogue_reader")
    from dialoguekit.participant import DialogueParticipant

    run, folder, splits, _ = exported
    records = {record.id: record for record in run.records()}
    read = annotated = 0
    for split in splits.names:
        raw = json.loads((folder / FILES[split]).read_text(encoding="utf-8"))
        dialogues = reader.json_to_dialogues(str(folder / FILES[split]))
        assert len(dialogues) == len(raw) > 0
        for dialogue in dialogues:
            record = records[dialogue.conversation_id]
            spoken = _spoken(record)
            assert (dialogue.user_id, dialogue.agent_id) == (record.user_id, AGENT_ID)
            assert [u.text for u in dialogue.utterances] == [text for _, text in spoken]
            roles = [DialogueParticipant.USER if role == "seeker" else DialogueParticipant.AGENT for role, _ in spoken]
            assert [u.participant for u in dialogue.utterances] == roles
            tagger = TitleTagger(dialogue_items(record, run.items))
            for utterance in dialogue.utterances:
                slots = [(a.start, a.end, a.value) for act in utterance.dialogue_acts for a in act.annotations]
                ids = utterance.metadata.get("metadata", {}).get("item_ids", [])
                assert [run.items[item].display for item in ids] == [title for _, _, title in slots]
                for (start, end, _), item in zip(slots, ids):  # the characters name the title
                    assert title_key(run.items[item].title) in normalise(utterance.text[start:end])
                found = [(m.start, m.end, run.items[m.item].display) for m in tagger.find(utterance.text)]
                assert sorted(slots) == found
                annotated += len(slots)
            read += 1
    assert read == len(records) and annotated > 0


def test_movies_csv_holds_every_rated_and_mentioned_item(exported):
    run, folder, _, facts = exported
    with (folder / "movies.csv").open(encoding="utf-8", newline="") as table:
        movies = {row["movieId"]: row for row in csv.DictReader(table)}
    assert set(movies) == set(run.items)
    assert all(movies[item.id]["title"] == item.display for item in run.items.values())
    with (folder / "ratings.csv").open(encoding="utf-8", newline="") as table:
        reader = csv.DictReader(table)
        assert reader.fieldnames == ["userId", "movieId", "rating", "timestamp"]
        ratings = list(reader)
    pairs = [(row["userId"], row["movieId"]) for row in ratings]
    assert len(pairs) == len(set(pairs)) == facts["ratings"] > 0
    assert {item for _, item in pairs} <= set(movies)
    assert all(0.5 <= float(row["rating"]) <= 5 for row in ratings)
    expected = {}
    for record in run.records():
        for review in [*record.persona.general, record.persona.target]:
            expected.setdefault((record.user_id, review.item), stars(review.score))
    assert {pair: float(row["rating"]) for pair, row in zip(pairs, ratings)} == expected
    mentioned = {item for d in load_dialoguekit(folder / "all_dialogues.json") for t in d.turns for item in t.items}
    assert mentioned and mentioned <= set(movies)


def test_a_dialoguekit_file_without_item_ids_uses_the_titles_and_bad_ones_are_located(tmp_path):
    path = tmp_path / "dialogues.json"
    utterance = {"participant": "USER", "utterance": "I loved Heat.", "dialogue_acts": [{"intent": "DISCLOSE",
                 "slot_values": [["TITLE", "Heat", 8, 12]]}]}  # fmt: skip
    path.write_text(json.dumps([{"conversation": [utterance, {"participant": "AGENT", "utterance": "Try Ronin."}]}]))
    [dialogue] = load_dialoguekit(path)
    assert dialogue.id == "1" and dialogue.items == {"Heat": "Heat"}
    assert [(t.role, t.items, t.meta) for t in dialogue.turns] == [
        ("seeker", ["Heat"], {"acts": ["DISCLOSE"]}),
        ("recommender", [], {}),
    ]
    path.write_text(json.dumps([{"conversation": [{**utterance, "participant": "BOT"}]}]))
    with pytest.raises(InputError, match=r"line 1, field 'conversation\.0\.participant'"):
        load_dialoguekit(path)
    path.write_text(json.dumps([{"conversation": [{**utterance, "metadata": {"item_ids": ["1", "2"]}}]}]))
    with pytest.raises(InputError, match=r"line 1, field 'conversation\.0\.metadata\.item_ids'"):
        load_dialoguekit(path)


def test_an_answer_carries_the_suggested_title_and_other_titles_have_no_intent(scripted_run):
    run = RunFolder.open(scripted_run)
    record = next(run.records())
    rejected = next(i for i, t in enumerate(record.turns) if t.accepted is False)
    accepted = next(i for i, t in enumerate(record.turns) if t.accepted)
    other = run.items[record.persona.general[0].item]
    target = run.items[record.turns[accepted - 1].recommended_item]
    turns = list(record.turns)
    turns[rejected] = turns[rejected].model_copy(update={"text": f"Not for me, I prefer **{other.title}**."})
    turns[accepted] = turns[accepted].model_copy(update={"text": f"{target.display} sounds great! [EOD]"})
    conversation = dialoguekit_object(record.model_copy(update={"turns": turns}), run)["conversation"]
    no, yes = conversation[rejected], conversation[accepted]
    start = no["utterance"].index(other.title)
    assert no["utterance"] == f"Not for me, I prefer {other.title}."
    assert no["dialogue_acts"] == [
        {"intent": "REJ", "slot_values": []},
        {"slot_values": [["TITLE", other.display, start, start + len(other.title)]]},
    ]
    assert no["metadata"] == {"item_ids": [other.id]}
    assert yes["dialogue_acts"] == [
        {"intent": "ACC", "slot_values": [["TITLE", target.display, 0, len(target.display)]]}
    ]
    assert yes["utterance"] == f"{target.display} sounds great!" and "metadata" not in conversation[0]
