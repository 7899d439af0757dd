"""Filter throughput and judge quality, printed side by side in one run.

1. Basic filters over N dialogues (default 50,000) made by repeating a run's records with fresh ids:
   dialogues/s and peak RSS of the whole `filter_run` (reading, five filters, writing, the report).
2. Preference filters with the chosen judge on the run's first dialogues: dialogues/s, judge calls
   and seconds per call (the model loaded before the clock starts).
3. The LLM judge's stance check on hand-labelled pairs (benchmarks/perf/judge_pairs.py): accuracy,
   precision and recall, so the drop rates of step 2 can be read with the judge's error rate in mind.

    python -m synth.benchmarks.perf.filters --run runs/demo [--n 50000] [--judge-dialogues 3]
"""

from __future__ import annotations

import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from synth.benchmarks.perf.embedded import RecordingBackend
from synth.benchmarks.perf.judge_pairs import JUDGE_PAIRS
from synth.config import BackendConfig
from synth.filters.config import FilterConfig
from synth.filters.dialogue import Statement
from synth.filters.judge_protocol import Claim
from synth.filters.llm_judge import LLMJudge
from synth.filters.pipeline import filter_run, resolve_input
from synth.llm.factory import make_backend
from synth.prompting import PromptSet

app = typer.Typer(add_completion=False)
console = Console(width=110)


def repeat_run(source: Path, n: int, target: Path) -> int:
    """Write n records cycling through the run's records, each with a fresh id; returns how many differ."""
    _, path = resolve_input(source, "synth")
    originals = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    target.mkdir(parents=True, exist_ok=True)
    with (target / "dialogues.jsonl").open("w") as out:
        for i in range(n):
            record = dict(originals[i % len(originals)])
            record["id"] = f"{record['id']}-copy{i}"
            out.write(json.dumps(record) + "\n")
    return len(originals)


def measure_basic(source: Path, n: int, scratch: Path) -> dict[str, float]:
    distinct = repeat_run(source, n, scratch / "repeated")
    started = time.perf_counter()
    report = asyncio.run(filter_run(scratch / "repeated", scratch / "basic-out", FilterConfig(filters=["basic"])))
    wall = time.perf_counter() - started
    return {
        "dialogues": report.dialogues,
        "distinct": distinct,
        "wall_s": wall,
        "per_s": report.dialogues / wall,
        "dropped": report.drop_rate,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


async def _judge(settings: BackendConfig) -> tuple[LLMJudge, RecordingBackend]:
    backend = RecordingBackend(make_backend(settings))
    await backend.check()  # load the model before any clock starts
    return LLMJudge(backend, PromptSet.load(mode="judge")), backend


def measure_preference(source: Path, dialogues: int, settings: BackendConfig, scratch: Path) -> dict[str, float]:
    repeat_run(source, dialogues, scratch / "first")  # the first `dialogues` records (fewer if the run is shorter)

    async def run() -> dict[str, float]:
        judge, backend = await _judge(settings)
        try:
            config = FilterConfig(filters=["preference"], preference_on="all")
            started = time.perf_counter()
            report = await filter_run(scratch / "first", scratch / "pref-out", config, judge=judge)
            wall = time.perf_counter() - started
        finally:
            await judge.aclose()
        calls = len(backend.calls)
        return {
            "dialogues": report.dialogues,
            "wall_s": wall,
            "per_s": report.dialogues / wall,
            "calls": calls,
            "s_per_call": wall / calls if calls else 0.0,
            "dropped": report.drop_rate,
            "method": report.preference_method,
            **{f"{name}_dropped": row.dropped for name, row in report.filters.items()},
        }

    return asyncio.run(run())


def measure_agreement(settings: BackendConfig) -> dict[str, float]:
    async def run() -> dict[str, float]:
        judge, _ = await _judge(settings)
        counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
        try:
            for label, premise, claim_kind, claim, truth in JUDGE_PAIRS:
                kind = "guess" if claim_kind.startswith("the recommender") else "persona"
                statement = Statement(label, premise)
                found = await judge.stance(kind, Claim(0, claim, (statement,)), statement) is not None
                counts[("t" if found == truth else "f") + ("p" if found else "n")] += 1
        finally:
            await judge.aclose()
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        return {
            **counts,
            "pairs": len(JUDGE_PAIRS),
            "accuracy": (tp + counts["tn"]) / len(JUDGE_PAIRS),
            "precision": tp / (tp + fp) if tp + fp else 0.0,
            "recall": tp / (tp + fn) if tp + fn else 0.0,
        }

    return asyncio.run(run())


def _table(title: str, rows: dict[str, str]) -> None:
    table = Table(title=title)
    table.add_column("figure")
    table.add_column("measured", justify="right")
    for key, value in rows.items():
        table.add_row(key, value)
    console.print(table)


@app.command()
def main(
    run: Path = typer.Option(..., help="A synth run (folder or dialogues.jsonl) whose records are repeated."),
    n: int = typer.Option(50_000, help="Dialogues for the basic filters."),
    judge_dialogues: int = typer.Option(3, help="Dialogues the preference filters judge (0: skip)."),
    judge_backend: str = typer.Option("llamacpp", help="LLM judge backend."),
    judge_model: Optional[str] = typer.Option(None, help="LLM judge model [default: the backend's default]."),
    judge_base_url: Optional[str] = typer.Option(None, help="LLM judge endpoint (openai backend)."),
    agreement: bool = typer.Option(True, "--agreement/--no-agreement", help="Score the judge on the labelled pairs."),
) -> None:
    """Print the filter benchmark tables."""
    settings = BackendConfig(backend=judge_backend, model=judge_model, base_url=judge_base_url)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        basic = measure_basic(run, n, scratch)
        _table(
            f"basic filters, {basic['dialogues']:,} dialogues ({basic['distinct']} distinct, repeated), one process",
            {
                "wall": f"{basic['wall_s']:.1f} s",
                "dialogues/s": f"{basic['per_s']:,.0f}",
                "peak RSS": f"{basic['peak_rss_mib']:.0f} MiB",
                "dropped": f"{basic['dropped']:.1%}",
            },
        )
        if judge_dialogues:
            pref = measure_preference(run, judge_dialogues, settings, scratch)
            _table(
                f"preference filters, {pref['dialogues']} dialogues: {pref['method']}",
                {
                    "wall (model loaded)": f"{pref['wall_s']:.1f} s",
                    "dialogues/s": f"{pref['per_s']:.3f}",
                    "judge calls": str(pref["calls"]),
                    "calls/dialogue": f"{pref['calls'] / pref['dialogues']:.1f}",
                    "s/call": f"{pref['s_per_call']:.1f}",
                    "dropped": f"{pref['dropped']:.1%}",
                    "persona / guess drops": f"{pref['persona_contradiction_dropped']} / {pref['guess_contradiction_dropped']}",
                    "basic vs preference speed": f"{basic['per_s'] / pref['per_s']:,.0f}x",
                },
            )
        if agreement:
            score = measure_agreement(settings)
            _table(
                f"LLM judge stance check on {score['pairs']} hand-labelled pairs",
                {
                    "accuracy": f"{score['accuracy']:.0%}",
                    "precision": f"{score['precision']:.0%}",
                    "recall": f"{score['recall']:.0%}",
                    "tp / fp / tn / fn": f"{score['tp']} / {score['fp']} / {score['tn']} / {score['fn']}",
                },
            )


if __name__ == "__main__":
    app()
