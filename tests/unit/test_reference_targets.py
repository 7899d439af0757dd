"""The target movies of the human reference sets (ReDial, INSPIRED) and a run's coverage of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.data.movielens import split_title
from synth.data.paths import MissingDataset, shared_dataset
from synth.data.reference_targets import REFERENCE_SETS, reference_targets, target_coverage
from synth.errors import SynthError
from synth.records import DialogueRecord, Item

SHARED = pytest.mark.skipif(
    not all(shared_dataset(name).exists() for name in ("redial-test", "inspired-test")),
    reason="the shared datasets are not beside the project",
)
GOLDEN_RUN = Path(__file__).resolve().parents[1] / "golden" / "pearl_run.dialogues.jsonl"
INSPIRED_HEADER = "dialog_id\tutt_id\tspeaker\tturn_id\ttext\tmovies\tcoarse_label"


def items_of(names: list[str]) -> list[Item]:
    """Catalog items named like the reference set's targets, "Title (Year)"."""
    return [Item(id=f"i{index}", title=title, year=year) for index, (title, year) in enumerate(map(split_title, names))]


def redial_line(conversation: int, mentions: dict[str, str], seeker_form: dict, recommender_form: dict) -> str:
    messages = [{"messageId": 1, "text": "hi", "senderWorkerId": 1},
                {"messageId": 2, "text": "hello", "senderWorkerId": 2}]
    return json.dumps({
        "conversationId": str(conversation), "initiatorWorkerId": 1, "respondentWorkerId": 2, "messages": messages,
        "movieMentions": mentions, "initiatorQuestions": seeker_form, "respondentQuestions": recommender_form,
    })


def test_redial_targets_are_the_suggested_movies_the_seeker_liked(tmp_path):
    liked, disliked, own = {"suggested": 1, "seen": 0, "liked": 1}, {"suggested": 1, "seen": 0, "liked": 0}, \
        {"suggested": 0, "seen": 1, "liked": 1}
    mentions = {"1": "Heat (1995)", "2": "Alien (1979)", "3": "Up (2009)", "4": "Heat", "5": "The Heat (1995)"}
    lines = [
        # the seeker's form counts; the recommender's disagrees and is not read
        redial_line(1, mentions, {"1": liked, "2": disliked, "3": own}, {"2": liked}),
        # no seeker form ([] in ReDial): the recommender's answers about the seeker
        redial_line(2, mentions, [], {"2": liked, "3": liked}),
        # a yearless name of a dated target, and the same movie with its article: one target each
        redial_line(3, mentions, {"4": liked, "5": liked, "9": liked}, {}),
    ]
    path = tmp_path / "redial.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert reference_targets(str(path)) == ["Heat (1995)", "Alien (1979)", "Up (2009)"]


def test_inspired_targets_are_the_movies_the_recommender_brought_up(tmp_path):
    rows = [
        "d1\t0\tSEEKER\t0\tI loved Heat\tHeat (1995)\taccept_new",
        "d1\t1\tRECOMMENDER\t1\tThen Ronin or Heat\tRonin (1998); Heat (1995)\taccept_new",
        "d1\t2\tSEEKER\t2\tI'll watch Ronin\tRonin (1998)\taccept_new",
        "d2\t0\tRECOMMENDER\t0\tTry Cats\tCats (2019)\treject_new",  # rejected: no target
        "d3\t0\tRECOMMENDER\t0\tTry Up\tUp (2009)\t",  # no label: the recommended movies
    ]
    path = tmp_path / "inspired.tsv"
    path.write_text("\n".join([INSPIRED_HEADER, *rows]) + "\n")
    assert reference_targets(str(path)) == ["Ronin (1998)", "Up (2009)"]


@SHARED
@pytest.mark.parametrize("name", ["redial-test", "inspired-test"])
def test_a_run_whose_targets_are_the_reference_set_covers_it(name):
    targets = reference_targets(name)
    assert len(targets) == len(set(targets)) > 100
    whole = target_coverage(items_of(targets), name)
    assert (whole.reference, whole.total, whole.covered, whole.uncovered) == (name, len(targets), len(targets), ())
    assert whole.share == 1.0
    half = target_coverage(items_of(targets[::2]), name)
    # every other target, plus a few that the title matcher finds one year off or by their main title
    assert half.covered >= (len(targets) + 1) // 2 and 0.45 < half.share < 0.6
    assert half.uncovered and set(half.uncovered) <= set(targets[1::2])
    assert target_coverage([], name).share == 0.0


@SHARED
def test_the_golden_run_covers_a_few_redial_targets():
    records = [DialogueRecord.model_validate_json(line) for line in GOLDEN_RUN.read_text().splitlines()]
    items = {record.target_item.id: record.target_item for record in records}
    coverage = target_coverage(items.values(), "redial-test")
    assert 0 < coverage.covered <= len(items) and coverage.share == coverage.covered / coverage.total


def test_an_unknown_reference_set_is_one_line_naming_the_known_ones():
    with pytest.raises(SynthError) as raised:
        reference_targets("redial-tset")
    message = str(raised.value)
    assert "redial-tset" in message and all(name in message for name in REFERENCE_SETS) and "\n" not in message


def test_a_missing_shared_file_names_the_fetch_and_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNTH_SHARED_DATA", str(tmp_path))
    monkeypatch.setenv("SYNTH_DATA_DIR", str(tmp_path / "cache"))
    with pytest.raises(MissingDataset) as raised:
        target_coverage([], "inspired-test")
    assert str(raised.value) == (
        f"the inspired-test dataset is not here (no {tmp_path}/inspired/data/dialog_data/test.tsv): run `synth data "
        "fetch inspired`, or set SYNTH_SHARED_DATA to a folder holding inspired/data/dialog_data/test.tsv"
    )
