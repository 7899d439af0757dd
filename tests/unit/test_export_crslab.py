"""The CRSLab export of a run: read back by synth's loader with the ReDial export's movies, and read by CRSLab
0.1.2's own ReDialDataset and its KBRD / KGSF dataloaders where crslab is installed."""

import json
import shutil
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from synth.data.bad_lines import BadLines
from synth.data.crslab import CRSLAB_ITEMS_FILE, load_crslab
from synth.data.mentions import clean_text
from synth.data.redial import MENTION
from synth.errors import InputError
from synth.export.crslab import (
    ENTITIES_FILE,
    MOVIES_FILE,
    GenreFinder,
    crslab_object,
    export_crslab,
    genre_entity,
    movie_entity,
)
from synth.export.redial import redial_ids, redial_object
from synth.export.splits import RunSplits
from synth.records import DialogueRecord, Item
from synth.runs.folder import RunFolder

SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}
SPLIT_FILES = ("train_data.json", "valid_data.json", "test_data.json")


@pytest.fixture(scope="module")
def exported(scripted_run: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[RunFolder, Path, dict[str, Any]]:
    run = RunFolder.open(scripted_run)
    folder = tmp_path_factory.mktemp("crslab")
    facts = export_crslab(run, folder, RunSplits.of(run, SHARES, 0))
    return run, folder, facts


def redial_movies(record: DialogueRecord, run: RunFolder) -> list[list[str]]:
    """The items synth's ReDial export tags in each message, each once."""
    ids = redial_ids(run.items)
    by_number = {number: item for item, number in ids.items()}
    messages = redial_object(record, run, ids, 1, 1)["messages"]
    return [list(dict.fromkeys(by_number[int(n)] for n in MENTION.findall(m["text"]))) for m in messages]


def test_the_loader_reads_back_every_dialogue_with_the_redial_exports_movies(exported):
    run, folder, facts = exported
    items = json.loads((folder / CRSLAB_ITEMS_FILE).read_text())
    entity_ids = json.loads((folder / ENTITIES_FILE).read_text())
    movie_ids = set(json.loads((folder / MOVIES_FILE).read_text()))
    assert movie_ids == {entity_ids[movie_entity(item)] for item in run.items}
    dialogues = {d.id: d for name in SPLIT_FILES for d in load_crslab(folder / name)}
    records = list(run.records())
    assert sorted(dialogues) == sorted(record.id for record in records)
    assert facts["mentions"]["dialogues_without_mentions"] == []
    for record in records:
        dialogue = dialogues[record.id]
        assert dialogue.source == "crslab"
        spoken = [turn for turn in record.turns if clean_text(turn.text)]
        assert [turn.role for turn in dialogue.turns] == [turn.role for turn in spoken]
        tagged = [[items[entity]["itemId"] for entity in turn.items] for turn in dialogue.turns]
        assert tagged == redial_movies(record, run)
        for turn in dialogue.turns:
            assert all(entity_ids[entity] in movie_ids for entity in turn.items)
            assert all(run.title(items[entity]["itemId"]) in turn.text for entity in turn.items)
        assert dialogue.items == {entity: items[entity]["title"] for turn in dialogue.turns for entity in turn.items}


def test_an_utterance_loses_the_end_marker_and_keeps_one_token_for_a_titled_movie(exported):
    run, _, _ = exported
    record = next(r for r in run.records() if run.items[r.target_item.id].genres and r.turns[-1].role == "seeker")
    item = run.items[record.target_item.id]
    genre = item.genres[0]
    text = f"**{item.display}** it is, I love {genre.lower()} films! [EOD]"
    changed = record.model_copy(
        update={"turns": [*record.turns[:-1], record.turns[-1].model_copy(update={"text": text})]}
    )
    ids = redial_ids(run.items)
    genres = GenreFinder(sorted({g for i in run.items.values() for g in i.genres}))
    last = crslab_object(changed, run, ids, genres)["dialog"][-1]
    assert last["text"].count(f"@{ids[item.id]}") == 1
    assert not {"[", "EOD", "]", "*", "**", str(item.year)} & set(last["text"])
    assert last["movies"] == [movie_entity(item.id)]
    assert last["entity"] == [genre_entity(genre)]
    assert f"@{ids[item.id]}" in last["word"] and "love" in last["word"] and "it" not in last["word"]


def test_the_loader_reads_crslab_and_distillrecdial_files_and_locates_a_bad_role(tmp_path):
    movie = "<http://dbpedia.org/resource/Super_Troopers>"
    good = {
        "conv_id": 7,
        "conv": [{"utt_id": 0, "role": "Seeker", "text": ["I", "like", "@111776"], "movies": [movie]}],
    }
    (tmp_path / "train_data.json").write_text(json.dumps([good]))
    [dialogue] = load_crslab(tmp_path / "train_data.json")
    assert (dialogue.id, dialogue.turns[0].text, dialogue.turns[0].items) == ("7", "I like @111776", [movie])
    assert dialogue.items == {movie: "Super Troopers"}
    bad = {"conv_id": 8, "dialog": [{"role": "Bot", "text": ["hi"]}]}
    (tmp_path / "test_data.json").write_text(json.dumps([good, bad]))
    with pytest.raises(InputError, match=r"line 2, field 'dialog\.0\.role'"):
        load_crslab(tmp_path / "test_data.json")
    assert len(load_crslab(tmp_path / "test_data.json", bad_lines=BadLines(skip=True))) == 1


def crslab_reads(folder: Path) -> tuple[Any, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """CRSLab 0.1.2's ReDialDataset on `folder` (its nltk flavour): the dataset, its vocab, the processed training
    examples and the side data; skips where crslab is not installed."""
    redial = pytest.importorskip("crslab.data.dataset.redial.redial")
    from crslab.data.dataset.redial.resources import resources

    dataset = object.__new__(redial.ReDialDataset)
    dataset.dpath = str(folder)
    dataset.special_token_idx = resources["nltk"]["special_token_idx"]
    dataset.unk_token_idx = dataset.special_token_idx["unk"]
    train, valid, test, vocab = dataset._load_data()  # _load_raw_data, _load_vocab, _load_other_data
    train_data, _, _, side_data = dataset._data_preprocess(train, valid, test)
    dataset.word_kg.close()
    return dataset, vocab, train_data, side_data


def test_crslabs_redial_dataset_and_dataloaders_read_the_export(exported):
    run, folder, facts = exported
    dataset, vocab, train_data, side_data = crslab_reads(folder)
    pytest.importorskip("torch")
    from crslab.data.dataloader.kbrd import KBRDDataLoader
    from crslab.data.dataloader.kgsf import KGSFDataLoader

    expected = []
    for split, record in RunSplits.of(run, SHARES, 0).records(run):
        if split != "train":
            continue
        utterances = zip([t.role for t in record.turns if clean_text(t.text)], redial_movies(record, run))
        merged = [[item for _, movies in group for item in movies] for _, group in groupby(utterances, lambda u: u[0])]
        expected += [[vocab["entity2id"][movie_entity(item)] for item in movies] for movies in merged[1:]]
    assert [example["items"] for example in train_data] == expected
    assert any(expected)
    assert all(token != dataset.unk_token_idx for example in train_data for token in example["response"])
    order = sorted(run.items, key=redial_ids(run.items).get)
    assert side_data["item_entity_ids"] == [vocab["entity2id"][movie_entity(item)] for item in order]
    assert side_data["entity_kg"]["n_relation"] == len(facts["entity_kg"]["relations_crslab_keeps"]) == 0  # 48 items
    assert side_data["word_kg"] == {"edge": [], "entity": []}

    recommended = sum(len(e["items"]) for e in train_data if e["role"] == "Recommender")
    kbrd = list(KBRDDataLoader({}, train_data, vocab).get_rec_data(64, shuffle=False))
    assert sum(len(batch["item"]) for batch in kbrd) == recommended
    options = {"context_truncate": 256, "response_truncate": 30, "entity_truncate": 32, "word_truncate": 64}
    kgsf = KGSFDataLoader(options, train_data, vocab)
    _, _, onehot, movies = next(kgsf.get_rec_data(8, shuffle=False))
    assert onehot.shape[1] == vocab["n_entity"] and set(movies.tolist()) <= set(side_data["item_entity_ids"])
    assert next(kgsf.get_conv_data(8, shuffle=False))[3].shape[0] > 0


def test_on_a_catalog_of_over_1000_items_crslab_keeps_the_self_loops_and_the_genre_links(scripted_run, tmp_path):
    run_folder = tmp_path / "run"
    run_folder.mkdir()
    for name in ("dialogues.jsonl", "items.jsonl", "manifest.json"):
        shutil.copy(scripted_run / name, run_folder / name)
    extra = [Item(id=f"x{n:04d}", title=f"Filler {n}", year=2000, genres=["Drama"]) for n in range(1100)]
    with (run_folder / "items.jsonl").open("a", encoding="utf-8") as out:
        out.writelines(item.model_dump_json() + "\n" for item in extra)
    run = RunFolder.open(run_folder)
    facts = export_crslab(run, tmp_path, RunSplits.of(run, SHARES, 0))
    assert facts["entity_kg"]["relations_crslab_keeps"] == ["self-loop", "genre"]
    _, vocab, _, side_data = crslab_reads(tmp_path)
    kg = side_data["entity_kg"]
    assert kg["n_relation"] == 2
    relation = {(h, t): r for h, t, r in kg["edge"]}
    matrix, action = vocab["entity2id"][movie_entity("m001")], vocab["entity2id"][genre_entity("Action")]
    assert relation[(matrix, action)] == relation[(action, matrix)] != relation[(matrix, matrix)]
    assert len(kg["entity"]) == len(vocab["entity2id"])
