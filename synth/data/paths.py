"""Where the shared public datasets live: $SYNTH_SHARED_DATA, else ../shared/data; and the short names of the
human dialogue sets in it (`redial-test`, ...), which `synth stats`, `synth report --compare`, the CRS
benchmark and the reference-set target coverage all accept."""

from __future__ import annotations

import os
from pathlib import Path

SHARED_DATASETS: dict[str, Path] = {  # short name -> path under shared_data_root()
    "redial-train": Path("redial/train_subset_kgsf_valid.jsonl"),
    "redial-test": Path("redial/test_data.jsonl"),
    "inspired-dev": Path("inspired/data/dialog_data/dev.tsv"),
    "inspired-test": Path("inspired/data/dialog_data/test.tsv"),
}


def shared_data_root() -> Path:
    return Path(os.environ.get("SYNTH_SHARED_DATA", "../shared/data")).expanduser()


def shared_dataset(name: str) -> Path | None:
    """The file of the shared dataset called `name` (e.g. 'redial-test'); None when no dataset has that name."""
    relative = SHARED_DATASETS.get(name)
    return None if relative is None else shared_data_root() / relative
