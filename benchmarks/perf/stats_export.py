"""`synth stats` and `synth export --to hf` at PEARL scale, printed side by side in one run.

Each size is a run made by repeating a real run's records with fresh ids (and its manifest and items), and
each job runs in its own process, so its peak RSS is its own. Memory should stay flat as the run grows
ten-fold: both stream records from disk (the RSS ratio column says whether it does).

    python -m synth.benchmarks.perf.stats_export --run runs/demo [--sizes 5000,50000]
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.filters import repeat_run
from synth.runs.layout import ITEMS_FILE, MANIFEST_FILE

app = typer.Typer(add_completion=False)
JOBS = {
    "stats": lambda run, out: ["stats", str(run), "--json", "--no-similarity"],
    "export hf": lambda run, out: ["export", str(run), str(out), "--to", "hf", "--no-similarity"],
}


def timed_job(args: list[str]) -> dict[str, float]:
    """Run `synth ARGS` in a child process; its wall time and peak RSS (the only child so far: see run_one)."""
    started = time.perf_counter()
    code = "import sys; from synth.cli import app; sys.argv = ['synth', *sys.argv[1:]]; app()"
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"synth {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return {
        "wall_s": time.perf_counter() - started,
        "rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


@app.command()
def main(
    run: Path = typer.Option(..., help="A finished run folder whose records are repeated."),
    sizes: str = typer.Option("5000,50000", help="Run sizes, comma-separated."),
) -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="synth-stats-bench-") as scratch:
        for size in (int(s) for s in sizes.split(",")):
            folder = Path(scratch) / f"run-{size}"
            repeat_run(run, size, folder)
            for name in (MANIFEST_FILE, ITEMS_FILE):
                if (run / name).exists():
                    shutil.copyfile(run / name, folder / name)
            for job, args in JOBS.items():
                figures = json.loads(isolated_job(args(folder, Path(scratch) / f"hf-{size}")))
                rows.append((job, size, figures))
    table = Table(title="stats and export at scale (each job in a fresh process)", title_justify="left")
    for column in ("job", "dialogues", "wall s", "dialogues/s", "peak RSS MiB", "RSS vs the smallest run"):
        table.add_column(column, justify="left" if column == "job" else "right")
    for job, size, figures in rows:
        smallest = next(f for j, _, f in rows if j == job)
        table.add_row(
            job,
            f"{size:,}",
            f"{figures['wall_s']:.1f}",
            f"{size / figures['wall_s']:,.0f}",
            f"{figures['rss_mib']:.0f}",
            f"{figures['rss_mib'] / smallest['rss_mib']:.2f}x",
        )
    Console(width=110).print(table)


def isolated_job(args: list[str]) -> str:
    """Measure one job from a fresh interpreter, so RUSAGE_CHILDREN holds that job alone."""
    code = (
        f"import json; from synth.benchmarks.perf.stats_export import timed_job; print(json.dumps(timed_job({args!r})))"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


if __name__ == "__main__":
    app()
