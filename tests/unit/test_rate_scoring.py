"""`synth rate score` (#65): win rates and ties, defect rates and the share judged sound, each item counting once;
Krippendorff's alpha against its published values; ratings that do not match the key refused with one line naming
the file, line and field."""

import json

import pytest

from synth.analysis.intervals import mean_interval
from synth.errors import InputError
from synth.rating.agreement import nominal_alpha
from synth.rating.key import Key, KeyItem, write_key
from synth.rating.ratings import read_ratings
from synth.rating.scoring import score
from synth.rating.tables import markdown
from tests.helpers import run_synth

CRITERIA = {"a": "Which is better at a?", "b": "Which is better at b?"}
CATEGORIES = {"false_fact": "a false fact", "other_role": "the other role"}
SOURCES = {"gen": "runs/gen", "human": "redial-test"}


def pair(left: str, right: str) -> KeyItem:
    return KeyItem(sources=[left, right], dialogues=[f"{left}-d", f"{right}-d"], turns=[4, 4])


HEAD_TO_HEAD = Key(
    round="r1", protocol="head-to-head", criteria=CRITERIA, sources=SOURCES, seed=0,
    items={"i1": pair("gen", "human"), "i2": pair("human", "gen"), "i3": pair("gen", "human"), "i4": pair("human", "gen")},
    raters={"rater-1": ["i1", "i2", "i3"], "rater-2": ["i1", "i2", "i4"]}, overlap=["i1", "i2"],
)
DEFECTS = Key(
    round="r2", protocol="defects", criteria=CATEGORIES, sources=SOURCES, seed=0,
    items={"j1": KeyItem(sources=["gen"], dialogues=["g1"], turns=[6]),
           "j2": KeyItem(sources=["gen"], dialogues=["g2"], turns=[4]),
           "j3": KeyItem(sources=["human"], dialogues=["h1"], turns=[5])},
    raters={"rater-1": ["j1", "j2", "j3"], "rater-2": ["j1"]}, overlap=["j1"],
)


def choice(rater: str, item: str, a: str, b: str) -> dict:
    return {"round": "r1", "rater": rater, "item": item, "choices": {"a": a, "b": b}}


def verdict(rater: str, item: str, sound: bool, defects: dict, notes: dict | None = None) -> dict:
    return {"round": "r2", "rater": rater, "item": item, "sound": sound, "defects": defects, "notes": notes or {}}


# rater-1: i1 gen (left) wins a, i2 gen (right) wins a, i3 a tie; rater-2: i1 gen wins a, i2 a tie, i4 human wins a;
# b: everyone picks the left dialogue
CHOICES = [choice("rater-1", "i1", "left", "left"), choice("rater-1", "i2", "right", "left"),
           choice("rater-1", "i3", "tie", "left"), choice("rater-2", "i1", "left", "left"),
           choice("rater-2", "i2", "tie", "left"), choice("rater-2", "i4", "left", "left")]
VERDICTS = [verdict("rater-1", "j1", False, {"false_fact": [2, 4]}), verdict("rater-1", "j2", True, {}),
            verdict("rater-1", "j3", False, {"other_role": [1]}, {"1": "speaks as the recommender"}),
            verdict("rater-2", "j1", False, {"false_fact": [2], "other_role": [3]})]


def lines_file(path, rows: list) -> list:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return [path]


