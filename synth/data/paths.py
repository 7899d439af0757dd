"""Where public datasets live: the cache `synth data fetch` fills ($SYNTH_DATA_DIR, else $SYNTH_CACHE_DIR/data,
else ~/.cache/synth/data), and the shared data folder ($SYNTH_SHARED_DATA, else ../shared/data); and the short
names of the human dialogue sets (`redial-test`, ...), which `synth stats`, `synth report --compare`, the CRS
benchmark and the reference-set target coverage all accept."""

from __future__ import annotations

import os
from pathlib import Path

from synth.errors import SynthError

SHARED_DATASETS: dict[str, Path] = {  # short name -> path under shared_data_root()
    "redial-train": Path("redial/train_subset_kgsf_valid.jsonl"),
    "redial-test": Path("redial/test_data.jsonl"),
    "inspired-dev": Path("inspired/data/dialog_data/dev.tsv"),
    "inspired-test": Path("inspired/data/dialog_data/test.tsv"),
}
CACHED_DATASETS: dict[str, Path] = {  # short name -> path under data_dir(), as `synth data fetch` writes it
    "redial-test": Path("redial/test_data.jsonl"),
    "inspired-dev": Path("inspired/dev.tsv"),
    "inspired-test": Path("inspired/test.tsv"),
}


class MissingDataset(SynthError):
    """A dataset a command needs is neither in the cache nor in the shared data folder."""


def shared_data_root() -> Path:
    return Path(os.environ.get("SYNTH_SHARED_DATA", "../shared/data")).expanduser()


def cache_root() -> Path:
    """synth's per-user cache (models, datasets, summaries): $SYNTH_CACHE_DIR, else ~/.cache/synth."""
    return Path(os.environ.get("SYNTH_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "synth"))


def data_dir() -> Path:
    """The cache of fetched datasets: $SYNTH_DATA_DIR, else the cache root's data/."""
    if os.environ.get("SYNTH_DATA_DIR"):
        return Path(os.environ["SYNTH_DATA_DIR"]).expanduser()
    return cache_root() / "data"


def shared_dataset(name: str) -> Path | None:
    """The file of the human dataset called `name` (e.g. 'redial-test'): fetched into the cache, else in the shared
    data folder (where it may be missing); None when no dataset has that name."""
    cached = CACHED_DATASETS.get(name)
    if cached is not None and (data_dir() / cached).exists():
        return data_dir() / cached
    relative = SHARED_DATASETS.get(name)
    return None if relative is None else shared_data_root() / relative


def named_dataset(name: str) -> Path | None:
    """As `shared_dataset`, for a name a command was given to read: a known set whose file is neither fetched
    nor in the shared data folder stops with MissingDataset, one line saying how to get it."""
    path = shared_dataset(name)
    if path is None or path.exists():
        return path
    cached = CACHED_DATASETS.get(name)
    if cached is not None:
        raise MissingDataset(
            f"the {name} dataset is not here (no {path}): run `synth data fetch {cached.parts[0]}`, or set SYNTH_SHARED_DATA "
            f"to a folder holding {SHARED_DATASETS[name].as_posix()}"
        )
    raise MissingDataset(
        f"the {name} dataset is not here and `synth data fetch` cannot get it (no public copy is registered): put it "
        f"at {path} (SYNTH_SHARED_DATA moves the folder), or give the path of a copy"
    )
