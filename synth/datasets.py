"""Any supported dialogue dataset, synth runs and human datasets alike, loaded into `Dialogue`s by format name or
by a look at the file. It sits above the run folder (synth runs are one of its formats) and the loaders."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from synth.data import gorecdial_parlai, iard, inspired, pearl, redial
from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue
from synth.data.readers import peek, read_lines
from synth.errors import InputError
from synth.runs.layout import dialogues_file
from synth.runs.records import RECORD_KEYS, load_synth

LOADERS: dict[str, Callable[..., list[Dialogue]]] = {
    "redial": redial.load_redial,
    "inspired": inspired.load_inspired,
    "iard": iard.load_iard,
    "pearl": pearl.load_pearl,
    "gorecdial": gorecdial_parlai.load_gorecdial,
    "synth": load_synth,
}
FORMATS = tuple(LOADERS)


def load_dialogues(path: Path | str, format: str | None = None, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """Dialogues from `path` (a file, or a synth run folder) in the named format, or the one `detect_format` finds."""
    path = dialogues_file(Path(path))
    name = format or detect_format(path)
    if name not in LOADERS:
        raise InputError(path, f"unknown dialogue format '{name}'; known formats: {', '.join(FORMATS)}")
    return LOADERS[name](path, bad_lines=bad_lines)


def detect_format(path: Path) -> str:
    """The format of `path` (a file, or a synth run folder), told from its suffix and its first characters."""
    path = dialogues_file(path)
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
        keys = _object_keys(_first_line(path))
        if RECORD_KEYS <= keys:
            return "synth"
        if "messages" in keys:
            return "redial"
        if "dialogue" in keys:
            return "pearl"
    raise InputError(path, f"cannot tell the dialogue format from the file; pass one of: {', '.join(FORMATS)}")


def _first_line(path: Path) -> str:
    """The whole first non-blank line (a synth record is longer than `peek` reads)."""
    return next((line for _, line in read_lines(path) if line.strip()), "")


def _object_keys(line: str) -> set[str]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return set()
    return set(value) if isinstance(value, dict) else set()
