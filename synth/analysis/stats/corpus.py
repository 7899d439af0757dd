"""A dataset opened for statistics: its dialogues in the common model, read one at a time (a synth run is
streamed from disk, so a 50k-dialogue run never sits in memory), with the records when synth made it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from synth.analysis.metrics.similarity import sample_indices
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.paths import named_dataset
from synth.data.readers import read_lines
from synth.datasets import detect_format, load_dialogues
from synth.records import DialogueRecord
from synth.runs.layout import dialogues_file
from synth.runs.records import domain_beside, items_beside, iter_records, record_dialogue

_MENTION = re.compile(r"@(\d+)")  # ReDial / IARD movie mentions
Pair = tuple[Dialogue, DialogueRecord | None]


@dataclass
class Corpus:
    name: str
    path: Path
    format: str
    total: int  # dialogues in the source
    read: Callable[[], Iterator[Pair]]  # every dialogue of the source, in order, each time it is called
    chosen: list[int] | None = None  # positions of a seeded sample; None: all

    @property
    def size(self) -> int:
        return self.total if self.chosen is None else len(self.chosen)

    def __iter__(self) -> Iterator[Pair]:
        """The dialogues measured (the sample's, when there is one), with their synth records."""
        if self.chosen is None:
            yield from self.read()
            return
        wanted = set(self.chosen)
        yield from (pair for position, pair in enumerate(self.read()) if position in wanted)

    def sampled(self, size: int | None, seed: int) -> Corpus:
        """This corpus limited to a seeded sample of `size` dialogues (the same seed, the same sample)."""
        if size is not None:
            self.chosen = sample_indices(self.total, size, seed)
        return self

    @classmethod
    def of(cls, name: str, dialogues: Sequence[Dialogue], records: Sequence[DialogueRecord] | None = None) -> Corpus:
        """A corpus over dialogues already in memory."""
        pairs = list(zip(dialogues, records or [None] * len(dialogues)))
        source = "synth" if records is not None else (dialogues[0].source if dialogues else "synth")
        return cls(name, Path(name), source, len(pairs), lambda: iter(pairs))


def parse_spec(spec: str) -> tuple[str | None, Path]:
    """'LABEL=PATH' or 'PATH' -> (label or None, path)."""
    label, sep, path = spec.partition("=")
    if sep and label and not Path(spec).exists():
        return label, Path(path)
    return None, Path(spec)


def resolve_spec(spec: str) -> tuple[str | None, Path]:
    """As `parse_spec`, and a shared set's name (e.g. 'redial-test', synth.data.paths) read as its file, with
    the name as its label."""
    label, path = parse_spec(spec)
    shared = None if path.exists() else named_dataset(str(path))
    return (label or str(path), shared) if shared is not None else (label, path)


def load_corpus(spec: str, format: str | None = None, *, sample: int | None = None, seed: int = 0) -> Corpus:
    """The dataset at `spec` ('LABEL=PATH', 'PATH' or a shared set's name), its format detected unless given;
    with `sample`, a seeded subset of that many dialogues (the same seed gives the same subset)."""
    label, path = resolve_spec(spec)
    name = format or detect_format(path)
    stem = path.name if path.is_dir() else path.stem
    if name == "synth":
        file = dialogues_file(path)
        total = sum(1 for _, line in read_lines(file) if line.strip())
        corpus = Corpus(label or f"synth {stem}", path, name, total, lambda: _synth_pairs(file))
    else:
        dialogues = load_dialogues(path, name)
        corpus = Corpus(label or f"{name} {stem}", path, name, len(dialogues), lambda: ((d, None) for d in dialogues))
    return corpus.sampled(sample, seed)


def _synth_pairs(file: Path) -> Iterator[Pair]:
    """Each record with its common view, whose turns name the items the text mentions (with items.jsonl)."""
    catalog, short_titles = items_beside(file), domain_beside(file).short_titles
    for found in iter_records(file):
        yield record_dialogue(found.record, catalog, short_titles), found.record


def utterance_text(dialogue: Dialogue, turn: DialogueTurn) -> str:
    """The text a reader sees: ReDial's "@123" mentions become the movie's title, as generated text writes it."""
    if "@" not in turn.text or not dialogue.items:
        return turn.text
    return _MENTION.sub(lambda m: dialogue.items.get(m.group(1), m.group(0)), turn.text)
