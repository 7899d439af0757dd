"""Read a ratings file (.csv, .jsonl, .parquet, or a csv stream such as a MovieLens member) in checked chunks.

Each chunk is a pyarrow table with the columns `user` and `item` (stripped text), `rating` (float64, when asked
for) and the text columns asked for that the file has (e.g. `tags`). A csv is cut into blocks of whole lines
and each block parsed by pyarrow's csv reader; a block with any problem (a broken line, an empty id, a rating
that is not a number or is outside the scale, text that is not UTF-8) is read again line by line, so that a bad
line is reported to `BadLines` with the file, its physical line number (header = line 1) and the field. A csv
row must fit on one line (no line breaks inside quoted fields). In a parquet file the "line" is the row number.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from synth.data.bad_lines import BadLines
from synth.data.readers import read_json_lines
from synth.data.review_table import Scale, cell_number, cell_text
from synth.errors import InputError

Fields = dict[str, str]  # our name -> the file's column; "user" and "item" are ids, "rating" a number, the rest text
_IDS = ("user", "item")
_NUMBER = "rating"
_READ_SIZE = 1 << 22  # bytes per read from the stream
_FORMATS = (".csv", ".jsonl", ".ndjson", ".parquet")


@dataclass(frozen=True)
class Reading:
    """What to read from one file and how to check it; `fields` are the columns read (required + found optional)."""

    label: str
    fields: Fields
    scale: Scale | None
    bad_lines: BadLines
    chunk_rows: int

    def __post_init__(self) -> None:
        if self.chunk_rows < 1:
            raise ValueError(f"chunk_rows must be at least 1, not {self.chunk_rows}")


def file_chunks(
    path: Path, fields: Fields, optional: Fields, *, scale: Scale | None, bad_lines: BadLines, chunk_rows: int
) -> Iterator[pa.Table]:
    """Checked chunks of a .csv, .jsonl or .parquet file: `fields` must be columns, `optional` are read if present."""
    suffix = path.suffix.lower()
    if suffix not in _FORMATS:
        raise InputError(path, f"unknown format '{suffix}': use .csv, .jsonl or .parquet")
    reading = Reading(str(path), fields, scale, bad_lines, chunk_rows)
    if suffix == ".parquet":
        yield from _parquet_chunks(path, reading, optional)
    elif suffix == ".csv":
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
        with handle:
            yield from csv_chunks(reading, handle, optional)
    else:
        yield from _jsonl_chunks(path, reading, optional)


def csv_chunks(reading: Reading, stream: BinaryIO, optional: Fields) -> Iterator[pa.Table]:
    """Checked chunks of a csv file with a header line, read from a binary stream."""
    header = _header(reading.label, stream)
    reading = _with_columns(reading, header, optional)
    for index, block in enumerate(_line_blocks(stream, reading.chunk_rows)):
        table = _parse_block(block, header, reading)
        if table is None:  # something is wrong in this block: read it line by line to say where
            table = _rows_table(reading, _csv_rows(reading, block, 2 + index * reading.chunk_rows, header))
        if table.num_rows:
            yield table


def _with_columns(reading: Reading, names: list[str], optional: Fields) -> Reading:
    """`reading` with the optional fields the file has; a missing required column is an InputError."""
    for name, column in reading.fields.items():
        if column not in names:
            found = ", ".join(names) or "none"
            message = f"missing column '{column}' for {name} (columns found: {found})"
            raise InputError(reading.label, message, field=column)
    present = {name: column for name, column in optional.items() if column in names}
    return replace(reading, fields={**reading.fields, **present})


def _header(label: str, stream: BinaryIO) -> list[str]:
    try:
        text = stream.readline().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(label, f"not UTF-8 text ({exc.reason})", line=1) from None
    return [name.strip() for name in next(csv.reader([text.rstrip("\r\n")]), [])]


def _line_blocks(stream: BinaryIO, rows: int) -> Iterator[bytes]:
    """Blocks of `rows` whole lines (the last block may hold fewer) from the rest of a binary stream."""
    pieces: list[bytes] = []
    count = 0  # newlines in `pieces`, always below `rows` between reads
    while data := stream.read(_READ_SIZE):
        pieces.append(data)
        count += data.count(b"\n")
        while count >= rows:
            last = pieces.pop()
            before = count - last.count(b"\n")
            ends = np.flatnonzero(np.frombuffer(last, dtype=np.uint8) == ord("\n"))
            cut = int(ends[rows - before - 1]) + 1
            yield b"".join([*pieces, last[:cut]])
            pieces, count = [last[cut:]], len(ends) - (rows - before)
    if tail := b"".join(pieces):
        yield tail


def _parse_block(block: bytes, header: list[str], reading: Reading) -> pa.Table | None:
    """The block parsed by pyarrow and checked, or None when any line of it needs a closer look."""
    types = {column: pa.float64() if name == _NUMBER else pa.string() for name, column in reading.fields.items()}
    try:
        table = pacsv.read_csv(
            pa.py_buffer(block),
            read_options=pacsv.ReadOptions(column_names=header, use_threads=False),
            convert_options=pacsv.ConvertOptions(include_columns=list(types), column_types=types),
        )
    except pa.ArrowException:
        return None
    return _checked(table, reading)


def _checked(table: pa.Table, reading: Reading) -> pa.Table | None:
    """The table under our field names with ids stripped, or None when a value fails a check."""
    columns: dict[str, pa.ChunkedArray] = {}
    try:
        for name, column in reading.fields.items():
            if name in _IDS:
                values = pc.utf8_trim_whitespace(table[column].cast(pa.string()))
                if values.null_count or pc.any(pc.equal(values, "")).as_py():
                    return None
            elif name == _NUMBER:
                values = table[column].cast(pa.float64())
                if values.null_count or not _fits(values, reading.scale):
                    return None
            else:
                values = table[column].cast(pa.string())
            columns[name] = values
    except pa.ArrowException:  # a column that does not convert (e.g. a parquet rating stored as text)
        return None
    return pa.table(columns)


def _fits(values: pa.ChunkedArray, scale: Scale | None) -> bool:
    if not len(values):
        return True
    if not pc.all(pc.is_finite(values)).as_py():
        return False
    bounds = pc.min_max(values).as_py()
    return scale is None or scale[0] <= bounds["min"] and bounds["max"] <= scale[1]


def _csv_rows(reading: Reading, block: bytes, first_line: int, header: list[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row by column) for each good line of a block; broken lines go to bad_lines."""
    for line, raw in enumerate(block.split(b"\n"), start=first_line):
        try:
            text = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            reading.bad_lines.report(InputError(reading.label, f"not UTF-8 text ({exc.reason})", line=line))
            continue
        if not text.strip():
            continue
        try:
            values = next(csv.reader([text], strict=True))
        except csv.Error as exc:
            reading.bad_lines.report(InputError(reading.label, f"broken line ({exc})", line=line))
            continue
        if len(values) != len(header):
            message = f"expected {len(header)} fields, saw {len(values)}"
            reading.bad_lines.report(InputError(reading.label, message, line=line))
            continue
        yield line, dict(zip(header, values, strict=True))


