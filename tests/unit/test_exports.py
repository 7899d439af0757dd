"""Exports of a run: ReDial and PEARL files read as the field's own readers read them (tests/export_readers.py),
a DatasetDict split by user that survives save_to_disk / load_from_disk with PEARL's columns, a dataset card
that keeps what a person added, and bad exports that write nothing."""

import csv
import json
import re
import shutil

import pytest

from synth.data.mentions import TitleTagger, clean_text
from synth.data.redial import load_redial, load_redial_movies
from synth.datasets import load_dialogues
from synth.errors import SynthError
from synth.export import exporters
from synth.export.card import CardOptions
from synth.export.coverage import MentionCoverage
from synth.export.exporters import export_run
from synth.export.pearl import PEARL_FIELDS
from synth.export.splits import parse_splits, split_by_user
from synth.records import Item
from synth.runs.folder import RunFolder
from synth.runs.layout import EXPORT_MARKER
from tests.export_readers import pearl_responses, redial_conversations, redial_problems, unicrs_text
from tests.helpers import invoke_synth, run_synth

datasets = pytest.importorskip("datasets")
from huggingface_hub import DatasetCard  # noqa: E402

SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}


def test_pearl_export_has_pearls_fields_and_files_and_starts_with_the_seeker(scripted_run, tmp_path):
    run = RunFolder.open(scripted_run)
    records = {record.id: record for record in run.records()}
    exported = export_run(scripted_run, "pearl", tmp_path, shares=SHARES, options=CardOptions())
    assert {p.name for p in exported.files} == {"train.json", "valid.json", "test.json", EXPORT_MARKER}
    objects = [o for name in ("train", "valid", "test") for o in json.loads((tmp_path / f"{name}.json").read_text())]
    assert len(objects) == 20 and all(tuple(o) == PEARL_FIELDS for o in objects)
    for pearl in objects:
        record = records[pearl["data_id"]]
        speakers = [line.split(":", 1)[0] for line in pearl["dialogue"]]
        assert speakers[0] == "Seeker" and all(a != b for a, b in zip(speakers, speakers[1:]))
        assert all(response.startswith("Recommender: ") for response in pearl_responses(pearl["dialogue"]))
        assert not any("[EOD]" in line for line in pearl["dialogue"])
        assert pearl["gt_movie_title"] == record.target_item.display and pearl["user_id"] == record.user_id
        assert pearl["gt_genre"] == ", ".join(run.items[record.target_item.id].genres)
        titles = [run.items[r.item].display for r in record.persona.general]
        assert pearl["seen_movie_titles"] == titles and titles[0] in pearl["user_persona"]
    assert exported.facts["opening_recommender_turns_left_out"] == 20  # every scripted run opens with a greeting
    dialogues = load_dialogues(tmp_path)  # the export folder reads back, every split
    assert len(dialogues) == 20 and dialogues[0].turns[0].role == "seeker"
    assert {d.meta["split"] for d in dialogues} == {"train", "validation", "test"}


def test_redial_export_is_read_whole_by_the_redial_loaders_rule(scripted_run, tmp_path):
    run = RunFolder.open(scripted_run)
    records = {record.id: record for record in run.records()}
    exported = export_run(scripted_run, "redial", tmp_path, shares=SHARES, options=CardOptions())
    names = {p.name for p in exported.files}
    assert names >= {"train_data.jsonl", "valid_data.jsonl", "test_data.jsonl", "movies_with_mentions.csv", "movie_ids.csv"}
    assert redial_problems(tmp_path) == []
    assert exported.facts["mentions"]["share"] >= 0.95 and not exported.facts["mentions"]["dialogues_without_mentions"]
    with (tmp_path / "movie_ids.csv").open() as table:
        ids = {row["itemId"]: row["movieId"] for row in csv.DictReader(table)}
    assert len(ids) == len(run.items) and all(len(number) == 6 for number in ids.values())
    conversations = [c for split in redial_conversations(tmp_path).values() for c in split]
    for conversation in conversations:
        record = records[conversation["synthId"]]
        target = ids[record.target_item.id]
        assert conversation["movieMentions"][target] == record.target_item.display
        assert conversation["initiatorQuestions"][target] == {"suggested": 1, "seen": 0, "liked": 1}
        assert conversation["respondentQuestions"][target]["liked"] == 1
        rejected = {ids[t.recommended_item] for t in record.turns if t.recommended_item} - {target}
        assert all(conversation["initiatorQuestions"][m]["liked"] == 0 for m in rejected)
        for message in conversation["messages"]:  # UniCRS reads each mention back as one "Title (Year)"
            assert not re.search(r"\(\d{4}\)\S* \(\d{4}\)", unicrs_text(conversation, message["text"]))
    agree = [c["initiatorQuestions"][m] == c["respondentQuestions"][m] for c in conversations for m in c["movieMentions"]]
    assert 0 < sum(agree) < len(agree)  # each side answers what it knows
    dialogues = load_redial(tmp_path / "train_data.jsonl")
    assert all(turn.items for d in dialogues for turn in d.turns if "@" in turn.text)
    movies = load_redial_movies(tmp_path / "movies_with_mentions.csv")
    assert set(movies) == {m for c in conversations for m in c["movieMentions"]}


