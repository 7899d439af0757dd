"""Train / validation / test splits by user (no user's dialogues land in two splits), and the split files an
export writes, streamed one record at a time."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar

from synth.errors import SynthError
from synth.records import DialogueRecord
from synth.runs.folder import RunFolder

log = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_SPLITS = {"train": 0.8, "validation": 0.1, "test": 0.1}
SHORT_NAMES = {"validation": "valid"}  # the field's file names: ReDial's valid_data.jsonl, PEARL's valid.json


def parse_splits(text: str) -> dict[str, float]:
    """'train=0.8,validation=0.1,test=0.1' -> {name: share}; shares must be positive and sum to 1."""
    splits: dict[str, float] = {}
    for part in text.split(","):
        name, sep, share = part.partition("=")
        try:
            value = float(share)
        except ValueError:
            value = -1.0
        if not sep or not name.strip() or value <= 0:
            raise SynthError(f"--splits: expected NAME=SHARE with SHARE > 0, got {part.strip()!r}")
        splits[name.strip()] = value
    if abs(sum(splits.values()) - 1.0) > 1e-6:
        raise SynthError(f"--splits: the shares sum to {sum(splits.values()):g}, not 1")
    return splits


def split_by_user(rows: Sequence[T], users: Sequence[str], shares: dict[str, float], seed: int) -> dict[str, list[T]]:
    """Rows grouped by split. Users are shuffled with `seed`, then each goes whole to the split furthest below
    its share of the rows so far; rows keep their order within a split."""
    by_user: dict[str, list[int]] = {}
    for index, user in enumerate(users):
        by_user.setdefault(user, []).append(index)
    order = sorted(by_user)
    random.Random(seed).shuffle(order)
    chosen: dict[str, list[int]] = {name: [] for name in shares}
    assigned = 0
    for user in order:
        size = len(by_user[user])
        target = {name: share * (assigned + size) for name, share in shares.items()}
        name = max(shares, key=lambda n: (target[n] - len(chosen[n]), shares[n]))
        chosen[name] += by_user[user]
        assigned += size
    return {name: [rows[i] for i in sorted(indices)] for name, indices in chosen.items()}


def split_of_positions(users: Sequence[str], shares: dict[str, float], seed: int) -> dict[int, str]:
    """Record position -> split name, by `split_by_user`; a split left empty by too few users is left out,
    with a warning."""
    splits = split_by_user(range(len(users)), users, shares, seed)
    for name in [name for name, positions in splits.items() if not positions]:
        log.warning("split '%s' would be empty (%d users in all): left out", name, len(set(users)))
    return {position: name for name, positions in splits.items() for position in positions}


def split_file_name(split: str, pattern: str) -> str:
    """The file of `split` in a format whose files are named by `pattern` ("{split}_data.jsonl")."""
    return pattern.format(split=SHORT_NAMES.get(split, split))


class SplitFiles:
    """One file per split in `folder`, named by `pattern`, written one record at a time: JSON Lines when the
    pattern ends in .jsonl, else one JSON list per file. Every split named in `splits` gets its file."""

    def __init__(self, folder: Path, pattern: str, splits: Sequence[str]):
        self.lines = pattern.endswith(".jsonl")
        self.paths = {split: folder / split_file_name(split, pattern) for split in dict.fromkeys(splits)}
        self._handles: dict[str, IO[str]] = {}
        self._counts = dict.fromkeys(self.paths, 0)

    def __enter__(self) -> SplitFiles:
        for split, path in self.paths.items():
            self._handles[split] = path.open("w", encoding="utf-8")
            if not self.lines:
                self._handles[split].write("[")
        return self

    def write(self, split: str, value: Any) -> None:
        handle = self._handles[split]
        text = json.dumps(value, ensure_ascii=False)
        if self.lines:
            handle.write(text + "\n")
        else:
            handle.write(("," if self._counts[split] else "") + "\n" + text)
        self._counts[split] += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        for handle in self._handles.values():
            if not self.lines:
                handle.write("\n]\n")
            handle.close()

    @property
    def files(self) -> list[Path]:
        return list(self.paths.values())


@dataclass
class RunSplits:
    """Which split each record of a run goes to: `names` in order (every split with at least one user)."""

    names: list[str]
    split_of: dict[int, str]

    @classmethod
    def of(cls, run: RunFolder, shares: dict[str, float], seed: int) -> RunSplits:
        users = [record.user_id for record in run.records()]
        if not users:
            raise SynthError(f"{run.file} holds no dialogues: nothing to export")
        split_of = split_of_positions(users, shares, seed)
        return cls([name for name in shares if name in split_of.values()], split_of)

    def counts(self) -> dict[str, int]:
        """Dialogues per split, in split order."""
        return {name: sum(1 for split in self.split_of.values() if split == name) for name in self.names}

    def records(self, run: RunFolder) -> Iterator[tuple[str, DialogueRecord]]:
        """(split, record) for every record of `run`, streamed in the run's order."""
        for position, record in enumerate(run.records()):
            yield self.split_of[position], record
