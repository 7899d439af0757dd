"""What `synth report` reads from a run folder (generated or filtered): the manifest, the filter report, the
items, and the dialogues kept and dropped, each dropped one with the filters' reasons."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from synth.benchmarks.stats.corpus import Corpus, Pair, load_corpus
from synth.data.readers import read_lines
from synth.data.synth_runs import dialogues_file, iter_records, record_dialogue
from synth.errors import InputError, SynthError
from synth.export.catalog import read_manifest, run_items
from synth.filters.pipeline import DROPPED_FILE, REPORT_FILE
from synth.records import DialogueRecord, Item

log = logging.getLogger(__name__)
T = TypeVar("T")


class Drop(BaseModel):
    """One filter's drop, as `synth filter` writes it: `turn` (0-based) names the offending utterance."""

    filter: str
    reason: str
    evidence: str | None = None
    turn: int | None = None
    score: float | None = None


@dataclass
class ReportedDialogue:
    """One dialogue as the report shows it: its record and, when a filter dropped it, every drop."""

    record: DialogueRecord
    drops: list[Drop] = field(default_factory=list)


@dataclass
class RunFiles:
    """A run folder's files: `filter_report` is None for a run that was never filtered."""

    path: Path
    manifest: dict[str, Any]
    filter_report: dict[str, Any] | None
    items: dict[str, Item]

    @property
    def kept_file(self) -> Path:
        return dialogues_file(self.path)

    @property
    def dropped_file(self) -> Path | None:
        return self.path / DROPPED_FILE if self.filter_report is not None else None

    def count(self) -> int:
        """Dialogues in the folder, kept and dropped."""
        files = [self.kept_file, *([self.dropped_file] if self.dropped_file else [])]
        return sum(1 for file in files for _, line in read_lines(file) if line.strip())

    def dialogues(self, wanted: set[int] | None = None) -> Iterator[ReportedDialogue]:
        """The kept dialogues, then the dropped ones; with `wanted`, only those positions (0-based over both)."""
        position = 0
        for _, _, record in iter_records(self.kept_file):
            if wanted is None or position in wanted:
                yield ReportedDialogue(record)
            position += 1
        for found in self.dropped():
            if wanted is None or position in wanted:
                yield found
            position += 1

    def dropped(self) -> Iterator[ReportedDialogue]:
        """The dialogues a filter dropped, each with its drops (none when the run was never filtered)."""
        if self.dropped_file is None:
            return
        for number, line in read_lines(self.dropped_file):
            if line.strip():
                yield _dropped(self.dropped_file, number, line)

    def corpora(self, sample: int | None = None, seed: int = 0) -> list[Corpus]:
        """The run as datasets to measure: all of it, or when filtered its kept and its dropped dialogues
        apart (an empty part is left out); with `sample`, a seeded sample of each."""
        name = self.path.resolve().name
        label = f"{name} (kept)" if self.filter_report else name
        parts = [load_corpus(f"{label}={self.path}", "synth", sample=sample, seed=seed)]
        if self.dropped_file is not None:
            total = sum(1 for _, line in read_lines(self.dropped_file) if line.strip())
            dropped = Corpus(f"{name} (dropped)", self.dropped_file, "synth", total, self._dropped_pairs)
            parts.append(dropped.sampled(sample, seed))
        return [corpus for corpus in parts if corpus.size]

    def _dropped_pairs(self) -> Iterator[Pair]:
        for found in self.dropped():
            yield record_dialogue(found.record), found.record


def open_run(path: Path) -> RunFiles:
    """The run folder at `path`: a generated run, or the --out folder of `synth filter`."""
    if not path.is_dir():
        raise InputError(path, "not a run folder (synth report reads the folder of `synth generate` or `synth filter`)")
    if not dialogues_file(path).exists():
        raise InputError(path, "this folder holds no dialogues.jsonl")
    report_path = path / REPORT_FILE
    filter_report = None
    if report_path.exists():
        try:
            filter_report = json.loads(report_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(report_path, f"not JSON ({exc.msg})", line=exc.lineno) from None
        if not (path / DROPPED_FILE).exists():
            raise InputError(path / DROPPED_FILE, f"missing: {REPORT_FILE} says this folder was filtered")
    return RunFiles(path, read_manifest(path), filter_report, _items(path, filter_report))


def _items(path: Path, filter_report: dict[str, Any] | None) -> dict[str, Item]:
    """The items the records name: the folder's own, else those of the run that was filtered; {} (ids shown
    instead of titles) when neither can be found."""
    folders = [path]
    if filter_report and filter_report.get("input"):
        source = Path(filter_report["input"])
        folders.append(source if source.is_dir() else source.parent)
    for folder in folders:
        try:
            return run_items(folder)
        except SynthError as exc:
            log.info("no items from %s: %s", folder, exc)
    log.warning("%s: no items.jsonl and no catalog to rebuild: candidates are shown by item id", path)
    return {}


def _dropped(path: Path, number: int, line: str) -> ReportedDialogue:
    """One line of dropped.jsonl: {"id", "drops": [...], "record": {...}}."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not JSON ({exc.msg})", line=number) from None
    if not isinstance(entry, dict) or "record" not in entry:
        raise InputError(path, "not a dropped-dialogue entry (needs 'drops' and 'record')", line=number)
    drops = _validated(_DROPS.validate_python, entry.get("drops"), path, number, "drops")
    record = _validated(DialogueRecord.model_validate, entry["record"], path, number, "record")
    return ReportedDialogue(record, drops)


_DROPS = TypeAdapter(list[Drop])


def _validated(validate: Callable[[Any], T], value: Any, path: Path, number: int, key: str) -> T:
    """`value` validated; a bad one is an InputError naming the line and the field under `key`."""
    try:
        return validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join([key, *(str(part) for part in error["loc"])])
        raise InputError(path, f"not a dropped-dialogue entry ({error['msg']})", line=number, field=field) from None