def _rows_table(reading: Reading, rows: Iterable[tuple[int, Mapping[str, Any]]]) -> pa.Table:
    """The good rows as a chunk; each bad row goes to bad_lines with its line and first bad field."""
    kept: dict[str, list[Any]] = {name: [] for name in reading.fields}
    for line, raw in rows:
        values = _row(reading, line, raw)
        if values is not None:
            for name, value in zip(kept, values, strict=True):
                kept[name].append(value)
    return pa.table({name: pa.array(values, pa.float64() if name == _NUMBER else pa.string()) for name, values in kept.items()})


def _row(reading: Reading, line: int, raw: Mapping[str, Any]) -> list[Any] | None:
    values: list[Any] = []
    for name, column in reading.fields.items():
        value = raw.get(column)
        if name in _IDS:
            text = cell_text(value)
            if not text:
                return _bad(reading, line, column, f"empty {name}")
            values.append(text)
        elif name == _NUMBER:
            number = cell_number(value)
            if number is None:
                return _bad(reading, line, column, f"{name} is not a number: {value!r}")
            if reading.scale is not None and not reading.scale[0] <= number <= reading.scale[1]:
                low, high = reading.scale
                return _bad(reading, line, column, f"{name} {number:g} is outside {low:g}-{high:g}")
            values.append(number)
        else:
            values.append(cell_text(value) or None)
    return values


def _bad(reading: Reading, line: int, column: str, message: str) -> None:
    reading.bad_lines.report(InputError(reading.label, message, line=line, field=column))


def _jsonl_chunks(path: Path, reading: Reading, optional: Fields) -> Iterator[pa.Table]:
    """JSON Lines, one object per line; the columns are the keys seen in the first chunk."""
    rows = read_json_lines(path, reading.bad_lines)
    batch = list(islice(rows, reading.chunk_rows))
    reading = _with_columns(reading, list(dict.fromkeys(key for _, row in batch for key in row)), optional)
    while batch:
        yield _rows_table(reading, batch)
        batch = list(islice(rows, reading.chunk_rows))


def _parquet_chunks(path: Path, reading: Reading, optional: Fields) -> Iterator[pa.Table]:
    try:
        parquet = pq.ParquetFile(path)
        reading = _with_columns(reading, list(parquet.schema_arrow.names), optional)
        first_row = 1
        for batch in parquet.iter_batches(batch_size=reading.chunk_rows, columns=list(reading.fields.values())):
            table = pa.Table.from_batches([batch])
            checked = _checked(table, reading)
            if checked is None:
                checked = _rows_table(reading, enumerate(table.to_pylist(), start=first_row))
            first_row += batch.num_rows
            yield checked
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
    except pa.ArrowException as exc:
        raise InputError(path, f"not a readable parquet file ({exc})") from None
