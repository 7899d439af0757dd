"""PyTorch for the trained baselines: an install hint when it is missing, seeded minibatches with a progress bar."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from synth.errors import SynthError
from synth.progress import track

BENCH_HINT = "the trained baselines need the 'bench' extra: pip install 'synth-crs[bench]'"


def require_torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SynthError(BENCH_HINT) from None
    return torch


def seeded_batches(size: int, batch: int, epochs: int, seed: int, description: str, progress: bool) -> Iterator[Any]:
    """Index tensors of shuffled minibatches, `epochs` times over `size` examples, the same for the same seed."""
    torch = require_torch()
    generator = torch.Generator().manual_seed(seed)
    for _ in track(range(epochs), description, progress):
        order = torch.randperm(size, generator=generator)
        yield from order.split(batch)
