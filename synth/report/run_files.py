"""What `synth report` reads from a run folder (generated or filtered), through the run folder's one reader:
the dialogues kept and dropped (each dropped one with the filters' reasons), the items, and the run as
datasets to measure. The dialogue files are counted once and read once per pass (browser, statistics, acts)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from synth.analysis.stats.corpus import Corpus, Pair
from synth.errors import InputError, SynthError
from synth.records import DialogueRecord, Item
from synth.runs.filtering import Drop
from synth.runs.folder import RunFolder
from synth.runs.layout import dialogues_file
from synth.runs.records import record_dialogue

log = logging.getLogger(__name__)


@dataclass
class ReportedDialogue:
    """One dialogue as the report shows it: its record and, when a filter dropped it, every drop."""

    record: DialogueRecord
    drops: list[Drop] = field(default_factory=list)


def open_run(path: Path) -> RunFolder:
    """The run folder at `path`: a generated run, or the --out folder of `synth filter` (its filter report
    read and checked here, before any page is written)."""
    if not path.is_dir():
        raise InputError(path, "not a run folder (synth report reads the folder of `synth generate` or `synth filter`)")
    run = RunFolder.open(path)
    _ = run.filter_report
    return run


def dialogue_count(run: RunFolder) -> int:
    """Dialogues in the folder, kept and dropped."""
    return run.kept_count + run.dropped_count


def reported_dialogues(run: RunFolder, wanted: set[int] | None = None) -> Iterator[ReportedDialogue]:
    """The kept dialogues, then the dropped ones; with `wanted`, only those positions (0-based over both)."""
    position = 0
    for record in run.records():
        if wanted is None or position in wanted:
            yield ReportedDialogue(record)
        position += 1
    for found in run.dropped():
        if wanted is None or position in wanted:
            yield ReportedDialogue(found.record, found.drops)
        position += 1


def run_corpora(run: RunFolder, sample: int | None = None, seed: int = 0) -> list[Corpus]:
    """The run as datasets to measure: all of it, or when filtered its kept and its dropped dialogues apart
    (an empty part is left out); with `sample`, a seeded sample of each."""
    name = run.folder.resolve().name
    label = f"{name} (kept)" if run.filter_report else name
    parts = [Corpus(label, run.folder, "synth", run.kept_count, lambda: _pairs(run.records()))]
    if run.dropped_file is not None:
        dropped = Corpus(f"{name} (dropped)", run.dropped_file, "synth", run.dropped_count,
                         lambda: _pairs(found.record for found in run.dropped()))
        parts.append(dropped)
    return [corpus.sampled(sample, seed) for corpus in parts if corpus.total]


def _pairs(records: Iterator[DialogueRecord]) -> Iterator[Pair]:
    for record in records:
        yield record_dialogue(record), record


def report_items(run: RunFolder) -> dict[str, Item]:
    """The items the records name: the folder's own, else those of the run that was filtered; {} (ids shown
    instead of titles) when neither can be found."""
    folders = [run]
    if run.filter_report and run.filter_report.input:
        source = Path(run.filter_report.input)
        file = dialogues_file(source)
        folders.append(RunFolder(file.parent, file))
    for folder in folders:
        try:
            return folder.items
        except SynthError as exc:
            log.info("no items from %s: %s", folder.folder, exc)
    log.warning("%s: no items.jsonl and no catalog to rebuild: candidates are shown by item id", run.folder)
    return {}
