"""Read item catalogs (JSON Lines or CSV) into typed rows, with located errors."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from synth.data.bad_lines import BadLines
from synth.data.readers import read_json_lines
from synth.errors import InputError
from synth.records import Item

Row = TypeVar("Row", bound=BaseModel)


def _raw_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, raw mapping) for each non-blank row of a .jsonl or .csv file."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        yield from read_json_lines(path, BadLines())  # strict: a bad line is an error naming it
    elif suffix == ".csv":
        try:
            handle = path.open(newline="", encoding="utf-8")
        except OSError as exc:
            raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
        with handle:
            reader = csv.DictReader(handle)
            for row in reader:
                yield reader.line_num, {k: v for k, v in row.items() if k is not None}
    else:
        raise InputError(path, f"unknown format '{suffix}': use .jsonl or .csv")


def read_table(path: Path, model: type[Row]) -> list[tuple[int, Row]]:
    """(line, row) for every row of `path` validated as `model`; InputError names the file, line and field."""
    rows = []
    for number, raw in _raw_rows(path):
        for listed in ("genres", "directors", "cast"):
            if isinstance(raw.get(listed), str):  # CSV: "Action|Sci-Fi"
                raw[listed] = [g for g in raw[listed].split("|") if g]
        try:
            rows.append((number, model.model_validate(raw)))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            message = "missing" if err["type"] == "missing" else err["msg"]
            raise InputError(path, message, line=number, field=field) from None
    if not rows:
        raise InputError(path, "the file holds no rows")
    return rows


def load_catalog(path: Path) -> dict[str, Item]:
    """Items by id; a repeated id is an error."""
    items: dict[str, Item] = {}
    for number, item in read_table(path, Item):
        if item.id in items:
            raise InputError(path, f"duplicate item id '{item.id}'", line=number, field="id")
        items[item.id] = item
    return items
