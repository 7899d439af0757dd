"""The fake Hub answers the real `datasets` / `huggingface_hub` upload and download calls, in-process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_hub import FakeHub

datasets = pytest.importorskip("datasets")
huggingface_hub = pytest.importorskip("huggingface_hub")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        fake.patch(monkeypatch, tmp_path / "hf-cache")
        yield fake


def test_push_dataset_dict_stores_parquet_splits_and_card(hub: FakeHub) -> None:
    data = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict({"text": ["a", "b", "c"], "label": [0, 1, 0]}),
            "test": datasets.Dataset.from_dict({"text": ["d"], "label": [1]}),
        }
    )
    data.push_to_hub("me/ds", private=True, token="hf_secret")

    files = hub.files("me/ds")
    assert {"data/train-00000-of-00001.parquet", "data/test-00000-of-00001.parquet"} <= files.keys()
    assert all(files[p].startswith(b"PAR1") for p in files if p.endswith(".parquet"))
    readme = files["README.md"].decode()
    assert "dataset_info:" in readme and "configs:" in readme and "path: data/train-*" in readme
    assert hub.repos["me/ds"].private
    create = next(r for r in hub.requests if r.path == "/api/repos/create")
    assert create.json["visibility"] == "private"
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
