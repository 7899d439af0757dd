"""What an output folder already holds: the run's fingerprint and the dialogues it finished, so that a
re-run of the same command continues where the last one stopped (after a crash, kill -9 or Ctrl-C)."""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from synth.config import NON_SEMANTIC_FIELDS, GenerateConfig
from synth.data.synth_runs import DIALOGUES_FILE as DIALOGUES_FILE  # the run layout lives with its reader
from synth.errors import InputError, SynthError
from synth.records import DialogueRecord

log = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"
REQUESTS_FILE = "requests.sqlite"  # the request cache of the run
ITEMS_FILE = "items.jsonl"  # the catalog the run drew from, so exports need no source files


def check_same_run(manifest_path: Path, config: GenerateConfig) -> None:
    """Refuse to add to a folder whose run had another configuration (non-semantic options may differ)."""
    if not manifest_path.exists():
        return
    try:
        earlier = json.loads(manifest_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SynthError(f"{manifest_path}: cannot read the earlier run's manifest ({exc}); pass --overwrite to start again") from None
    earlier_shard = earlier.get("config", {}).get("shard")
    if earlier.get("fingerprint") == config.fingerprint():
        if earlier_shard != config.shard:
            raise SynthError(
                f"{manifest_path.parent} holds shard {earlier_shard or 'none'} of this run, not {config.shard or 'the whole run'}; "
                "give each shard its own --out"
            )
        return
    ours = config.model_dump(mode="json", exclude=NON_SEMANTIC_FIELDS)
    theirs = earlier.get("config", {})
    changed = sorted(k for k in ours if k != "base_url" and theirs.get(k) != ours[k])
    detail = ", ".join(f"{k}: {theirs.get(k)!r} -> {ours[k]!r}" for k in changed[:5]) or "prompts or settings"
    raise SynthError(
        f"{manifest_path.parent} holds a run with another configuration ({detail}); "
        "use the same settings to resume it, another --out, or --overwrite to replace it"
    )


def drop_torn_tail(path: Path, block: int = 1 << 16) -> int:
    """Cut a last line that a crash left without its newline; returns the bytes removed."""
    if not path.exists():
        return 0
    with path.open("rb+") as handle:
        size = end = handle.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            if end == size and chunk.endswith(b"\n"):
                return 0
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
                break
            end = start
        handle.truncate(end)
    if end < size:
        log.warning("%s: dropped %d bytes of a record cut short when the last run ended", path, size - end)
    return size - end


def finished_records(path: Path) -> Iterator[DialogueRecord]:
    """The records already in `path`, one by one; a damaged complete line is an error naming its line."""
    if not path.exists():
        return
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = DialogueRecord.model_validate_json(line)
            except ValidationError as exc:
                raise InputError(path, f"not a dialogue record ({exc.errors()[0]['msg']}); fix or remove the line", line=number) from None
            if record.id in seen:
                raise InputError(path, f"dialogue '{record.id}' appears twice", line=number, field="id")
            seen.add(record.id)
            yield record


def copy_items(run_dir: Path, out_dir: Path) -> None:
    """Carry a run's items.jsonl into a folder derived from it (merged shards, filtered runs)."""
    source = run_dir / ITEMS_FILE
    if source.exists() and source.resolve() != (out_dir / ITEMS_FILE).resolve():
        shutil.copyfile(source, out_dir / ITEMS_FILE)