def test_alpha_matches_krippendorffs_published_examples():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units, nominal: 0.743
    observers = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
                 [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    units = [[value for value in unit if value is not None] for unit in zip(*observers)]
    assert nominal_alpha(units) == pytest.approx(0.743, abs=5e-4)
    # the same paper's two observers, binary data: 0.095
    binary = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert nominal_alpha(zip(*binary)) == pytest.approx(0.095, abs=5e-4)
    assert nominal_alpha([[1, 1], [2, 2]]) == 1.0
    assert nominal_alpha([[1, 1], [1, 1]]) is None and nominal_alpha([[1], [2]]) is None


def test_head_to_head_wins_and_ties_count_each_item_once(tmp_path):
    scores = score(HEAD_TO_HEAD, read_ratings(lines_file(tmp_path / "r.jsonl", CHOICES), HEAD_TO_HEAD))
    assert (scores.items, scores.rated, scores.raters) == (4, 4, ["rater-1", "rater-2"])
    [found] = scores.comparisons
    assert (found.first, found.second, found.items, found.ratings) == ("gen", "human", 4, 6)
    a, b = found.criteria["a"], found.criteria["b"]
    # per item, a: gen wins 1, 1/2, 0, 0; ties 0, 1/2, 1, 0; human wins 0, 0, 0, 1
    assert (a.first_wins.share, a.ties.share, a.second_wins.share) == (0.375, 0.375, 0.25)
    assert (a.first_wins.ratings, a.ties.ratings, a.second_wins.ratings) == (3, 2, 1)
    assert a.first_wins.interval == mean_interval([1, 0.5, 0, 0])
    assert (b.first_wins.share, b.ties.share, b.second_wins.share) == (0.5, 0.0, 0.5)
    # rated twice: i1 (gen, gen) and i2 (gen, tie) on a: alpha 0; on b (gen, gen) and (human, human): 1
    assert [(g.measure, g.items, g.ratings, g.alpha) for g in scores.agreement] == [("a", 2, 4, 0.0), ("b", 2, 4, 1.0)]
    table = markdown(scores)
    assert "### Head to head: gen against human" in table
    assert "| Which is better at a? | 38% [" in table and "| Which is better at b? | 50% [0%, 100%] (3) |" in table


def test_defects_rates_and_sound_share_per_source(tmp_path):
    scores = score(DEFECTS, read_ratings(lines_file(tmp_path / "r.jsonl", VERDICTS), DEFECTS))
    gen, human = scores.defects
    assert (gen.source, gen.items, gen.ratings, human.items) == ("gen", 2, 3, 1)
    assert (gen.sound.share, gen.sound.ratings, human.sound.share) == (0.5, 1, 0.0)
    assert (gen.categories["false_fact"].share, gen.categories["other_role"].share) == (0.5, 0.25)
    assert gen.turns == {"false_fact": 3, "other_role": 1} and human.turns == {"false_fact": 0, "other_role": 1}
    # only j1 rated twice: both not sound and both a false fact (one value: undefined), other_role split: 0
    assert [(g.measure, g.alpha) for g in scores.agreement] == [("sound", None), ("false_fact", None), ("other_role", 0.0)]
    table = markdown(scores)
    assert "| judged sound | 50% [0%, 100%] (1) | 0% [0%, 0%] (0) |" in table
    assert "| a false fact | 50% [0%, 100%] (2); turns: 3 | 0% [0%, 0%] (0); turns: 0 |" in table


BAD_HEAD_TO_HEAD = [
    ({"round": "r0"}, "round", "from another round ('r0'; this key's is 'r1')"),
    ({"rater": "rater-9"}, "rater", "no rater 'rater-9' in the key (its raters: rater-1, rater-2)"),
    ({"item": "i9"}, "item", "item 'i9' is not in the key"),
    ({"item": "i4"}, "item", "item 'i4' is not on this rater's page"),
    ({"choices": {"a": "left"}}, "choices.b", "missing"),
    ({"choices": {"a": "left", "b": "left", "c": "tie"}}, "choices.c", "not one of the key's criteria (a, b)"),
    ({"choices": {"a": "both", "b": "left"}}, "choices.a", "Input should be 'left', 'right' or 'tie'"),
    ({"source": "gen"}, "source", "Extra inputs are not permitted"),
]


@pytest.mark.parametrize("change, field, message", BAD_HEAD_TO_HEAD)
def test_a_head_to_head_rating_off_the_key_is_refused(tmp_path, change, field, message):
    paths = lines_file(tmp_path / "r.jsonl", [CHOICES[0], CHOICES[1] | change])
    with pytest.raises(InputError) as caught:
        read_ratings(paths, HEAD_TO_HEAD)
    assert str(caught.value) == f"{paths[0]}, line 2, field '{field}': {message}"


@pytest.mark.parametrize("change, field, message", [
    ({"defects": {"false_fact": [7]}}, "defects.false_fact", "turn 7 is not in the dialogue (turns 1-6)"),
    ({"defects": {"rude": [1]}}, "defects.rude", "not one of the key's categories (false_fact, other_role)"),
    ({"notes": {"0": "?"}}, "notes.0", "not a turn of the dialogue (turns 1-6)"),
    ({"sound": "yes"}, "sound", "Input should be a valid boolean"),
])
def test_a_defect_rating_off_the_key_is_refused(tmp_path, change, field, message):
    paths = lines_file(tmp_path / "r.jsonl", [VERDICTS[0] | change])
    with pytest.raises(InputError) as caught:
        read_ratings(paths, DEFECTS)
    assert str(caught.value) == f"{paths[0]}, line 1, field '{field}': {message}"


def test_an_item_rated_twice_by_one_rater_and_a_line_not_json_are_refused(tmp_path):
    first, second = lines_file(tmp_path / "a.jsonl", CHOICES[:2]), lines_file(tmp_path / "b.jsonl", [CHOICES[1]])
    with pytest.raises(InputError, match=r"b.jsonl, line 1, field 'item': rater-1 rated item i2 before \(.*a.jsonl, line 2\)"):
        read_ratings(first + second, HEAD_TO_HEAD)
    with pytest.raises(InputError, match=r"c.jsonl, line 2: not valid JSON"):
        read_ratings(lines_file(tmp_path / "c.jsonl", [CHOICES[0], "{oops"]), HEAD_TO_HEAD)


def test_the_cli_scores_and_refuses_with_one_line(tmp_path):
    write_key(HEAD_TO_HEAD, tmp_path / "key.json")
    good = lines_file(tmp_path / "good.jsonl", CHOICES)[0]
    result = run_synth("rate", "score", str(tmp_path / "key.json"), str(good), "--out", str(tmp_path / "scores.json"))
    assert result.returncode == 0, result.stderr
    assert "4 of 4 items rated by 2 raters (rater-1, rater-2)." in result.stdout
    assert json.loads((tmp_path / "scores.json").read_text())["comparisons"][0]["criteria"]["a"]["first_wins"]["share"] == 0.375
    bad = lines_file(tmp_path / "bad.jsonl", [CHOICES[0] | {"item": "i9"}])[0]
    result = run_synth("rate", "score", str(tmp_path / "key.json"), str(bad))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"error: {bad}, line 1, field 'item': item 'i9' is not in the key\n"
