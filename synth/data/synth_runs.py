"""synth's own runs: dialogue records read with located errors, and as the common `Dialogue` model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.readers import read_lines
from synth.errors import InputError
from synth.records import DialogueRecord

DIALOGUES_FILE = "dialogues.jsonl"
RECORD_KEYS = frozenset({"turns", "outcome", "target_item"})


def dialogues_file(path: Path) -> Path:
    """A run folder means its dialogues.jsonl; a file is itself."""
    return path / DIALOGUES_FILE if path.is_dir() else path


def looks_like_records(line: str) -> bool:
    """Whether a JSON line has the keys of a synth dialogue record."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(value, dict) and RECORD_KEYS <= set(value)


def parse_record(line: str, path: Path, number: int) -> DialogueRecord:
    """One JSON line as a record; a bad one is an InputError naming the file, line and field."""
    try:
        return DialogueRecord.model_validate_json(line)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        raise InputError(path, f"not a dialogue record ({error['msg']})", line=number, field=field) from None


def iter_records(path: Path, *, bad_lines: BadLines | None = None) -> Iterator[tuple[int, str, DialogueRecord]]:
    """(line number, the line, the record) for each record; a bad one is an error naming its line and field."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            yield number, line, parse_record(line, path, number)
        except InputError as error:
            bad_lines.report(error)


def load_records(path: Path, *, bad_lines: BadLines | None = None) -> list[DialogueRecord]:
    """Every record of a run folder or a synth .jsonl file."""
    return [record for _, _, record in iter_records(dialogues_file(path), bad_lines=bad_lines)]


def load_synth(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """A synth run as `Dialogue`s (turn items are the recommended item ids)."""
    return [record_dialogue(record) for record in load_records(path, bad_lines=bad_lines)]


def record_dialogue(record: DialogueRecord) -> Dialogue:
    """The common view of one record; outcome and generation figures go to meta."""
    turns = [
        DialogueTurn(role=turn.role, text=turn.text, items=[turn.recommended_item] if turn.recommended_item else [])
        for turn in record.turns
    ]
    return Dialogue(
        id=record.id,
        source="synth",
        turns=turns,
        items={record.target_item.id: record.target_item.display},
        seeker_id=record.user_id,
        meta={"mode": record.mode, "target": record.target_item.id, "outcome": record.outcome.model_dump()},
    )
