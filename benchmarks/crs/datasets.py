"""Benchmark datasets: any dialogue file or run the data layer reads, as conversations whose utterances
carry catalog ids of the items they mention. A shared set may be named (redial-test, ...: see
synth.data.paths.SHARED_DATASETS)."""

from __future__ import annotations

import hashlib
import logging
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from synth.analysis.stats.corpus import resolve_spec, utterance_text
from synth.benchmarks.crs.items import ItemSpace, MappingReport
from synth.data.dialogues import Dialogue, Role
from synth.data.fetch import stream_digest
from synth.datasets import detect_format, export_marker, load_dialogues
from synth.errors import InputError, SynthError
from synth.filters.titles import TitleSpotter
from synth.records import DialogueRecord, Item
from synth.runs.layout import dialogues_file
from synth.runs.records import load_records

logger = logging.getLogger(__name__)

SAMPLED_PART = re.compile(r"(?P<part>.+)@(?P<size>\d+)")  # 'redial-train@100': a seeded 100 of its dialogues

@dataclass(frozen=True)
class Utterance:
    role: Role
    text: str  # as a reader sees it: ReDial "@123" written as the movie's name
    items: tuple[str, ...]  # catalog ids of the items it mentions, in order


@dataclass(frozen=True)
class Conversation:
    id: str
    utterances: tuple[Utterance, ...]


@dataclass
class DatasetSpec:
    """One benchmark dataset: several paths under one label are pooled; a path in `sizes` gives only that many
    of its dialogues (the first of its seeded order, so a smaller size is part of a larger one)."""

    label: str
    paths: list[Path]
    format: str | None = None
    sizes: dict[Path, int] = field(default_factory=dict)


@dataclass
class BenchmarkDataset:
    label: str
    paths: list[Path]
    conversations: list[Conversation]
    mapping: MappingReport
    fingerprint: str  # sha256 of the files read: a fitted model is reused only on the same data
    formats: list[str] = field(default_factory=list)


def parse_specs(specs: Sequence[str], format: str | None = None) -> list[DatasetSpec]:
    """'LABEL=PATH', 'PATH' or a shortcut (redial-train, redial-test, inspired-dev, inspired-test); 'A+B' joins
    sets into one (`both=redial-train+runs/x`), as a label given twice pools its paths; 'PATH@N' takes a seeded
    N of its dialogues (`scarce=redial-train@100+runs/x`)."""
    pooled: dict[str, DatasetSpec] = {}
    for spec in specs:
        label, parts = _joined(spec)
        first = parts[0][0]
        label = label or (first.name if first.is_dir() else first.stem)
        dataset = pooled.setdefault(label, DatasetSpec(label, [], format))
        dataset.paths.extend(path for path, _ in parts)
        dataset.sizes.update({path: size for path, size in parts if size is not None})
    return list(pooled.values())


def _joined(spec: str) -> tuple[str | None, list[tuple[Path, int | None]]]:
    """The label and parts (a path, and the size asked of it) of one spec; a path that does not exist but whose
    '+'-separated parts do is a join (its label, when none is given, is the spec itself)."""
    label, path = resolve_spec(spec)
    if path.exists() or "+" not in str(path):
        part = _part(str(path), label)
        return label or (str(path) if part[1] is not None else None), [part]
    return label or str(path), [_part(part, None, join=spec) for part in str(path).split("+")]


def _part(spec: str, label: str | None, join: str | None = None) -> tuple[Path, int | None]:
    """One existing path, and the N of a 'PATH@N' that names no file itself."""
    path, size = resolve_spec(spec)[1], None
    if not path.exists() and (sampled := SAMPLED_PART.fullmatch(spec)):
        path, size = resolve_spec(sampled["part"])[1], int(sampled["size"])
        if size == 0:
            raise InputError(path, f"'{spec}' asks for no dialogues")
    if not path.exists():
        where = f" (in the join '{join}')" if join else f" (for '{label}')" if label else ""
        raise InputError(path, "no such file or run folder" + where)
    return path, size


