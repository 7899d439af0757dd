"""Writers that leave a file whole or not at all: the text goes to a temporary file beside it, which is
then renamed into place, so a crash never leaves half a manifest or catalog."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from synth.records import Item


def write_lines_atomic(path: Path, lines: Iterable[str]) -> None:
    """Write `lines` (each with its line ending) to `path` atomically."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as out:
            out.writelines(lines)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` atomically."""
    write_lines_atomic(path, [text])


def write_json_atomic(path: Path, value: Any, *, ensure_ascii: bool = True) -> None:
    """`value` as indented JSON with a final newline, written atomically."""
    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=ensure_ascii) + "\n")


def write_items(path: Path, catalog: dict[str, Item]) -> None:
    """The catalog as JSON Lines, written atomically."""
    write_lines_atomic(path, (item.model_dump_json() + "\n" for item in catalog.values()))
