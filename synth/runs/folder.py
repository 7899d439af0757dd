"""A run folder as every command reads it (a generated, merged or filtered run): the manifest and the
filter report read once, the items its records name, and its dialogues streamed from disk once per pass."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.domain import Domain, domain_for_run
from synth.errors import InputError, SynthError
from synth.records import DialogueRecord, Item
from synth.runs.filtering import DroppedDialogue, FilterReport, iter_dropped, read_filter_report
from synth.runs.layout import DROPPED_FILE, FILTER_REPORT_FILE, ITEMS_FILE, MANIFEST_FILE, dialogues_file, run_file
from synth.runs.manifest import Manifest, read_manifest
from synth.runs.records import count_records, iter_records, read_items


@dataclass
class RunFolder:
    """The run in `folder`; `file` is its dialogues .jsonl (the kept dialogues of a filtered run)."""

    folder: Path
    file: Path

    @classmethod
    def open(cls, path: Path) -> RunFolder:
        """The run at `path`: a run folder, or a dialogues .jsonl whose folder holds the manifest and items."""
        file = dialogues_file(path)
        if not file.exists():
            raise InputError(path, "this folder holds no dialogues.jsonl") if path.is_dir() else InputError(file, "no such file")
        return cls(file.parent, file)

    @cached_property
    def manifest(self) -> Manifest | None:
        """The run's manifest, read once; None when the folder has none (a bare .jsonl was given)."""
        path = self.folder / MANIFEST_FILE
        return read_manifest(path) if path.exists() else None

    @cached_property
    def domain(self) -> Domain:
        """The domain profile the run played in (movies for a run without a manifest, or before domains)."""
        return domain_for_run(self.manifest.config if self.manifest else {})

    @cached_property
    def filter_report(self) -> FilterReport | None:
        """The filter report of a folder `synth filter` wrote; None for a run that was never filtered."""
        path = self.folder / FILTER_REPORT_FILE
        if not path.exists():
            return None
        report = read_filter_report(path)
        if not (self.folder / DROPPED_FILE).exists():
            raise InputError(self.folder / DROPPED_FILE, f"missing: {FILTER_REPORT_FILE} says this folder was filtered")
        return report

    @cached_property
    def items(self) -> dict[str, Item]:
        """Item id -> Item for every item the run could name: its items.jsonl, else the catalog rebuilt from
        the manifest's configuration."""
        path = run_file(self.folder, ITEMS_FILE)
        if path.exists():
            return read_items(path)
        if self.manifest is None:
            raise SynthError(f"{self.folder} has neither {ITEMS_FILE} nor a manifest to rebuild the catalog from")
        try:
            return load_data(GenerateConfig.model_validate(self.manifest.config)).catalog
        except (SynthError, OSError, ValueError) as exc:
            raise SynthError(f"{self.folder} has no {ITEMS_FILE} and its catalog could not be rebuilt: {exc}") from None

    def title(self, item_id: str) -> str:
        """'Title (Year)' of an item id; the id itself when the catalog lacks it."""
        item = self.items.get(item_id)
        return item.display if item else item_id

    def records(self) -> Iterator[DialogueRecord]:
        """The (kept) records, read one at a time; a bad one is an error naming its line and field."""
        return (found.record for found in iter_records(self.file))

    @property
    def dropped_file(self) -> Path | None:
        """dropped.jsonl of a filtered folder; None for a run that was never filtered."""
        return self.folder / DROPPED_FILE if self.filter_report is not None else None

    def dropped(self) -> Iterator[DroppedDialogue]:
        """The dialogues a filter dropped, each with its drops (none when the run was never filtered)."""
        if self.dropped_file is not None:
            yield from iter_dropped(self.dropped_file)

    @cached_property
    def kept_count(self) -> int:
        """Records in the dialogues file, counted once without parsing them."""
        return count_records(self.file)

    @cached_property
    def dropped_count(self) -> int:
        """Entries in dropped.jsonl, counted once (0 for a run never filtered)."""
        return count_records(self.dropped_file) if self.dropped_file is not None else 0

