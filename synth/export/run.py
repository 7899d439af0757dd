"""A finished run as the exporters read it: records streamed from disk, the items they name, the manifest."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.data.synth_runs import dialogues_file, iter_records
from synth.errors import InputError
from synth.export.catalog import read_manifest, run_items
from synth.records import DialogueRecord, Item, Review


@dataclass
class Run:
    folder: Path
    file: Path  # the dialogues .jsonl
    items: dict[str, Item]
    manifest: dict[str, Any]

    def records(self) -> Iterator[DialogueRecord]:
        """Every record, read one at a time (a bad one is an error naming its line and field)."""
        return (record for _, _, record in iter_records(self.file))

    def title(self, item_id: str) -> str:
        """'Title (Year)' of an item id; the id itself when the catalog lacks it."""
        item = self.items.get(item_id)
        return item.display if item else item_id


def load_run(path: Path) -> Run:
    """The run in folder `path` (or its dialogues .jsonl, whose folder holds the manifest and items)."""
    file = dialogues_file(path)
    if not file.exists():
        raise InputError(file, "no such file")
    return Run(file.parent, file, run_items(file.parent), read_manifest(file.parent))


def known_items(record: DialogueRecord) -> list[str]:
    """Items a dialogue can name: the target, the persona's, every candidate and recommendation (repeats kept)."""
    items = [record.target_item.id]
    if record.persona:
        items += [review.item for review in record.persona.general]
    for turn in record.turns:
        items += [c.item_id for c in turn.candidates or []] + ([turn.recommended_item] if turn.recommended_item else [])
    if record.gorecdial:
        items += [i.id for i in record.gorecdial.seeker_items + record.gorecdial.candidates]
    return items


def liked(review: Review) -> bool:
    """Whether the reviewer liked the item: a 0-1 score of at least 0.5 (a review without a score counts as liked)."""
    return (review.score if review.score is not None else 1.0) >= 0.5
