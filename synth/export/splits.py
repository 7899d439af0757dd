"""Train / validation / test splits by user: no user's dialogues land in two splits."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from synth.errors import SynthError

T = TypeVar("T")
DEFAULT_SPLITS = {"train": 0.8, "validation": 0.1, "test": 0.1}


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
