"""Exports of a run: PEARL json and ReDial jsonl read back by synth's own loaders, a DatasetDict split by
user that survives save_to_disk / load_from_disk, and a dataset card that keeps what a person added."""

import csv
import json
import shutil

import pytest

from synth.data.redial import load_redial, load_redial_movies
from synth.datasets import load_dialogues
from synth.errors import SynthError
from synth.export.card import CardOptions
from synth.export.exporters import export_run
from synth.export.splits import parse_splits, split_by_user
from synth.runs.folder import RunFolder
from tests.helpers import run_synth

datasets = pytest.importorskip("datasets")
from huggingface_hub import DatasetCard  # noqa: E402

SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}


def test_pearl_export_reads_back_as_pearl(scripted_run, tmp_path):
    run = RunFolder.open(scripted_run)
    records = list(run.records())
    export_run(scripted_run, "pearl", tmp_path, shares=SHARES, options=CardOptions())
    dialogues = load_dialogues(tmp_path / "dialogues.json")
    assert [len(d.turns) for d in dialogues] == [len(r.turns) for r in records]
    first, record = dialogues[0], records[0]
    assert [t.text for t in first.turns] == [t.text for t in record.turns]
    assert first.meta["gt_movie_title"] == record.target_item.display
    assert first.seeker_id == record.user_id
    titles = [run.items[r.item].display for r in record.persona.general]
    assert first.meta["seen_movie_titles"] == titles and titles[0] in first.meta["user_persona"]


def test_redial_export_tags_mentions_and_fills_the_questionnaire(scripted_run, tmp_path):
    run = RunFolder.open(scripted_run)
    records = list(run.records())
    export_run(scripted_run, "redial", tmp_path, shares=SHARES, options=CardOptions())
    dialogues = load_redial(tmp_path / "dialogues.jsonl")
    movies = load_redial_movies(tmp_path / "movies_with_mentions.csv")
    raw = [json.loads(line) for line in (tmp_path / "dialogues.jsonl").read_text().splitlines()]
    with (tmp_path / "movies_with_mentions.csv").open() as table:
        ids = {row["itemId"]: int(row["movieId"]) for row in csv.DictReader(table)}
    for conversation, dialogue, record in zip(raw, dialogues, records):
        target = str(ids[record.target_item.id])
        assert conversation["movieMentions"][target] == record.target_item.display
        assert conversation["initiatorQuestions"][target] == {"suggested": 1, "seen": 0, "liked": 1}
        for turn, original in zip(dialogue.turns, record.turns):
            if original.recommended_item:  # the recommended title became "@id" in the text
                assert str(ids[original.recommended_item]) in turn.items
                assert run.items[original.recommended_item].display not in turn.text
        rejected = {str(ids[t.recommended_item]) for t in record.turns if t.recommended_item} - {target}
        assert all(conversation["initiatorQuestions"][m]["liked"] == 0 for m in rejected)
        assert dialogue.seeker_id != dialogue.recommender_id
    counted = {m for c in raw for m in c["movieMentions"]}
    assert set(movies) == counted and all(movie.mentions >= 1 for movie in movies.values())


def test_split_by_user_keeps_users_whole_and_follows_the_shares():
    users = [f"u{i % 30}" for i in range(100)]  # 30 users, 3 or 4 dialogues each
    splits = split_by_user(list(range(100)), users, SHARES, seed=1)
    seen = {name: {users[i] for i in rows} for name, rows in splits.items()}
    assert not (seen["train"] & seen["validation"]) and not (seen["train"] & seen["test"])
    assert not (seen["validation"] & seen["test"])
    assert sorted(i for rows in splits.values() for i in rows) == list(range(100))
    assert 76 <= len(splits["train"]) <= 84 and 6 <= len(splits["test"]) <= 14
    assert splits == split_by_user(list(range(100)), users, SHARES, seed=1)
    assert splits != split_by_user(list(range(100)), users, SHARES, seed=2)
    with pytest.raises(SynthError, match="sum to 0.9"):
        parse_splits("train=0.8,test=0.1")
    assert parse_splits("train=0.5, test=0.5") == {"train": 0.5, "test": 0.5}


