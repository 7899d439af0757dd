"""Where an export is written: a scratch folder beside OUT that becomes OUT's content only when every file is
complete, so a failed export leaves nothing half-written; and synth_export.json in OUT, which names the
format and the files, so that --overwrite removes exactly those and readers know what the folder holds."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.runs.layout import EXPORT_MARKER

CARD_FILE = "README.md"  # a dataset card a person may have edited: kept in place and merged, never removed


@dataclass
class Staging:
    """The scratch folder an exporter writes into, and what it says about the export for the marker."""

    folder: Path
    facts: dict[str, Any] = field(default_factory=dict)


def read_marker(out_dir: Path) -> dict[str, Any] | None:
    """The marker of an export folder, or None when it has none."""
    path = out_dir / EXPORT_MARKER
    if not path.exists():
        return None
    try:
        marker = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SynthError(f"{path}: not a synth export marker ({exc})") from None
    if not isinstance(marker, dict) or not isinstance(marker.get("files"), list):
        raise SynthError(f"{path}: not a synth export marker (no 'files' list)")
    return marker


@contextmanager
def staged_export(out_dir: Path, to: str, overwrite: bool, *, fixed_files: tuple[str, ...] = ()) -> Iterator[Staging]:
    """A scratch folder to write the `to` export into; on success its files replace an earlier export in
    `out_dir` (only with `overwrite`) and the marker is written last. A folder holding anything else is refused
    before anything is written. With `fixed_files` (a Hub dry run, which must hold exactly the repository's
    files), no marker is written and an earlier export is those files."""
    earlier = _earlier_files(out_dir, overwrite, fixed_files)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.synth-export-", dir=out_dir.parent))
    try:
        staging = Staging(scratch)
        yield staging
        out_dir.mkdir(exist_ok=True)
        for path in earlier:
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        names = sorted(p.name for p in scratch.iterdir())
        for name in names:
            (scratch / name).replace(out_dir / name)
        if not fixed_files:
            marker = json.dumps({"format": to, "files": names, **staging.facts}, indent=2, ensure_ascii=False)
            (out_dir / EXPORT_MARKER).write_text(marker + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _earlier_files(out_dir: Path, overwrite: bool, fixed_files: tuple[str, ...]) -> list[Path]:
    """The files of an earlier export in `out_dir` that this one replaces; refuses a file, a folder with other
    content, or an earlier export without `overwrite`."""
    if out_dir.exists() and not out_dir.is_dir():
        raise SynthError(f"{out_dir} is a file, not a folder: choose a folder for the export")
    if not out_dir.exists() or not any(out_dir.iterdir()):
        return []
    marker = {"format": "dry run", "files": list(fixed_files)} if fixed_files else read_marker(out_dir)
    if marker is None:
        first = sorted(p.name for p in out_dir.iterdir())[0]
        raise SynthError(f"{out_dir} holds files that are not a synth export (e.g. {first}): choose an empty folder")
    ours = {EXPORT_MARKER, CARD_FILE, *marker["files"]}
    foreign = sorted(p.name for p in out_dir.iterdir() if p.name not in ours)
    if foreign:
        raise SynthError(
            f"{out_dir} holds files that are not part of its synth export (e.g. {foreign[0]}): choose an empty folder"
        )
    if not overwrite:
        raise SynthError(f"{out_dir} already holds a {marker.get('format', 'synth')} export: pass --overwrite to replace it")
    return [out_dir / name for name in [*marker["files"], EXPORT_MARKER] if name != CARD_FILE]
