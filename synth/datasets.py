"""Any supported dialogue dataset, synth runs and human datasets alike, loaded into `Dialogue`s by format name or
by a look at the file. It sits above the run folder (synth runs are one of its formats) and the loaders."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synth.data import crslab, dialoguekit, gorecdial_parlai, iard, inspired, pearl, redial
from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue
from synth.data.readers import peek, read_json_document, read_lines
from synth.errors import InputError
from synth.runs.layout import EXPORT_MARKER, dialogues_file
from synth.runs.records import RECORD_KEYS, load_synth

LOADERS: dict[str, Callable[..., list[Dialogue]]] = {
    "redial": redial.load_redial,
    "inspired": inspired.load_inspired,
    "iard": iard.load_iard,
    "pearl": pearl.load_pearl,
    "gorecdial": gorecdial_parlai.load_gorecdial,
    "crslab": crslab.load_crslab,
    "dialoguekit": dialoguekit.load_dialoguekit,
    "synth": load_synth,
}
FORMATS = tuple(LOADERS)


def load_dialogues(path: Path | str, format: str | None = None, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """Dialogues from `path` (a file, a synth run folder, or a `synth export` folder, all of its splits in order,
    each dialogue's split in meta) in the named format, or the one `detect_format` finds."""
    path = Path(path)
    marker = export_marker(path)
    if marker is not None:
        return _load_export(path, marker, format, bad_lines)
    path = dialogues_file(path)
    name = format or detect_format(path)
    if name not in LOADERS:
        raise InputError(path, f"unknown dialogue format '{name}'; known formats: {', '.join(FORMATS)}")
    return LOADERS[name](path, bad_lines=bad_lines)


def export_marker(path: Path) -> dict[str, Any] | None:
    """The synth_export.json of an export folder `path`; None for anything else."""
    marker = path / EXPORT_MARKER
    if not path.is_dir() or not marker.exists():
        return None
    value = read_json_document(marker)
    if not isinstance(value, dict) or not isinstance(value.get("dialogue_files"), dict):
        raise InputError(marker, "not a synth export marker", field="dialogue_files")
    return value


def _load_export(folder: Path, marker: dict[str, Any], format: str | None, bad_lines: BadLines | None) -> list[Dialogue]:
    name = format or marker.get("format")
    if name == "hf":
        name = "pearl"  # a DatasetDict export carries PEARL's columns
    if name not in LOADERS:
        raise InputError(folder / EXPORT_MARKER, f"no reader for the '{name}' export", field="format")
    dialogues = []
    for split, file in marker["dialogue_files"].items():
        path = folder / file
        loaded = pearl.load_pearl_rows(path, bad_lines=bad_lines) if path.is_dir() else LOADERS[name](path, bad_lines=bad_lines)
        dialogues += [d.model_copy(update={"meta": {**d.meta, "split": split}}) for d in loaded]
    return dialogues


def detect_format(path: Path) -> str:
    """The format of `path` (a file, a synth run folder, or an export folder), told from its suffix and its
    first characters (or the export's marker)."""
    marker = export_marker(path)
    if marker is not None:
        return "pearl" if marker.get("format") == "hf" else str(marker.get("format"))
    path = dialogues_file(path)
    head = peek(path)
    first_line = head.split("\n", 1)[0]
    suffix = Path(path.name.lower().removesuffix(".gz")).suffix  # what a compressed file holds
    if suffix == ".tsv" and {"dialog_id", "speaker", "text"} <= set(first_line.split("\t")):
        return "inspired"
    if suffix == ".txt" and any(field.startswith("text:") for field in first_line.split("\t")):
        return "gorecdial"
    if suffix in (".json", ".jsonl"):
        if head.startswith("["):
            return _list_format(head)
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


def _list_format(head: str) -> str:
    """A JSON list of dialogues: CRSLab's ("dialog"), DialogueKit's ("conversation") or PEARL's ("dialogue")."""
    keys = re.findall(r'"(dialog|dialogue|conversation)"\s*:', head)
    return {"dialog": "crslab", "conversation": "dialoguekit"}.get(keys[0] if keys else "dialogue", "pearl")


def _first_line(path: Path) -> str:
    """The whole first non-blank line (a synth record is longer than `peek` reads)."""
    return next((line for _, line in read_lines(path) if line.strip()), "")


def _object_keys(line: str) -> set[str]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return set()
    return set(value) if isinstance(value, dict) else set()
