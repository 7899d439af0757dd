"""A generic review table (.csv, .jsonl or .parquet: user, item, rating, text) with ratings put on 0-1."""

from __future__ import annotations

import csv
import logging
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from synth.data.bad_lines import BadLines
from synth.data.readers import read_json_lines
from synth.errors import InputError, SynthError
from synth.records import Review

log = logging.getLogger(__name__)

Scale = tuple[float, float]
DEFAULT_SCALE: Scale = (1.0, 10.0)
_Table = tuple[list[str], list[tuple[int, dict[str, Any]]]]  # column names, (line number, raw row)
_SCALE_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$")  # "1-10", "0.5-5"


class ReviewColumns(BaseModel):
    """The file's column names for each of our fields; `scale` names an optional per-row 'LOW-HIGH' column."""

    user: str = "user"
    item: str = "item"
    rating: str = "rating"
    text: str = "text"
    scale: str | None = None


@dataclass(frozen=True)
class _Row:
    """A row that passed the per-line checks; `scale` is None when the file's scale applies."""

    line: int
    user: str
    item: str
    rating: float
    text: str
    scale: Scale | None


def load_review_table(
    path: Path,
    *,
    columns: ReviewColumns | None = None,
    scale: Scale | None = None,
    bad_lines: BadLines | None = None,
) -> list[Review]:
    """Reviews from `path`, each with `score` = (rating - low) / (high - low).

    The scale is `scale`, else the row's `columns.scale` value, else 1-10 when every rating fits it
    (logged); anything else is an InputError asking for --rating-scale. Bad lines go to `bad_lines`.
    """
    path = Path(path)
    columns = columns or ReviewColumns()
    bad_lines = bad_lines or BadLines()
    if scale is not None:  # the given scale wins over a scale column
        check_scale(scale)
        columns = columns.model_copy(update={"scale": None})
    names, raw_rows = _read(path, bad_lines)
    _require_columns(path, columns, names)
    rows = [row for line, raw in raw_rows if (row := _parse(path, line, raw, columns, bad_lines))]
    if scale is None and columns.scale is None:
        scale = default_scale(path, [row.rating for row in rows], columns.rating)
    reviews = [review for row in rows if (review := _review(path, row, row.scale or scale, columns, bad_lines))]
    if not reviews:
        raise InputError(path, f"no usable rows ({bad_lines.skipped} bad lines skipped)")
    return reviews


def parse_scale(text: str) -> Scale | None:
    """'1-10' -> (1.0, 10.0); None when `text` is not LOW-HIGH with LOW < HIGH."""
    match = _SCALE_TEXT.match(text)
    if not match:
        return None
    low, high = float(match.group(1)), float(match.group(2))
    return (low, high) if low < high else None


def check_scale(scale: Scale) -> None:
    """Refuse a scale whose low end is not below its high end."""
    low, high = scale
    if not low < high:
        raise SynthError(f"rating scale {low:g}-{high:g}: the low end must be below the high end")


def _read(path: Path, bad_lines: BadLines) -> _Table:
    """The column names and the (line number, raw mapping) rows of a .csv, .jsonl or .parquet file."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson", ".parquet"):
        raise InputError(path, f"unknown format '{suffix}': use .csv, .jsonl or .parquet")
    try:
        if suffix == ".parquet":
            return _read_parquet(path)
        if suffix != ".csv":
            return _read_jsonl(path, bad_lines)
        with path.open(newline="", encoding="utf-8-sig") as handle:
            return _read_csv(handle)
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None


def _read_csv(handle: TextIO) -> _Table:
    reader = csv.DictReader(handle)
    rows = [(reader.line_num, row) for row in reader]
    return list(reader.fieldnames or []), rows


def _read_jsonl(path: Path, bad_lines: BadLines) -> _Table:
    rows = list(read_json_lines(path, bad_lines))
    names = list(dict.fromkeys(name for _, row in rows for name in row))  # every key seen, in order
    return names, rows


def _read_parquet(path: Path) -> _Table:
    import pandas as pd  # here, not at the top: the CLI starts without pandas
    import pyarrow

    try:
        table = pd.read_parquet(path)
    except pyarrow.ArrowException as exc:
        raise InputError(path, f"not a readable parquet file ({exc})") from None
    names = [str(name) for name in table.columns]
    return names, [(index + 1, row) for index, row in enumerate(table.to_dict("records"))]


def _require_columns(path: Path, columns: ReviewColumns, names: list[str]) -> None:
    for field, name in columns.model_dump(exclude_none=True).items():
        if name not in names:
            found = ", ".join(names) or "none"
            raise InputError(path, f"missing column '{name}' for {field} (columns found: {found})", field=name)


def _parse(path: Path, line: int, raw: dict[str, Any], columns: ReviewColumns, bad_lines: BadLines) -> _Row | None:
    """The row's fields, or None after reporting the first problem to `bad_lines`."""
    values = {field: cell_text(raw.get(getattr(columns, field))) for field in ("user", "item", "text")}
    for field, value in values.items():
        if not value:
            bad_lines.report(InputError(path, f"empty {field}", line=line, field=getattr(columns, field)))
            return None
    rating = cell_number(raw.get(columns.rating))
    if rating is None:
        message = f"rating is not a number: {raw.get(columns.rating)!r}"
        bad_lines.report(InputError(path, message, line=line, field=columns.rating))
        return None
    row_scale = None
    if columns.scale is not None:
        row_scale = parse_scale(cell_text(raw.get(columns.scale)))
        if row_scale is None:
            message = f"scale {raw.get(columns.scale)!r} is not LOW-HIGH (e.g. '1-10' or '0.5-5')"
            bad_lines.report(InputError(path, message, line=line, field=columns.scale))
            return None
    return _Row(line, values["user"], values["item"], rating, values["text"], row_scale)


def _is_missing(value: Any) -> bool:
    """pandas' NA (a cell of a parquet table); pandas is loaded whenever such a value exists."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and value is pandas.NA


def cell_text(value: Any) -> str:
    """A cell as stripped text; None and NaN are empty; 12.0 (an id read as float) is '12'."""
    if value is None or _is_missing(value) or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def cell_number(value: Any) -> float | None:
    """A cell as a finite number, or None (text that is not a number, NaN, infinity, a boolean)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def default_scale(path: object, ratings: Sequence[float], field: str) -> Scale:
    """1-10 when every rating fits it (logged at INFO); otherwise an InputError on `field` asking for the scale."""
    low, high = DEFAULT_SCALE
    if ratings and not low <= min(ratings) <= max(ratings) <= high:
        message = (
            f"ratings run from {min(ratings):g} to {max(ratings):g}, outside the assumed 1-10 scale: "
            "give the scale with --rating-scale LOW-HIGH (e.g. 0.5-5) or name a scale column"
        )
        raise InputError(path, message, field=field)
    log.info("%s: no rating scale given; assuming 1-10 (every rating fits it)", path)
    return DEFAULT_SCALE


def _review(path: Path, row: _Row, scale: Scale, columns: ReviewColumns, bad_lines: BadLines) -> Review | None:
    low, high = scale
    if not low <= row.rating <= high:
        message = f"rating {row.rating:g} is outside {low:g}-{high:g}"
        bad_lines.report(InputError(path, message, line=row.line, field=columns.rating))
        return None
    score = (row.rating - low) / (high - low)
    return Review(user=row.user, item=row.item, rating=row.rating, text=row.text, score=score)
