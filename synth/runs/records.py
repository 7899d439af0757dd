"""The one reader of dialogue records: a run's dialogues.jsonl (or any synth .jsonl) streamed line by line,
each bad line an error naming its file, line and field; and the repair of a line a crash cut short."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.mentions import TitleTagger, dialogue_items
from synth.data.readers import read_lines
from synth.domain import Domain, domain_for_run
from synth.errors import InputError
from synth.records import DialogueRecord, Item
from synth.runs.layout import ITEMS_FILE, MANIFEST_FILE, dialogues_file, run_file
from synth.runs.manifest import read_manifest
from synth.short_titles import ShortTitleRule

log = logging.getLogger(__name__)
RECORD_KEYS = frozenset({"turns", "outcome", "target_item"})  # how a synth record is told from other formats


class RecordLine(NamedTuple):
    number: int  # 1-based line number
    line: str  # the line as written, without its line ending
    record: DialogueRecord


def parse_record(line: str, path: Path, number: int) -> DialogueRecord:
    """One JSON line as a record; a bad one is an InputError naming the file, line and field."""
    try:
        return DialogueRecord.model_validate_json(line)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        raise InputError(path, f"not a dialogue record ({error['msg']})", line=number, field=field) from None


def iter_records(path: Path, *, bad_lines: BadLines | None = None, unique_ids: bool = False) -> Iterator[RecordLine]:
    """Every record of `path`, read once, one at a time. A bad line is an error naming its line and field
    (with `bad_lines.skip`, a counted warning); with `unique_ids`, so is a dialogue id seen twice."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    seen: set[str] = set()
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            record = parse_record(line, path, number)
            if unique_ids:
                if record.id in seen:
                    raise InputError(path, f"dialogue '{record.id}' appears twice", line=number, field="id")
                seen.add(record.id)
        except InputError as error:
            bad_lines.report(error)
            continue
        yield RecordLine(number, line, record)


def finished_records(path: Path) -> Iterator[DialogueRecord]:
    """The records a run already wrote to `path` (none when there is no file yet); ids must be unique."""
    if path.exists():
        yield from (found.record for found in iter_records(path, unique_ids=True))


def load_records(path: Path, *, bad_lines: BadLines | None = None) -> list[DialogueRecord]:
    """Every record of a run folder or a synth .jsonl file."""
    return [found.record for found in iter_records(dialogues_file(path), bad_lines=bad_lines)]


def load_synth(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """A synth run as `Dialogue`s (turn items: the recommended item, then the items its text names, where the
    run's items.jsonl lies beside the file)."""
    catalog, short_titles = items_beside(path), domain_beside(path).short_titles
    return [record_dialogue(record, catalog, short_titles) for record in load_records(path, bad_lines=bad_lines)]


def record_dialogue(
    record: DialogueRecord, catalog: dict[str, Item] | None = None, short_titles: ShortTitleRule = "whole"
) -> Dialogue:
    """The common view of one record; outcome and generation figures go to meta. A turn's items are its
    recommended item and, with the `catalog`, the items its text names, found as the exports find them (a long
    title also by its short form under the run's domain's `short_titles` rule)."""
    tagger = TitleTagger(dialogue_items(record, catalog), short_titles) if catalog else None
    turns = []
    for turn in record.turns:
        named = [mention.item for mention in tagger.find(turn.text)] if tagger else []
        items = list(dict.fromkeys(([turn.recommended_item] if turn.recommended_item else []) + named))
        turns.append(DialogueTurn(role=turn.role, text=turn.text, items=items))
    return Dialogue(
        id=record.id,
        source="synth",
        turns=turns,
        items={record.target_item.id: record.target_item.display},
        seeker_id=record.user_id,
        meta={"mode": record.mode, "target": record.target_item.id, "outcome": record.outcome.model_dump()},
    )


def count_records(path: Path) -> int:
    """Complete records of a JSON Lines file, counted without parsing: non-blank lines that end with their
    newline (a last line a crash cut short is not a record yet); 0 when the file does not exist."""
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.endswith(b"\n") and line.strip())


def drop_torn_tail(path: Path, block: int = 1 << 16) -> int:
    """Cut a last line that a crash left without its newline; returns the bytes removed."""
    if not path.exists():
        return 0
    with path.open("rb+") as handle:
        size = end = handle.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            if end == size and chunk.endswith(b"\n"):
                return 0
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
                break
            end = start
        handle.truncate(end)
    if end < size:
        log.warning("%s: dropped %d bytes of a record cut short when the last run ended", path, size - end)
    return size - end


def read_items(path: Path) -> dict[str, Item]:
    """A run's items.jsonl as item id -> Item; a bad line is an error naming it."""
    items = {}
    for number, line in read_lines(path):
        if line.strip():
            try:
                item = Item.model_validate_json(line)
            except ValueError as exc:
                raise InputError(path, f"not an item ({exc.__class__.__name__})", line=number) from None
            items[item.id] = item
    return items


def domain_beside(file: Path) -> Domain:
    """The domain profile of the run whose dialogues file this is, from the manifest beside it (movies without
    one)."""
    path = file.parent / MANIFEST_FILE
    return domain_for_run(read_manifest(path).config if path.exists() else {})


def items_beside(file: Path) -> dict[str, Item] | None:
    """The items.jsonl (or .jsonl.gz) in the folder of a dialogues file, None when there is none (a bare .jsonl)."""
    path = run_file(file.parent, ITEMS_FILE)
    return read_items(path) if path.exists() else None
