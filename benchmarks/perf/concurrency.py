"""Throughput of `synth generate --backend openai` against one OpenAI-compatible server at several
concurrency levels (the same games at each level)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from synth.config import GenerateConfig
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE
from synth.runs.records import finished_records


@dataclass
class LevelFigures:
    concurrency: int
    dialogues: int
    failed: int
    wall_s: float
    completion_tokens: int

    @property
    def dialogues_per_min(self) -> float:
        return 60 * self.dialogues / self.wall_s

    @property
    def completion_tokens_per_s(self) -> float:
        return self.completion_tokens / self.wall_s


def measure_level(url: str, model: str | None, concurrency: int, n: int, out: Path, *, max_utterances: int | None) -> LevelFigures:
    """Play n games at this concurrency; wall time includes everything `generate` does."""
    config = GenerateConfig(
        n=n, seed=0, backend="openai", base_url=url, model=model, concurrency=concurrency, progress=False,
        request_cache=False, max_utterances=max_utterances,
    )
    started = time.perf_counter()
    asyncio.run(generate(config, out, overwrite=True))
    wall = time.perf_counter() - started
    records = list(finished_records(out / DIALOGUES_FILE))
    return LevelFigures(
        concurrency=concurrency,
        dialogues=len(records),
        failed=sum(bool(r.errors) for r in records),
        wall_s=wall,
        completion_tokens=sum(r.generation.completion_tokens for r in records),
    )


def measure_concurrency(
    url: str, model: str | None, levels: list[int], n: int, scratch: Path, *, max_utterances: int | None = None
) -> list[LevelFigures]:
    """One row per concurrency level, in the order given."""
    return [
        measure_level(url, model, level, n, scratch / f"c{level}", max_utterances=max_utterances) for level in levels
    ]
