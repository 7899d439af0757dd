"""python -m synth.benchmarks.perf.generation: the figures of generation at scale, side by side in one run.

1. overhead: the runner on a zero-latency scripted backend, dialogues/s and peak RSS at several n.
2. pipeline: output tokens/s of `synth generate` on the embedded model over raw llama.cpp calls on the
   same prompts in the same process.
3. concurrency: `--backend openai` against a real server on 127.0.0.1 at several concurrency levels
   (llama-cpp-python's server, started here, unless --server-url names another, e.g. `vllm serve`).
4. resume: the cost of picking up a run that stopped at 50%.
5. kv: prompt tokens evaluated per dialogue and dialogues/s, one context (naive) vs a context per role.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.concurrency import LevelFigures, measure_concurrency
from synth.benchmarks.perf.embedded import EmbeddedFigures, RunFigures, measure_embedded
from synth.benchmarks.perf.overhead import OverheadRow, measure_overhead
from synth.benchmarks.perf.servers import llama_cpp_server
from synth.llm.gguf_models import resolve_model

SECTIONS = ("overhead", "pipeline", "concurrency", "kv")  # resume is measured with overhead
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=150)


def _table(title: str, columns: list[str]) -> Table:
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    return table


def print_overhead(rows: list[OverheadRow]) -> None:
    table = _table(
        "1 and 4. Runner overhead and resume, zero-latency scripted backend (pearl, demo data)",
        ["run", "n", "dialogues played", "wall s", "dialogues/s", "peak RSS MiB", "RSS vs first"],
    )
    base = rows[0].peak_rss_mib
    for row in rows:
        table.add_row(
            row.label, str(row.n), str(row.played), f"{row.wall_s:.1f}", f"{row.played / row.wall_s:.0f}",
            f"{row.peak_rss_mib:.0f}", f"{row.peak_rss_mib / base:.2f}x",
        )
    console.print(table)
    first_half, resume = rows[-2], rows[-1]
    console.print(
        f"resume at 50%: {resume.wall_s - first_half.wall_s:+.2f} s over playing the same half fresh "
        f"(reading and checking {first_half.n} records)\n"
    )


def _run_row(table: Table, run: RunFigures) -> None:
    evaluated = run.prompt_tokens_evaluated
    table.add_row(
        run.label, str(run.dialogues), f"{run.wall_s:.1f}", f"{run.dialogues_per_s * 60:.1f}",
        f"{run.completion_tokens_per_s:.1f}", f"{run.prompt_tokens / max(run.dialogues, 1):.0f}",
        "-" if evaluated is None else f"{evaluated / max(run.dialogues, 1):.0f}",
        "-" if evaluated is None else f"{evaluated / max(run.prompt_tokens, 1):.0%}",
        "-" if run.evaluated_share_after_first is None else f"{run.evaluated_share_after_first:.0%}",
    )


def print_embedded(figures: EmbeddedFigures, sections: set[str]) -> None:
    columns = ["run", "dialogues", "wall s", "dialogues/min", "output tok/s", "prompt tok/dlg",
               "evaluated tok/dlg", "evaluated share", "share after 1st dlg"]
    if "pipeline" in sections:
        table = _table(f"2. Pipeline efficiency on the embedded model ({figures.model})", columns)
        _run_row(table, figures.reuse)
        _run_row(table, figures.raw)
        console.print(table)
        console.print(f"pipeline efficiency (synth output tok/s over raw): {figures.pipeline_efficiency:.2f}\n")
    if figures.naive is not None:
        table = _table(f"5. KV reuse on the embedded model ({figures.model})", columns)
        _run_row(table, figures.naive)
        _run_row(table, figures.reuse)
        console.print(table)
        naive, reuse = figures.naive, figures.reuse
        console.print(
            f"evaluated prompt tokens per dialogue: {reuse.prompt_tokens_evaluated / reuse.dialogues:.0f} with reuse vs "
            f"{naive.prompt_tokens_evaluated / naive.dialogues:.0f} naive "
            f"({reuse.prompt_tokens_evaluated / reuse.dialogues / (naive.prompt_tokens_evaluated / naive.dialogues):.2f}x); "
            f"dialogues/s {reuse.dialogues_per_s / naive.dialogues_per_s:.2f}x\n"
        )


def print_concurrency(rows: list[LevelFigures], server: str) -> None:
    table = _table(
        f"3. Concurrency against {server}",
        ["concurrency", "dialogues", "failed", "wall s", "dialogues/min", "output tok/s", "vs concurrency 1"],
    )
    base = rows[0].dialogues_per_min
    for row in rows:
        table.add_row(
            str(row.concurrency), str(row.dialogues), str(row.failed), f"{row.wall_s:.1f}",
            f"{row.dialogues_per_min:.1f}", f"{row.completion_tokens_per_s:.1f}", f"{row.dialogues_per_min / base:.2f}x",
        )
    console.print(table)


@app.command()
def main(
    sections: str = typer.Option(",".join(SECTIONS), help=f"Comma-separated, from: {', '.join(SECTIONS)}."),
    sizes: str = typer.Option("1000,10000", help="overhead: comma-separated n."),
    model: str = typer.Option("packaged:smollm2-135m", help="pipeline, kv and the local server: the GGUF."),
    dialogues: int = typer.Option(8, help="pipeline, kv and concurrency: dialogues per run."),
    max_utterances: Optional[int] = typer.Option(None, help="Turn cap of the LLM runs [default: the mode's]."),
    levels: str = typer.Option("1,2,4,8", help="concurrency: comma-separated levels."),
    server_url: Optional[str] = typer.Option(None, help="concurrency: an OpenAI-compatible /v1 URL to use instead."),
    server_model: Optional[str] = typer.Option(None, help="concurrency: the model name on --server-url."),
) -> None:
    """Print the tables of the chosen sections."""
    chosen = {s.strip() for s in sections.split(",")}
    unknown = chosen - set(SECTIONS)
    if unknown:
        raise typer.BadParameter(f"unknown sections {sorted(unknown)}; choose from {SECTIONS}")
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        if "overhead" in chosen:
            print_overhead(measure_overhead([int(x) for x in sizes.split(",")], 8, scratch / "overhead"))
        if chosen & {"pipeline", "kv"}:
            figures = measure_embedded(
                model, dialogues, scratch / "embedded", naive="kv" in chosen, max_utterances=max_utterances
            )
            print_embedded(figures, chosen)
        if "concurrency" in chosen:
            level_list = [int(x) for x in levels.split(",")]
            if server_url:
                rows = measure_concurrency(server_url, server_model, level_list, dialogues, scratch / "conc",
                                           max_utterances=max_utterances)
                print_concurrency(rows, server_url)
            else:
                path = resolve_model(model).path
                with llama_cpp_server(path, scratch / "server.log") as url:
                    rows = measure_concurrency(url, None, level_list, dialogues, scratch / "conc",
                                               max_utterances=max_utterances)
                print_concurrency(rows, f"llama_cpp.server ({path.name}, one request at a time)")


if __name__ == "__main__":
    app()
