import json

import pytest

from synth.records import Item
from synth.replies import (
    END_MARKER,
    UTTERANCE_MAX_CHARS,
    ReplyFormatError,
    extract_json,
    normalise_title,
    parse_recommender,
    parse_seeker,
    recommender_schema,
    seeker_schema,
    trim_at_cap,
)

HEAT = Item(id="m1", title="Heat", year=1995, genres=["Crime"])
UP = Item(id="m2", title="Up", year=2009, genres=["Animation"])


def test_extract_json_bare_fenced_and_in_prose():
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Sure!\n```json\n{"a": 2}\n```') == {"a": 2}
    with pytest.raises(ReplyFormatError, match="no JSON object"):
        extract_json("I would recommend Heat.")
    with pytest.raises(ReplyFormatError, match="broken JSON"):
        extract_json('{"utterance": "cut off')
    with pytest.raises(ReplyFormatError, match="not an object"):
        extract_json("[1, 2]")


def test_seeker_accept_gets_end_marker_and_reject_loses_it():
    accepted = parse_seeker('{"utterance": "Seeker: Perfect, thanks!", "accept": true}', decides=True)
    assert accepted.accept is True and accepted.utterance == f"Perfect, thanks! {END_MARKER}"
    rejected = parse_seeker('{"utterance": "No thanks [EOD]", "accept": false}', decides=True)
    assert rejected.accept is False and END_MARKER not in rejected.utterance
    plain = parse_seeker('{"utterance": "I like westerns."}', decides=False)
    assert plain.accept is None


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"utterance": ""}', "empty"),
        ('{"utterance": "[EOD]", "accept": true}', "only the end marker"),
        ('{"utterance": "ok", "accept": "yes"}', "accept"),
        ('{"text": "ok", "accept": true}', "utterance"),
    ],
)
def test_seeker_format_errors(text, problem):
    with pytest.raises(ReplyFormatError, match=problem):
        parse_seeker(text, decides=True)


def test_recommender_item_matching():
    exact = parse_recommender('{"think": "t", "item": "Heat (1995)", "utterance": "Try Heat."}', [HEAT, UP])
    assert exact.item_id == "m1" and exact.think == "t"
    loose = parse_recommender('{"think": "t", "item": "heat", "utterance": "Try it."}', [HEAT, UP])
    assert loose.item_id == "m1"
    from_text = parse_recommender('{"think": "t", "item": "??", "utterance": "You would love Up!"}', [HEAT, UP])
    assert from_text.item_id == "m2"
    with pytest.raises(ReplyFormatError, match="not one of the candidates"):
        parse_recommender('{"think": "t", "item": "Jaws", "utterance": "Try Jaws."}', [HEAT, UP])
    # a title inside another word is no mention: "up" in "upbeat"
    with pytest.raises(ReplyFormatError):
        parse_recommender('{"think": "t", "item": "?", "utterance": "Something upbeat."}', [HEAT, UP])
    asking = parse_recommender('{"think": "t", "utterance": "What do you like?"}', None)
    assert asking.item_id is None


def test_schemas_constrain_the_choice():
    schema = recommender_schema([HEAT, UP])
    assert list(schema["properties"]) == ["think", "item", "utterance"]
    assert schema["properties"]["item"]["enum"] == ["Heat (1995)", "Up (2009)"]
    assert "item" not in recommender_schema(None)["properties"]
    assert seeker_schema(True)["required"] == ["utterance", "accept"]
    assert seeker_schema(False)["required"] == ["utterance"]


def test_normalise_title():
    assert normalise_title("The Matrix (1999)") == "the matrix"
    assert normalise_title("Ocean's Eleven") == "ocean s eleven"


def test_an_utterance_cut_by_the_length_cap_ends_at_its_last_sentence():
    whole = "I'd love something light. It should make me laugh!"
    cut = (whole + " Maybe a comedy with " + "a lot of heart and " * 20)[:UTTERANCE_MAX_CHARS]
    assert trim_at_cap(cut) == whole
    reply = parse_seeker(json.dumps({"utterance": cut, "accept": True}), decides=True)
    assert reply.utterance == whole + " [EOD]"
    assert trim_at_cap(whole) == whole  # short texts are left alone


def test_one_long_sentence_cut_by_the_cap_trails_off_instead_of_failing():
    """The plan's length is a target for the model: a reply cut before its first sentence ended is kept,
    ending at its last clause (or word) with an ellipsis, without a dangling word."""
    sentence = "I really loved the slow way the story unfolds, with all of those quiet characters and the music that"
    assert trim_at_cap(sentence, 100) == "I really loved the slow way the story unfolds, with all of those quiet characters and the music…"
    assert trim_at_cap(("and then " * 50)[:UTTERANCE_MAX_CHARS]).endswith("then…")
    reply = parse_seeker(json.dumps({"utterance": sentence}), decides=False, max_chars=100)
    assert reply.utterance.endswith("the music…")