def load_dataset(spec: DatasetSpec, space: ItemSpace, seed: int = 0) -> BenchmarkDataset:
    """The spec's conversations, their item names resolved in `space` (which grows by the titles it lacks); a
    path with a size gives that many of its dialogues, the first of an order shuffled by `seed`."""
    conversations: list[Conversation] = []
    mapping = MappingReport()
    formats = []
    digest = hashlib.sha256()
    for path in spec.paths:
        marker = export_marker(path)  # a `synth export` folder: every split file it lists
        file = path if marker else dialogues_file(path)
        for part in [path / name for name in marker["dialogue_files"].values()] if marker else [file]:
            digest.update(file_digest(part).encode())
        name = spec.format or detect_format(file)
        formats.append(name)
        if name == "synth":
            titles = run_catalog(path)
            loaded = [record_conversation(r, titles, space, mapping) for r in load_records(path)]
        else:
            loaded = [dialogue_conversation(d, space, mapping) for d in load_dialogues(file, name)]
        if path in spec.sizes:
            loaded = first_of_seeded_order(loaded, spec.sizes[path], seed, path)
            digest.update(f"@{spec.sizes[path]}:{seed}".encode())
        conversations += loaded
    return BenchmarkDataset(spec.label, spec.paths, conversations, mapping, digest.hexdigest(), formats)


def first_of_seeded_order(conversations: list[Conversation], size: int, seed: int, path: Path) -> list[Conversation]:
    """The first `size` conversations of an order shuffled by `seed`, in their own order: 100 of a set are
    among its 300, so a scarce regime grows by adding dialogues, not by drawing others."""
    if size > len(conversations):
        raise InputError(path, f"has {len(conversations):,} dialogues, fewer than the {size:,} asked for (@{size})")
    order = list(range(len(conversations)))
    random.Random(f"sample-{seed}").shuffle(order)
    return [conversations[i] for i in sorted(order[:size])]


def dialogue_conversation(dialogue: Dialogue, space: ItemSpace, mapping: MappingReport) -> Conversation:
    """A human dataset's dialogue: each turn's annotated items, by name."""
    utterances = []
    for turn in dialogue.turns:
        items = tuple(space.resolve(dialogue.items.get(i, i), mapping) for i in dict.fromkeys(turn.items))
        utterances.append(Utterance(turn.role, utterance_text(dialogue, turn), items))
    return Conversation(dialogue.id, tuple(utterances))


def record_conversation(
    record: DialogueRecord, titles: dict[str, Item], space: ItemSpace, mapping: MappingReport
) -> Conversation:
    """A generated dialogue: the recommended item of each recommender turn, plus every item of the record
    (the persona's, the target, the recommendations) that a turn names in its text."""
    known = [r.item for r in record.persona.general] if record.persona else []
    known += [record.target_item.id] + [t.recommended_item for t in record.turns if t.recommended_item]
    names = {item_id: titles[item_id].display if item_id in titles else None for item_id in dict.fromkeys(known)}
    names[record.target_item.id] = record.target_item.display
    spotters = {item_id: TitleSpotter(name) for item_id, name in names.items() if name}
    utterances = []
    for turn in record.turns:
        mentioned = [turn.recommended_item] if turn.recommended_item else []
        mentioned += [item_id for item_id, spotter in spotters.items() if spotter.find(turn.text)]
        items = tuple(
            space.resolve(names[i], mapping, item_id=i) for i in dict.fromkeys(mentioned) if names.get(i)
        )
        utterances.append(Utterance(turn.role, turn.text, items))
    return Conversation(record.id, tuple(utterances))


def run_catalog(path: Path) -> dict[str, Item]:
    """The items a run could name (its items.jsonl, or rebuilt from its manifest). A lone .jsonl file without
    either beside it names only each record's target, with a warning."""
    from synth.runs.folder import RunFolder

    try:
        return RunFolder(dialogues_file(path).parent, dialogues_file(path)).items
    except SynthError as exc:
        if path.is_dir():
            raise
        logger.warning("%s; only each dialogue's target item is known", exc)
        return {}


def file_digest(path: Path) -> str:
    """sha256 of a file, or of every file under a folder (a Hugging Face export's split), in name order."""
    if path.is_dir():
        digest = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(file_digest(file).encode())
        return digest.hexdigest()
    with path.open("rb") as handle:
        return stream_digest(handle)


def describe(datasets: Iterable[BenchmarkDataset]) -> dict[str, dict[str, object]]:
    """Sizes and item mapping of each dataset, for the results file."""
    return {
        d.label: {
            "paths": [str(p) for p in d.paths],
            "formats": sorted(set(d.formats)),
            "dialogues": len(d.conversations),
            "items": d.mapping.as_dict(),
        }
        for d in datasets
    }