def test_every_export_reads_back_in_stats_and_the_benchmark(scripted_run, tmp_path):
    from synth.benchmarks.crs.datasets import DatasetSpec, load_dataset
    from synth.benchmarks.crs.items import ItemSpace

    run = RunFolder.open(scripted_run)
    turns = sum(len(record.turns) for record in run.records())
    for to in ("redial", "pearl", "crslab", "dialoguekit", "hf"):
        export_run(scripted_run, to, tmp_path / to, shares=SHARES, options=CardOptions())
        dialogues = load_dialogues(tmp_path / to)
        assert len(dialogues) == 20 and {d.meta["split"] for d in dialogues} == {"train", "validation", "test"}, to
        if to in ("redial", "crslab", "dialoguekit"):  # one utterance per turn, and the items each names
            assert sum(len(d.turns) for d in dialogues) == turns and any(t.items for d in dialogues for t in d.turns)
        result = invoke_synth("stats", str(tmp_path / to), "--json", "--no-similarity")  # in this process: 5 runs
        assert result.returncode == 0 and json.loads(result.stdout)["dialogues"] == 20, result.stderr
    dataset = load_dataset(DatasetSpec("redial", [tmp_path / "redial"]), ItemSpace(run.items))
    assert len(dataset.conversations) == 20 and any(u.items for c in dataset.conversations for u in c.utterances)


def test_titles_are_tagged_in_every_form_and_markup_goes():
    items = [Item(id="1", title="The Matrix", year=1999), Item(id="2", title="Up", year=2009),
             Item(id="3", title="Spider-Man", year=2002), Item(id="4", title="Heat", year=1995)]
    tagger = TitleTagger(items)
    text = clean_text("**The Matrix** (1999) or the matrix, “Spider Man”, Up (2009) and heat? Heat! [EOD]")
    assert clean_text("Can you suggest one? EOD") == "Can you suggest one?"  # as a model writes the marker
    tagged, found = tagger.tag(text, lambda item: f"@{item}")
    assert tagged == "@1 or @1, @3, @2 and heat? @4!" and [m.item for m in found] == ["1", "1", "3", "2", "4"]
    assert tagger.tag("I grew up on it.", str)[1] == []


def test_coverage_counts_what_the_title_spotter_finds_and_the_tagger_missed():
    kong, lives = Item(id="k", title="King Kong", year=2005), Item(id="l", title="King Kong Lives", year=1986)
    matrix = Item(id="m", title="The Matrix", year=1999)
    tagger, coverage = TitleTagger([kong, lives, matrix]), MentionCoverage()
    for text in ("King Kong Lives (1986) is dull.", "Have you seen The Matrx?"):  # a misspelling the spotter finds
        coverage.add_utterance(text, [kong, lives, matrix], tagger.find(text))
    coverage.add_dialogue("d1", 1)
    coverage.add_dialogue("d2", 0)
    assert (coverage.spotted, coverage.tagged, coverage.without_mentions) == (2, 1, ["d2"])
    assert coverage.summary() == "1 of 2 spotted titles tagged (50.0%); 1 of 2 dialogues name no item"


def test_bad_exports_stop_with_one_line_and_write_nothing(scripted_run, tmp_path):
    empty = tmp_path / "empty-run"
    empty.mkdir()
    (empty / "dialogues.jsonl").write_text("")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    for args, message in [
        ((str(scripted_run), str(tmp_path / "a"), "--to", "parquet"), "unknown export format 'parquet'"),
        ((str(empty), str(tmp_path / "b"), "--to", "redial"), "holds no dialogues"),
        ((str(scripted_run), str(busy), "--to", "pearl"), "not a synth export (e.g. notes.txt)"),
    ]:
        result = run_synth("export", *args)
        assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert [p.name for p in busy.iterdir()] == ["notes.txt"]
    assert [p.name for p in tmp_path.iterdir() if ".synth-export-" in p.name] == []


def test_an_export_that_fails_half_way_leaves_the_earlier_one_whole(scripted_run, tmp_path, monkeypatch):
    out = tmp_path / "out"
    export_run(scripted_run, "redial", out, shares=SHARES, options=CardOptions())
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(run, folder, splits):
        (folder / "train.json").write_text("[")
        raise OSError("disk full")

    with monkeypatch.context() as patch, pytest.raises(OSError, match="disk full"):
        patch.setitem(exporters.EXPORTERS, "pearl", broken)
        export_run(scripted_run, "pearl", out, shares=SHARES, options=CardOptions(), overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    with pytest.raises(SynthError, match="--overwrite"):
        export_run(scripted_run, "pearl", out, shares=SHARES, options=CardOptions())
    export_run(scripted_run, "pearl", out, shares=SHARES, options=CardOptions(), overwrite=True)
    assert not (out / "train_data.jsonl").exists() and (out / "train.json").exists()


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
    assert set(PEARL_FIELDS) <= set(loaded["train"].column_names)  # PEARL's readers take it as it is
    assert row["dialogue"][0].startswith("Seeker: ") and row["gt_movie_title"] == record.target_item.display

    card = DatasetCard.load(out / "README.md")
    meta = card.data.to_dict()
    assert "synthetic" in meta["tags"] and meta["language"] == ["en"] and meta["size_categories"] == ["n<1K"]
    assert meta["license"] == "apache-2.0" and meta["task_categories"] == ["text-generation"]
    assert meta["pretty_name"] and meta["source_datasets"] == ["original"]
    for prompt, digest in run.manifest.prompt_hashes.items():
        assert f"`{prompt}`: `{digest}`" in card.text
    assert "| backend | scripted |" in card.text and "seed 7" in card.text
    assert "| words per seeker turn |" in card.text and "No filter was run" in card.text
    export_run(scripted_run, "redial", tmp_path / "redial", shares=SHARES, options=options)
    mentioned = len(load_redial_movies(tmp_path / "redial" / "movies_with_mentions.csv"))
    assert f"| distinct items mentioned | {mentioned} |" in card.text  # counted as the ReDial export counts them


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
