"""python -m synth.benchmarks.perf.engine_safety: what keeping llama.cpp off a faulting instruction costs, side by side.

synth loads a model with llama.cpp's extra buffer types (its AMX and repacked kernels) unless a child process died
of a signal with them (`synth.llm.engine_check`). This prints, on the same model and in one run, alternating:
prompt tokens/s (one 512-token batch) and decoded tokens/s (1 and 4 sequences) with the extra buffer types on and
off, their ratio, and the seconds the child-process check takes on a machine that has no verdict cached yet.
"""

from __future__ import annotations

import statistics
import time

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.embedded import measure_limit
from synth.llm.engine_check import EngineSettings, check_engine
from synth.llm.gguf_models import resolve_model

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)
SEQUENCES = [1, 4]


@app.command()
def main(
    model: str = typer.Option("packaged:qwen2.5-coder-1.5b", help="The model both arms load."),
    rounds: int = typer.Option(3, min=1, help="Rounds; each measures both arms, in alternating order."),
) -> None:
    path = resolve_model(model).path
    check_s = []
    for _ in range(rounds):
        started = time.perf_counter()
        verdict = check_engine(path)
        check_s.append(time.perf_counter() - started)
    console.print(f"engine check (child process, {path.name}): {statistics.median(check_s):.2f} s median of "
                  f"{rounds}; verdict here: {verdict}")
    arms = {"extra buffer types on (default)": True, "extra buffer types off (fallback)": False}
    figures: dict[str, list[list[float]]] = {label: [] for label in arms}
    for round_ in range(rounds):
        order = list(arms.items()) if round_ % 2 == 0 else list(reversed(arms.items()))
        for label, extra in order:
            limit = measure_limit(path, SEQUENCES, settings=EngineSettings(extra_buffers=extra))
            figures[label].append([limit.prompt_per_s, *(limit.decode_per_s[k] for k in SEQUENCES)])
    table = Table(title=f"llama.cpp on {path.name}, median of {rounds} rounds (tokens/s)")
    for column in ["arm", "prompt (512 in one batch)", *(f"decode, {k} sequence(s)" for k in SEQUENCES)]:
        table.add_column(column, justify="right")
    medians = {label: [statistics.median(column) for column in zip(*rows)] for label, rows in figures.items()}
    for label, values in medians.items():
        table.add_row(label, *(f"{v:,.1f}" for v in values))
    on, off = medians.values()
    table.add_row("off / on", *(f"{b / a:.2f}x" for a, b in zip(on, off)))
    console.print(table)


if __name__ == "__main__":
    app()
