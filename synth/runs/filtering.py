"""What `synth filter` writes into a run folder beside the kept dialogues: dropped.jsonl (each dropped
dialogue with its drops and its record unchanged) and filter_report.json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from synth.data.readers import read_lines, validate
from synth.errors import InputError
from synth.records import DialogueRecord


class Drop(BaseModel):
    """One filter's drop: `turn` (0-based) names the offending utterance, `evidence` quotes it."""

    filter: str
    reason: str
    evidence: str | None = None
    turn: int | None = None
    score: float | None = None


class DroppedDialogue(BaseModel):
    """One line of dropped.jsonl: the dialogue's id, every drop, and the record as it was read."""

    id: str
    drops: list[Drop]
    record: DialogueRecord


def dropped_line(dialogue_id: str, drops: list[Drop], raw_record: str) -> str:
    """The dropped.jsonl line of one dialogue; the record's own line is kept byte for byte."""
    listed = json.dumps([drop.model_dump() for drop in drops], ensure_ascii=False)
    return f'{{"id": {json.dumps(dialogue_id)}, "drops": {listed}, "record": {raw_record}}}\n'


def iter_dropped(path: Path) -> Iterator[DroppedDialogue]:
    """Every entry of a dropped.jsonl, read once; a bad one is an error naming its line and field."""
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not JSON ({exc.msg})", line=number) from None
        if not isinstance(entry, dict) or "record" not in entry:
            raise InputError(path, "not a dropped-dialogue entry (needs 'drops' and 'record')", line=number)
        yield validate(DroppedDialogue, entry, path, number, kind="a dropped-dialogue entry")


class DropExample(BaseModel):
    """A drop quoted in the report, with the dialogue it dropped."""

    id: str
    filter: str
    reason: str
    evidence: str | None = None
    turn: int | None = None
    score: float | None = None


class JudgeErrorExample(BaseModel):
    """A dialogue kept because the judge could not answer, and why."""

    id: str
    error: str


class FilterRow(BaseModel):
    """One filter's figures."""

    ran_on: int
    dropped: int
    drop_rate: float | None
    dropped_by_this_filter_only: int
    judge_errors: int
    examples: list[DropExample] = []
    error_examples: list[JudgeErrorExample] = []


class FilterReport(BaseModel):
    """filter_report.json: the run's settings and timing, drops per filter and the overlaps between filters."""

    input: str | None = None
    format: str | None = None
    filters_run: list[str] = []
    preference_method: str | None = None
    preference_on: str | None = None
    settings: dict[str, Any] = {}
    started: str | None = None
    seconds: float | None = None
    dialogues_per_s: float | None = None
    dialogues: int
    kept: int
    dropped: int
    drop_rate: float | None
    filters: dict[str, FilterRow]
    overlap: dict[str, int] = {}

    def summary(self) -> FilterSummary:
        """What the filtered folder's manifest says of the filtering."""
        per_filter = {
            name: FilterShare(ran_on=row.ran_on, dropped=row.dropped, drop_rate=row.drop_rate)
            for name, row in self.filters.items()
        }
        return FilterSummary(**self.model_dump(exclude={"filters", "settings"}), per_filter=per_filter)


class FilterShare(BaseModel):
    ran_on: int
    dropped: int
    drop_rate: float | None


class FilterSummary(BaseModel):
    """The manifest's `filter` section: the report without its settings, and each filter's share."""

    input: str | None = None
    format: str | None = None
    filters_run: list[str] = []
    preference_method: str | None = None
    preference_on: str | None = None
    started: str | None = None
    seconds: float | None = None
    dialogues_per_s: float | None = None
    dialogues: int
    kept: int
    dropped: int
    drop_rate: float | None
    overlap: dict[str, int] = {}
    per_filter: dict[str, FilterShare] = {}


def read_filter_report(path: Path) -> FilterReport:
    """A filter_report.json; bad JSON or a missing field is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
        return FilterReport.model_validate_json(text)
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        line = None
        if error["type"] == "json_invalid":
            try:
                json.loads(text)
            except json.JSONDecodeError as bad:
                line, field = bad.lineno, None
        raise InputError(path, f"not a filter report ({error['msg']})", line=line, field=field) from None
