"""Located reading helpers the dataset loaders share: lines, CSV rows, JSON, validation, bad records."""

from __future__ import annotations

import csv
import gzip
import json
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from synth.data.bad_lines import BadLines
from synth.errors import InputError

_PEEK_CHARS = 4096

Raw = TypeVar("Raw")
Out = TypeVar("Out")
Model = TypeVar("Model", bound=BaseModel)


def peek(path: Path) -> str:
    """The first few thousand characters of `path` (decompressed where its name ends in `.gz`), leading
    whitespace removed."""
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            return handle.read(_PEEK_CHARS).lstrip()
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without its line ending) for every line of a UTF-8 file, streamed; a file
    whose name ends in `.gz` is decompressed as it is read."""
    try:
        handle = gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
    with handle:
        number = 0
        try:
            for number, raw in enumerate(handle, start=1):
                try:
                    yield number, raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise InputError(path, f"not UTF-8 text ({exc.reason})", line=number) from None
        except (OSError, EOFError, zlib.error) as exc:  # a damaged or truncated gzip file, a failing disk
            raise InputError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}", line=number + 1) from None


def read_csv_rows(path: Path, columns: Iterable[str], **options: Any) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) for each row of a CSV-like file whose header must name `columns`."""
    reader = csv.DictReader((line for _, line in read_lines(path)), **options)
    missing = [column for column in columns if column not in (reader.fieldnames or [])]
    if missing:
        raise InputError(path, "missing column", line=1, field=missing[0])
    for row in reader:
        yield reader.line_num, row


def read_json_lines(path: Path, bad_lines: BadLines) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON Lines file; bad lines are reported."""
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            bad_lines.report(InputError(path, f"not valid JSON ({exc.msg})", line=number))
            continue
        if isinstance(value, dict):
            yield number, value
        else:
            bad_lines.report(InputError(path, "expected a JSON object", line=number))


def read_json_document(path: Path) -> Any:
    """The whole file parsed as one JSON value; a syntax error names its line."""
    text = "\n".join(line for _, line in read_lines(path))
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc.msg})", line=exc.lineno) from None


def validate(
    model: type[Model], raw: object, path: Path, line: int | None, prefix: str | None = None, *, kind: str | None = None
) -> Model:
    """`raw` validated as `model`; the InputError names the first bad field as a dotted path after `prefix`.
    With `kind` (e.g. "a run's manifest") the message says the value is not one: "not a run's manifest (...)"."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in ([prefix] if prefix else []) + list(error["loc"]))
        if kind is not None:
            message = f"not {kind} ({error['msg']})"
        else:
            message = "missing" if error["type"] == "missing" else error["msg"]
        raise InputError(path, message, line=line, field=field or None) from None


def collect(
    path: Path,
    records: Iterable[tuple[int, Raw]],
    parse: Callable[[Raw, int], Out],
    bad_lines: BadLines,
) -> list[Out]:
    """`parse(record, line)` for every record; an InputError is reported and its record skipped."""
    parsed: list[Out] = []
    seen, skipped_before = 0, bad_lines.skipped
    for line, record in records:
        seen += 1
        try:
            parsed.append(parse(record, line))
        except InputError as error:
            bad_lines.report(error)
    if not seen and bad_lines.skipped == skipped_before:
        raise InputError(path, "the file holds no records")
    return parsed


def normalise_space(text: str) -> str:
    """`text` with runs of whitespace made single spaces and the ends trimmed."""
    return " ".join(text.split())
