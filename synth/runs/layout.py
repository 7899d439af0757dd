"""The files of a run folder (`synth generate`, `synth merge`, `synth filter` write the same layout)."""

from __future__ import annotations

import shutil
from pathlib import Path

DIALOGUES_FILE = "dialogues.jsonl"  # one DialogueRecord per line; a filtered folder's kept dialogues
MANIFEST_FILE = "manifest.json"  # what was asked, with what, and what came out
ITEMS_FILE = "items.jsonl"  # the catalog the run drew from, so exports need no source files
REQUESTS_FILE = "requests.sqlite"  # the request cache of the run
DROPPED_FILE = "dropped.jsonl"  # a filtered folder's dropped dialogues, each with its drops
FILTER_REPORT_FILE = "filter_report.json"  # what the filters did
SHARDS_DIR = "shards"  # a Ray run's shard folders, each a run folder of its own
EXPORT_MARKER = "synth_export.json"  # an export folder's format, files and findings (synth export)
PLAN_FILE = "plan.json"  # in SHARDS_DIR: how the Ray run is split
RATING_SCORES_FILE = "rating_scores.json"  # scored human ratings (synth rate score --out), shown by synth report


def dialogues_file(path: Path) -> Path:
    """A run folder means its dialogues.jsonl (its dialogues.jsonl.gz in a compressed folder, kept to be read);
    a file is itself."""
    return run_file(path, DIALOGUES_FILE) if path.is_dir() else path


def run_file(folder: Path, name: str) -> Path:
    """The folder's file of that name, or its gzip-compressed copy (`name.gz`) where only that is there."""
    compressed = folder / f"{name}.gz"
    return compressed if compressed.exists() and not (folder / name).exists() else folder / name


def shard_folder(out_dir: Path, index: int, count: int) -> Path:
    """The folder of shard `index` of `count` inside a Ray run's folder."""
    return out_dir / SHARDS_DIR / f"{index}-of-{count}"


def copy_items(run_dir: Path, out_dir: Path) -> None:
    """Carry a run's items.jsonl into a folder derived from it (merged shards, filtered runs)."""
    source = run_dir / ITEMS_FILE
    if source.exists() and source.resolve() != (out_dir / ITEMS_FILE).resolve():
        shutil.copyfile(source, out_dir / ITEMS_FILE)
