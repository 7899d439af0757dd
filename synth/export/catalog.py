"""The items a run's records name: the run's items.jsonl, else its catalog rebuilt from the manifest's config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from synth.data.readers import read_lines
from synth.errors import InputError, SynthError
from synth.records import Item
from synth.resume import ITEMS_FILE, MANIFEST_FILE


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's manifest.json, or {} when the folder has none (a bare .jsonl was given)."""
    path = run_dir / MANIFEST_FILE
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not JSON ({exc.msg})", line=exc.lineno) from None


def run_items(run_dir: Path) -> dict[str, Item]:
    """Item id -> Item for every item the run could name."""
    path = run_dir / ITEMS_FILE
    if path.exists():
        return {item.id: item for item in _read_items(path)}
    config = read_manifest(run_dir).get("config")
    if config is None:
        raise SynthError(f"{run_dir} has neither {ITEMS_FILE} nor a manifest to rebuild the catalog from")
    from synth.config import GenerateConfig
    from synth.modes import load_data

    try:
        return load_data(GenerateConfig.model_validate(config)).catalog
    except (SynthError, OSError) as exc:
        raise SynthError(f"{run_dir} has no {ITEMS_FILE} and its catalog could not be rebuilt: {exc}") from None


def _read_items(path: Path) -> list[Item]:
    items = []
    for number, line in read_lines(path):
        if line.strip():
            try:
                items.append(Item.model_validate_json(line))
            except ValueError as exc:
                raise InputError(path, f"not an item ({exc.__class__.__name__})", line=number) from None
    return items
