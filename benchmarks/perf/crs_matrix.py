"""`synth benchmark` on cold caches, then the same command warm, side by side in one run: how long the matrix
takes at the shared data's size on this machine, and what the caches (fitted models, sentence embeddings)
save. Each run is a fresh process with its own peak RSS; the caches live in a scratch folder.

    python -m synth.benchmarks.perf.crs_matrix [--train redial-train] [--test redial-test] [--max-cases 1000]
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.stats_export import isolated_job

app = typer.Typer(add_completion=False)


@app.command()
def main(
    train: list[str] = typer.Option(["redial-train"], help="Training sets, as for `synth benchmark --train`."),
    test: list[str] = typer.Option(["redial-test", "inspired-test"], help="Test sets, as for --test."),
    models: str = typer.Option("default", help="Baselines, as for --models."),
    max_cases: int = typer.Option(0, help="Cases per test set and task (0: all)."),
) -> None:
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="synth-crs-bench-") as scratch:
        os.environ["SYNTH_CACHE_DIR"] = str(Path(scratch) / "cache")  # a cold embedding cache
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        args = ["benchmark", *(f"--train={t}" for t in train), *(f"--test={t}" for t in test), "--models", models,
                "--cache-dir", str(Path(scratch) / "models"), "--no-progress"]
        args += ["--max-cases", str(max_cases)] if max_cases else []
        for label in ("cold", "warm"):
            out = Path(scratch) / label
            figures = json.loads(isolated_job([*args, "--out", str(out)]))
            runs[label] = {**figures, "results": json.loads((out / "results.json").read_text())["results"]}
    console = Console(width=110)
    table = Table(title="synth benchmark, cold caches then warm (fresh process each)", title_justify="left")
    for column in ("run", "wall s", "peak RSS MiB", "wall vs cold"):
        table.add_column(column, justify="left" if column == "run" else "right")
    for label, run in runs.items():
        table.add_row(label, f"{run['wall_s']:.1f}", f"{run['rss_mib']:.0f}", f"{run['wall_s'] / runs['cold']['wall_s']:.2f}x")
    console.print(table)
    per_model = Table(title="seconds per baseline (building + fitting + scoring, all train x test pairs)",
                      title_justify="left")
    for column in ("model", "cold s", "warm s", "warm vs cold"):
        per_model.add_column(column, justify="left" if column == "model" else "right")
    seconds = {label: _seconds_per_model(run["results"]) for label, run in runs.items()}
    for model, cold in seconds["cold"].items():
        warm = seconds["warm"][model]
        per_model.add_row(model, f"{cold:.1f}", f"{warm:.1f}", f"{warm / cold:.2f}x" if cold else "-")
    console.print(per_model)


def _seconds_per_model(results: list[dict]) -> dict[str, float]:
    """Fit time once per (model, training set), scoring time for every test set."""
    totals: dict[str, float] = {}
    fitted: set[tuple[str, str | None]] = set()
    for row in results:
        if row["model"] == "references":
            continue
        key = (row["model"], row["train"])
        totals[row["model"]] = totals.get(row["model"], 0.0) + row["eval_s"] + (0.0 if key in fitted else row["fit_s"])
        fitted.add(key)
    return totals


if __name__ == "__main__":
    app()
