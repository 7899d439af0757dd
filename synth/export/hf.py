"""A run as a Hugging Face `DatasetDict`, split by user, saved with its dataset card."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.export.features import record_features, record_row
from synth.export.items import known_items
from synth.export.splits import split_by_user
from synth.records import DialogueRecord
from synth.runs.folder import RunFolder

log = logging.getLogger(__name__)
HUB_EXTRA_HINT = "Hugging Face exports need the 'hub' extra: pip install 'synth-crs[hub]'"


def require_datasets() -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise SynthError(HUB_EXTRA_HINT) from None


def features() -> Any:
    """The columns: every record field (dict fields as JSON text) and `items`, the titles of the items the
    dialogue names, so the ids in `turns` read without the catalog."""
    from datasets import List, Value

    columns = record_features(DialogueRecord)
    columns["items"] = List({"id": Value("string"), "title": Value("string"), "year": Value("int64")})
    return columns


def dataset_row(record: DialogueRecord, run: RunFolder) -> dict[str, Any]:
    row = record_row(record)
    named = [run.items[i] for i in dict.fromkeys(known_items(record)) if i in run.items]
    row["items"] = [{"id": item.id, "title": item.title, "year": item.year} for item in named]
    return row


@contextmanager
def open_dataset_dict(run: RunFolder, shares: dict[str, float], seed: int) -> Iterator[Any]:
    """The run as a DatasetDict (the splits named in `shares`, no user in two; a split left empty by too few users
    is left out, with a warning) built from records streamed off disk into Arrow files in a scratch folder,
    which is removed when the block ends: save or push inside it."""
    require_datasets()
    from datasets import Dataset, DatasetDict

    users = [record.user_id for record in run.records()]
    splits = split_by_user(range(len(users)), users, shares, seed)
    for name in [name for name, positions in splits.items() if not positions]:
        log.warning("split '%s' would be empty (%d users in all): left out", name, len(set(users)))
        del splits[name]
    split_of = {position: name for name, positions in splits.items() for position in positions}
    with tempfile.TemporaryDirectory(prefix="synth-hf-") as scratch:
        yield DatasetDict(
            {
                name: Dataset.from_generator(
                    _rows,
                    features=features(),
                    gen_kwargs={"run": run, "split_of": split_of, "split": name},
                    cache_dir=scratch,
                )
                for name in splits
            }
        )


def _rows(run: RunFolder, split_of: dict[int, str], split: str) -> Iterator[dict[str, Any]]:
    for position, record in enumerate(run.records()):
        if split_of[position] == split:
            yield dataset_row(record, run)


def save_dataset_dict(dataset_dict: Any, out_dir: Path) -> list[Path]:
    """`save_to_disk` into `out_dir` (a folder `load_from_disk` reads back)."""
    dataset_dict.save_to_disk(str(out_dir))
    return sorted(p for p in out_dir.rglob("*") if p.is_file())
