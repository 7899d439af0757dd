"""python -m synth.benchmarks.perf.embedded: the embedded backend's speed, side by side in one run.

1. The limit: raw llama.cpp (llama-cpp-python's low-level API, no grammar, no synth) on the same model:
   prompt processing in one 512-token batch, and unconstrained greedy decoding after those 512 tokens of
   1, 2, 4 and 8 sequences in one batch per step.
2. `synth generate` on the same seeded games, with the backend before batching (`llamacpp-serial`: one
   call at a time, the grammar applied to the whole vocabulary at every token) and with the default
   backend at each concurrency: dialogues/hour, generated tokens/s (over the wall time, and per sequence
   while decoding), prompt tokens evaluated per dialogue, format retries and acceptance; each as a ratio
   to the limit and to the serial backend.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from synth.config import GenerateConfig
from synth.llm.base import ChatBackend, Completion, Message, ModelInfo
from synth.llm.engine_check import EngineSettings, load_llama
from synth.llm.factory import make_backend
from synth.llm.gguf_models import resolve_model
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE
from synth.runs.records import finished_records

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=180)
PROMPT = "A detective in Boston reviews every thriller he watches. " * 40


class RecordingBackend:
    """Passes every call to `inner` and keeps its messages, options and completion."""

    def __init__(self, inner: ChatBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[list[Message], dict[str, Any]]] = []
        self.completions: list[Completion] = []

    @property
    def model_info(self) -> ModelInfo:
        return self.inner.model_info

    async def complete(self, messages: list[Message], **options: Any) -> Completion:
        self.calls.append((messages, options))
        completion = await self.inner.complete(messages, **options)
        self.completions.append(completion)
        return completion

    async def check(self) -> None:
        await self.inner.check()

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Limit:
    """Raw llama.cpp on this machine: prompt tokens/s in one batch, decoded tokens/s by sequences per batch."""

    prompt_per_s: float
    decode_per_s: dict[int, float]


def measure_limit(
    model_path: Path, sequences: list[int], *, steps: int = 48, settings: EngineSettings | None = None
) -> Limit:
    """Prompt processing of 512 tokens in one batch; then, after those 512 tokens (a dialogue's context),
    `steps` greedy steps for each number of sequences (after one untimed step of that shape). `settings`: how
    the model loads (default: as synth loads it on this machine)."""
    import llama_cpp as lib
    import numpy as np

    llama = load_llama(model_path, settings=settings, n_ctx=32, verbose=False)
    params = lib.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_ubatch, params.n_seq_max = 1024 * max(sequences), 512, 512, max(sequences)
    params.n_threads = params.n_threads_batch = os.cpu_count() or 1
    params.flash_attn_type = lib.LLAMA_FLASH_ATTN_TYPE_DISABLED  # as synth's backends compute
    ctx = lib.llama_init_from_model(llama.model, params)
    memory, n_vocab = lib.llama_get_memory(ctx), llama.n_vocab()
    batch = lib.llama_batch_init(512, 0, 1)

    def decode(entries: list[tuple[int, int, int, bool]]) -> None:
        batch.n_tokens = len(entries)
        for i, (token, pos, seq, logits) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.seq_id[i][0], batch.logits[i] = token, pos, 1, seq, logits
        if lib.llama_decode(ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")

    def greedy(index: int) -> int:
        return int(np.argmax(np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx, index), shape=(n_vocab,))))

    prompt = llama.tokenize(PROMPT.encode())[:512]
    try:
        decode([(t, i, 0, False) for i, t in enumerate(prompt)])  # warm-up
        lib.llama_memory_clear(memory, True)
        started = time.perf_counter()
        decode([(t, i, 0, i == len(prompt) - 1) for i, t in enumerate(prompt)])
        prompt_per_s = len(prompt) / (time.perf_counter() - started)
        first = greedy(len(prompt) - 1)
        decode_per_s = {}
        for k in sequences:
            for seq in range(1, max(sequences)):
                lib.llama_memory_seq_rm(memory, seq, -1, -1)
            lib.llama_memory_seq_rm(memory, 0, len(prompt), -1)
            for seq in range(1, k):
                lib.llama_memory_seq_cp(memory, 0, seq, -1, -1)
            last, position = [first] * k, len(prompt)
            for step in range(steps + 1):
                if step == 1:
                    started = time.perf_counter()
                decode([(last[seq], position, seq, True) for seq in range(k)])
                last, position = [greedy(seq) for seq in range(k)], position + 1
            decode_per_s[k] = k * steps / (time.perf_counter() - started)
    finally:
        lib.llama_batch_free(batch)
        lib.llama_free(ctx)
        llama.close()
    return Limit(prompt_per_s, decode_per_s)


@dataclass
class RunFigures:
    """One `synth generate` run (model loading excluded)."""

    label: str
    concurrency: int
    dialogues: int
    accepted: int
    utterances: int  # generated, the scripted opening excluded: longer dialogues take longer
    wall_s: float
    prompt_tokens: int
    prompt_tokens_evaluated: int
    completion_tokens: int
    decode_s: float  # summed over calls: each call's time from its first generated token to its last
    format_retries: int
    texts: dict[str, list[str]]  # each dialogue's utterances, by dialogue id

    def same_dialogues(self, other: RunFigures) -> int:
        """How many of this run's dialogues have exactly the other run's utterances."""
        return sum(other.texts.get(key) == texts for key, texts in self.texts.items())

    @property
    def dialogues_per_h(self) -> float:
        return 3600 * self.dialogues / self.wall_s

    @property
    def completion_per_s(self) -> float:
        return self.completion_tokens / self.wall_s

    @property
    def decode_per_s_per_sequence(self) -> float:
        return self.completion_tokens / self.decode_s if self.decode_s else 0.0


async def _timed(config: GenerateConfig, out: Path, backend: RecordingBackend) -> float:
    await backend.check()  # loading the model is not part of the figure
    started = time.perf_counter()
    await generate(config, out, backend=backend, overwrite=True)
    return time.perf_counter() - started


def measure_run(label: str, config: GenerateConfig, out: Path) -> RunFigures:
    """`synth generate` with `config`'s backend and concurrency; the figures from its records and calls."""
    recorder = RecordingBackend(make_backend(config))
    wall = asyncio.run(_timed(config, out, recorder))
    records = list(finished_records(out / DIALOGUES_FILE))
    calls = recorder.completions
    return RunFigures(
        label=label,
        concurrency=config.concurrency,
        dialogues=len(records),
        accepted=sum(r.outcome.accepted_target for r in records),
        utterances=sum(len(r.turns) - r.scripted_turns for r in records),
        wall_s=wall,
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        prompt_tokens_evaluated=sum(c.prompt_tokens_evaluated or 0 for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        decode_s=sum(c.decode_s or 0.0 for c in calls),
        format_retries=sum(r.generation.format_retries for r in records),
        texts={r.id: [t.text for t in r.turns] for r in records},
    )


def print_limit(limit: Limit, model: str) -> None:
    table = Table(title=f"1. The limit: raw llama.cpp on {model}, {os.cpu_count()} cores")
    for column in ["figure", "tokens/s", "vs 1 sequence"]:
        table.add_column(column, justify="left" if column == "figure" else "right")
    table.add_row("prompt processing, one batch of 512 tokens", f"{limit.prompt_per_s:.1f}", "")
    one = limit.decode_per_s[min(limit.decode_per_s)]
    for k, rate in limit.decode_per_s.items():
        table.add_row(
            f"unconstrained greedy decoding after 512 tokens, {k} sequence(s) per batch", f"{rate:.1f}", f"{rate / one:.2f}x"
        )
    console.print(table)


def print_runs(runs: list[RunFigures], limit: Limit, title: str) -> None:
    table = Table(title=title)
    columns = [
        "backend", "K", "dialogues", "accepted", "utterances", "wall s", "dialogues/h", "vs first", "gen tok/s", "vs limit K",
        "decode tok/s per seq", "vs limit 1", "prompt tok/dlg", "evaluated tok/dlg", "format retries",
        "same dialogues as first",
    ]
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    serial = runs[0]
    one = limit.decode_per_s[min(limit.decode_per_s)]
    for run in runs:
        limit_k = limit.decode_per_s.get(run.concurrency)
        table.add_row(
            run.label, str(run.concurrency), str(run.dialogues), f"{run.accepted}/{run.dialogues}", str(run.utterances),
            f"{run.wall_s:.0f}",
            f"{run.dialogues_per_h:.1f}", f"{run.dialogues_per_h / serial.dialogues_per_h:.2f}x",
            f"{run.completion_per_s:.1f}", "-" if limit_k is None else f"{run.completion_per_s / limit_k:.2f}",
            f"{run.decode_per_s_per_sequence:.1f}", f"{run.decode_per_s_per_sequence / one:.2f}",
            f"{run.prompt_tokens / run.dialogues:.0f}", f"{run.prompt_tokens_evaluated / run.dialogues:.0f}",
            str(run.format_retries), f"{run.same_dialogues(serial)}/{run.dialogues}",
        )
    console.print(table)
    console.print(
        "vs first: dialogues/h over the first row's; gen tok/s: generated tokens over the run's wall time (prompt processing included), against raw decoding "
        "of as many sequences; decode tok/s per seq: generated tokens over the time each call spent generating, "
        "against raw decoding of one sequence.\n"
    )


@app.command()
def main(
    model: str = typer.Option("packaged:qwen2.5-coder-1.5b", help="The GGUF (the offline default model)."),
    dialogues: int = typer.Option(8, help="Dialogues per run (the same seeded games in every run)."),
    levels: str = typer.Option("1,2,4,8", help="Concurrency levels of the default backend."),
    seed: int = typer.Option(0, help="The runs' seed."),
    serial: bool = typer.Option(True, help="Also run the backend before batching (llamacpp-serial)."),
) -> None:
    """Print the limit and the runs' table."""
    level_list = [int(x) for x in levels.split(",")]
    resolved = resolve_model(model)
    limit = measure_limit(resolved.path, sorted(set(level_list) | {1}))
    print_limit(limit, resolved.name)
    runs: list[RunFigures] = []
    with tempfile.TemporaryDirectory() as scratch:
        settings = {"n": dialogues, "seed": seed, "model": model, "progress": False, "request_cache": False}
        if serial:
            config = GenerateConfig(backend="llamacpp-serial", concurrency=1, **settings)
            runs.append(measure_run("llamacpp-serial (before batching)", config, Path(scratch) / "serial"))
        for level in level_list:
            config = GenerateConfig(backend="llamacpp", concurrency=level, **settings)
            runs.append(measure_run("llamacpp", config, Path(scratch) / f"k{level}"))
    print_runs(runs, limit, f"2. synth generate, {dialogues} dialogues per run ({resolved.name}, seed {seed})")


if __name__ == "__main__":
    app()