def test_hf_export_round_trips_and_carries_a_card(scripted_run, tmp_path):
    run = RunFolder.open(scripted_run)
    records = list(run.records())
    out = tmp_path / "hf"
    options = CardOptions(split_seed=7)
    export_run(scripted_run, "hf", out, shares={"train": 0.6, "validation": 0.2, "test": 0.2}, options=options)
    loaded = datasets.load_from_disk(str(out))
    assert set(loaded) == {"train", "validation", "test"}
    assert sum(len(split) for split in loaded.values()) == 20
    users = {name: set(split["user_id"]) for name, split in loaded.items()}
    assert not (users["train"] & users["test"]) and not (users["train"] & users["validation"])
    assert loaded["train"].features == loaded["test"].features
    row = next(r for r in loaded["train"])
    record = next(r for r in records if r.id == row["id"])
    assert [t["text"] for t in row["turns"]] == [t.text for t in record.turns]
    assert row["target_item"]["title"] == record.target_item.title
    assert json.loads(row["generation"]["prompt_hashes"]) == record.generation.prompt_hashes
    assert {i["id"] for i in row["items"]} >= {record.target_item.id}

    card = DatasetCard.load(out / "README.md")
    meta = card.data.to_dict()
    assert "synthetic" in meta["tags"] and meta["language"] == ["en"] and meta["size_categories"] == ["n<1K"]
    assert meta["license"] == "apache-2.0" and meta["task_categories"] == ["text-generation"]
    assert meta["pretty_name"] and meta["source_datasets"] == ["original"]
    for prompt, digest in run.manifest.prompt_hashes.items():
        assert f"`{prompt}`: `{digest}`" in card.text
    assert "| backend | scripted |" in card.text and "seed 7" in card.text
    assert "| words per seeker turn |" in card.text and "No filter was run" in card.text


def test_regenerating_the_card_keeps_what_a_person_added(scripted_run, tmp_path):
    out = tmp_path / "hf"
    export_run(scripted_run, "hf", out, shares=SHARES, options=CardOptions())
    card = DatasetCard.load(out / "README.md")
    card.data.license = "cc-by-4.0"
    card.data.annotations_creators = ["machine-generated"]
    card.data.tags = ["my-tag"]
    card.text = "Read this first.\n\n" + card.text + "\n## Citation\n\nPlease cite us.\n"
    card.save(out / "README.md")
    with pytest.raises(SynthError, match="--overwrite"):
        export_run(scripted_run, "hf", out, shares=SHARES, options=CardOptions())
    export_run(scripted_run, "hf", out, shares=SHARES, options=CardOptions(), overwrite=True)
    again = DatasetCard.load(out / "README.md")
    meta = again.data.to_dict()
    assert meta["license"] == "cc-by-4.0" and meta["annotations_creators"] == ["machine-generated"]
    assert meta["tags"][0] == "my-tag" and "synthetic" in meta["tags"]
    assert again.text.lstrip().startswith("Read this first.") and again.text.rstrip().endswith("Please cite us.")
    assert again.text.count("<!-- synth:begin") == 1 and again.text.count("## Statistics") == 1
    export_run(scripted_run, "hf", out, shares=SHARES, options=CardOptions(), overwrite=True)
    assert DatasetCard.load(out / "README.md").text == again.text  # regenerating again changes nothing


def test_the_card_reports_filter_drop_rates(scripted_run, tmp_path):
    filtered = tmp_path / "filtered"
    result = run_synth("filter", str(scripted_run), "--out", str(filtered), "--no-progress")
    assert result.returncode == 0, result.stderr
    assert (filtered / "items.jsonl").exists()  # the filtered run still names its items
    out = tmp_path / "hf"
    result = run_synth("export", str(filtered), str(out), "--to", "hf", "--no-similarity")
    assert result.returncode == 0, result.stderr
    report = json.loads((filtered / "filter_report.json").read_text())
    text = (out / "README.md").read_text()
    assert f"kept {report['kept']} of 20 dialogues" in text
    assert "| repetition | 20 |" in text and "| form | 20 |" in text


def test_an_export_from_a_run_without_items_rebuilds_the_catalog(scripted_run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(scripted_run, copy)
    (copy / "items.jsonl").unlink()
    assert RunFolder.open(copy).items.keys() >= RunFolder.open(scripted_run).items.keys()


def test_a_split_too_small_for_one_user_is_left_out_with_a_warning(scripted_run, tmp_path, caplog):
    export_run(scripted_run, "hf", tmp_path, shares={"train": 0.99, "test": 0.01}, options=CardOptions())
    assert set(datasets.load_from_disk(str(tmp_path))) == {"train"}
    assert "split 'test' would be empty" in caplog.text
