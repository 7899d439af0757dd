"""A run as a Hugging Face `DatasetDict`, split by user, saved with its dataset card."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from synth.data.mentions import dialogue_items
from synth.errors import SynthError
from synth.export.features import record_features, record_row
from synth.export.pearl import PEARL_FIELDS, pearl_object
from synth.export.splits import RunSplits
from synth.records import DialogueRecord
from synth.runs.folder import RunFolder

PEARL_LISTS = ("dialogue", "seen_movie_titles")
HUB_EXTRA_HINT = "Hugging Face exports need the 'hub' extra: pip install 'synth-crs[hub]'"


def require_datasets() -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise SynthError(HUB_EXTRA_HINT) from None


def features() -> Any:
    """The columns: every record field (dict fields as JSON text), `items`, the titles of the items the
    dialogue names, so the ids in `turns` read without the catalog; and PEARL's fields beside them, so PEARL's
    readers take the dataset as it is."""
    from datasets import List, Value

    columns = record_features(DialogueRecord)
    columns["items"] = List({"id": Value("string"), "title": Value("string"), "year": Value("int64")})
    for name in PEARL_FIELDS:
        if name not in columns:
            columns[name] = List(Value("string")) if name in PEARL_LISTS else Value("string")
    return columns


def dataset_row(record: DialogueRecord, run: RunFolder) -> dict[str, Any]:
    row = record_row(record)
    row["items"] = [{"id": i.id, "title": i.title, "year": i.year} for i in dialogue_items(record, run.items)]
    return {**pearl_object(record, run), **row}


@contextmanager
def open_dataset_dict(run: RunFolder, splits: RunSplits) -> Iterator[Any]:
    """The run as a DatasetDict, one dataset per split of `splits` (by user: RunSplits), built from records streamed
    off disk into Arrow files in a scratch folder, which is removed when the block ends: save or push inside it."""
    require_datasets()
    from datasets import Dataset, DatasetDict

    with tempfile.TemporaryDirectory(prefix="synth-hf-") as scratch:
        yield DatasetDict(
            {
                name: Dataset.from_generator(
                    _rows,
                    features=features(),
                    gen_kwargs={"run": run, "splits": splits, "split": name},
                    cache_dir=scratch,
                )
                for name in splits.names
            }
        )


def _rows(run: RunFolder, splits: RunSplits, split: str) -> Iterator[dict[str, Any]]:
    for name, record in splits.records(run):
        if name == split:
            yield dataset_row(record, run)


def save_dataset_dict(dataset_dict: Any, out_dir: Path) -> None:
    """`save_to_disk` into `out_dir` (a folder `load_from_disk` reads back)."""
    dataset_dict.save_to_disk(str(out_dir))
