"""python -m synth.benchmarks.perf.generation: what the runner itself costs, with the LLM taken out.

1. Orchestration overhead: dialogues/s and peak RSS of `generate` at several n on a zero-latency scripted
   backend (each n in its own process, so peak RSS is that run's own).
2. Resume cost: seconds to pick up a run that stopped half way (reading and checking what it wrote),
   next to the time the first half took.
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _play(n: int, out: Path, concurrency: int) -> dict[str, float]:
    """Run `generate` with the rule-following scripted backend; returns timings and this process's peak RSS."""
    from synth.config import GenerateConfig
    from synth.llm.scripted import ScriptedBackend, rule_following_script
    from synth.runner import generate

    config = GenerateConfig(n=n, seed=0, concurrency=concurrency, progress=False, request_cache=False)
    started = time.perf_counter()
    manifest = asyncio.run(generate(config, out, backend=ScriptedBackend(rule_following_script, keep_calls=False)))
    wall = time.perf_counter() - started
    return {
        "n": n,
        "written": manifest["counts"]["written"],
        "resumed_with": manifest["counts"]["resumed_with"],
        "wall_s": wall,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(n: int, out: Path, concurrency: int) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-m", "synth.benchmarks.perf.generation", "--child", str(n), "--out", str(out),
         "--concurrency", str(concurrency)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@app.command()
def main(
    sizes: str = typer.Option("1000,10000", help="Comma-separated n to run."),
    concurrency: int = typer.Option(8),
    child: int = typer.Option(0, hidden=True),
    out: Path = typer.Option(None, hidden=True),
) -> None:
    """Print dialogues/s and peak RSS per n, and the cost of resuming a half-finished run."""
    if child:
        print(json.dumps(_play(child, out, concurrency)))
        return
    console = Console(width=140)
    table = Table(title="Runner overhead on a zero-latency scripted backend (pearl, demo data)")
    for column in ["run", "n", "dialogues", "wall s", "dialogues/s", "peak RSS MiB", "RSS vs first"]:
        table.add_column(column, justify="left" if column == "run" else "right")
    with tempfile.TemporaryDirectory() as scratch:
        rows = []
        for n in [int(x) for x in sizes.split(",")]:
            rows.append(("fresh", _child(n, Path(scratch) / f"fresh-{n}", concurrency)))
        largest = max(int(x) for x in sizes.split(","))
        half = Path(scratch) / "half"
        rows.append(("first half", _child(largest // 2, half, concurrency)))
        # the same folder, now asked for all `largest`: a different n is a different run, so resume the
        # half-done run by copying its records into a run of `largest` that stopped after them
        resumed = Path(scratch) / "resumed"
        resumed.mkdir()
        full = Path(scratch) / f"fresh-{largest}"
        lines = (full / "dialogues.jsonl").read_text().splitlines(keepends=True)
        (resumed / "dialogues.jsonl").write_text("".join(lines[: largest // 2]))
        (resumed / "manifest.json").write_text((full / "manifest.json").read_text())
        rows.append(("resume at 50%", _child(largest, resumed, concurrency)))
    base = rows[0][1]["peak_rss_mib"]
    for label, row in rows:
        table.add_row(
            label, str(row["n"]), f"{row['written'] - row['resumed_with']}", f"{row['wall_s']:.1f}",
            f"{(row['written'] - row['resumed_with']) / row['wall_s']:.0f}", f"{row['peak_rss_mib']:.0f}",
            f"{row['peak_rss_mib'] / base:.2f}x",
        )
    console.print(table)
    first_half, resume = rows[-2][1], rows[-1][1]
    console.print(
        f"resume overhead (reading and checking {largest // 2} records, then the same work as the first half): "
        f"{resume['wall_s'] - first_half['wall_s']:+.1f} s"
    )


if __name__ == "__main__":
    app()
