"""python -m synth.benchmarks.perf.generation: the figures of generation at scale, side by side in one run.

1. overhead: the runner on a zero-latency scripted backend, dialogues/s and peak RSS at several n.
2. concurrency: `--backend openai` against a real server on 127.0.0.1 at several concurrency levels
   (llama-cpp-python's server, started here, unless --server-url names another, e.g. `vllm serve`).
3. resume: the cost of picking up a run that stopped at 50%.

The embedded backend's own speed (its limit, batching, prompt reuse) is `synth.benchmarks.perf.embedded`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.concurrency import LevelFigures, measure_concurrency
from synth.benchmarks.perf.overhead import OverheadRow, measure_overhead
from synth.benchmarks.perf.servers import llama_cpp_server
from synth.llm.gguf_models import resolve_model

SECTIONS = ("overhead", "concurrency")  # resume is measured with overhead
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=150)


def _table(title: str, columns: list[str]) -> Table:
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    return table


def print_overhead(rows: list[OverheadRow]) -> None:
    table = _table(
        "1 and 3. Runner overhead and resume, zero-latency scripted backend (pearl, demo data)",
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


def print_concurrency(rows: list[LevelFigures], server: str) -> None:
    table = _table(
        f"2. Concurrency against {server}",
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
    model: str = typer.Option("packaged:smollm2-135m", help="concurrency: the local server's GGUF."),
    dialogues: int = typer.Option(8, help="concurrency: dialogues per run."),
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
