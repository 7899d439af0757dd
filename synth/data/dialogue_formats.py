"""Load any supported dialogue dataset into `Dialogue`s, by format name or by a look at the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from synth.data import gorecdial_parlai, iard, inspired, pearl, redial
from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue
from synth.data.readers import peek
from synth.errors import InputError

LOADERS: dict[str, Callable[..., list[Dialogue]]] = {
    "redial": redial.load_redial,
    "inspired": inspired.load_inspired,
    "iard": iard.load_iard,
    "pearl": pearl.load_pearl,
    "gorecdial": gorecdial_parlai.load_gorecdial,
}
FORMATS = tuple(LOADERS)


def load_dialogues(path: Path | str, format: str | None = None, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """Dialogues from `path` in the named format, or in the format `detect_format` finds."""
    path = Path(path)
    name = format or detect_format(path)
    if name not in LOADERS:
        raise InputError(path, f"unknown dialogue format '{name}'; known formats: {', '.join(FORMATS)}")
    return LOADERS[name](path, bad_lines=bad_lines)


def detect_format(path: Path) -> str:
    """The format of `path`, told from its suffix and its first characters."""
    head = peek(path)
    first_line = head.split("\n", 1)[0]
    suffix = path.suffix.lower()
    if suffix == ".tsv" and {"dialog_id", "speaker", "text"} <= set(first_line.split("\t")):
        return "inspired"
    if suffix == ".txt" and any(field.startswith("text:") for field in first_line.split("\t")):
        return "gorecdial"
    if suffix in (".json", ".jsonl"):
        if head.startswith("["):
            return "pearl"
        if '"dialogue_info"' in head:
            return "iard"
        keys = _object_keys(first_line)
        if "messages" in keys:
            return "redial"
        if "dialogue" in keys:
            return "pearl"
    raise InputError(path, f"cannot tell the dialogue format from the file; pass one of: {', '.join(FORMATS)}")


def _object_keys(line: str) -> set[str]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return set()
    return set(value) if isinstance(value, dict) else set()
