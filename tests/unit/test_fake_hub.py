"""The fake Hub answers the real `datasets` / `huggingface_hub` upload and download calls, in-process, and what
synth pushes through them arrives whole."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_hub import FakeHub

datasets = pytest.importorskip("datasets")
huggingface_hub = pytest.importorskip("huggingface_hub")
pyarrow = pytest.importorskip("pyarrow")
pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        fake.patch(monkeypatch, tmp_path / "hf-cache")
        yield fake


def test_synths_dataset_dict_reaches_the_hub_whole_and_reads_back_as_the_run(hub: FakeHub, scripted_run: Path) -> None:
    """synth's own DatasetDict (synth.export.hf, as `synth publish` builds it) goes through the real upload
    calls, and the parquet shards the Hub then holds read back as the run's records, split by user: a fault in
    synth's rows, features or splits fails here, not only one in the fake Hub."""
    from synth.export.hf import open_dataset_dict
    from synth.export.splits import RunSplits
    from synth.runs.folder import RunFolder

    run = RunFolder.open(scripted_run)
    splits = RunSplits.of(run, {"train": 0.8, "test": 0.2}, seed=0)
    with open_dataset_dict(run, splits) as dataset_dict:
        dataset_dict.push_to_hub("me/ds", private=True, token="hf_secret")

    files = hub.files("me/ds")
    pushed = {name: pyarrow.parquet.read_table(io.BytesIO(files[f"data/{name}-00000-of-00001.parquet"])).to_pylist()
              for name in splits.names}
    expected: dict[str, list] = {name: [] for name in splits.names}
    for name, record in splits.records(run):
        expected[name].append(record)
    assert {name: len(rows) for name, rows in pushed.items()} == splits.counts() and set(splits.names) == {"train", "test"}
    for name, records in expected.items():
        assert [row["id"] for row in pushed[name]] == [record.id for record in records]
        assert [[turn["text"] for turn in row["turns"]] for row in pushed[name]] == [
            [turn.text for turn in record.turns] for record in records
        ]
        assert [row["target_item"]["id"] for row in pushed[name]] == [record.target_item.id for record in records]
    train_users = {row["user_id"] for row in pushed["train"]}
    assert not train_users & {row["user_id"] for row in pushed["test"]}  # split by user
    readme = files["README.md"].decode()
    assert "dataset_info:" in readme and "configs:" in readme and "path: data/train-*" in readme
    assert hub.repos["me/ds"].private
    assert any(r.method == "PUT" and r.path.startswith("/__lfs/") for r in hub.requests)  # parquet went through LFS
    repo_calls = [r for r in hub.requests if r.path.startswith(("/api/datasets/", "/api/repos/", "/datasets/"))]
    assert {r.headers.get("authorization") for r in repo_calls} == {"Bearer hf_secret"}


def test_dataset_card_round_trip(hub: FakeHub) -> None:
    api = huggingface_hub.HfApi(token="hf_secret")
    assert api.whoami()["name"] == "me"
    api.create_repo("me/cards", repo_type="dataset")
    with pytest.raises(huggingface_hub.errors.EntryNotFoundError):
        huggingface_hub.DatasetCard.load("me/cards")
    with pytest.raises(huggingface_hub.errors.RepositoryNotFoundError):
        huggingface_hub.DatasetCard.load("me/missing")

    card = huggingface_hub.DatasetCard("---\nlicense: mit\n---\n# Cards\n")
    card.push_to_hub("me/cards", token="hf_secret", repo_type="dataset")
    assert huggingface_hub.DatasetCard.load("me/cards").data.license == "mit"

    card.text = "# Cards, again\n"
    card.push_to_hub("me/cards", token="hf_secret", repo_type="dataset")
    assert huggingface_hub.DatasetCard.load("me/cards").text == "# Cards, again\n"
    assert hub.files("me/cards") == {"README.md": str(card).encode()}
