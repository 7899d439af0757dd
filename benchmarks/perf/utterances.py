"""python -m synth.benchmarks.perf.utterances: how believable the default model's utterances are, synth as it
was before the reply checks (`--today`, a checkout of that commit) against this checkout, on the demo and on
`movielens+rt`, beside ReDial test, side by side in one table.

Each arm is `synth generate` run as a subprocess with the same model, seeds, max_tokens, turn cap and no
request cache; the "today" arms import the other checkout (PYTHONPATH), so both sides are played by their
own code. Run it on an otherwise idle machine: seconds per dialogue are wall time around the subprocess. An
arm whose run folder already holds its `n` dialogues is not played again: its time is read from the
`bench.json` written when it was played (the comparison may span invocations; the table says when); an arm
stopped part way resumes, its time summed over its plays.
Then every run is read by this checkout's detectors (synth.analysis.defects: each reply with its persona, the
seeker's own verdict of the suggestion it answers, the items shown, and every example the prompts may show,
the pre-#31 ones included) and basic filters.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from synth.analysis.defects import DEFECTS, Spoken, defect_rates, dialogue_utterances, record_utterances
from synth.analysis.stats.corpus import load_corpus
from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.data.dialogues import merge_turns
from synth.filters import FilterConfig, filter_run
from synth.modes import review_index
from synth.prompting import shipped_example_replies
from synth.records import DialogueRecord, Item, verdict
from synth.runs.folder import RunFolder
from synth.runs.records import iter_records

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=170)
MODEL = "packaged:qwen2.5-coder-1.5b"
SOURCES = {"demo": 21, "movielens+rt": 11}  # source -> seed (the measurement used these)


def play(arm: Path, source: str, seed: int, n: int, checkout: Path | None, model: str, extra: Sequence[str] = ()) -> dict:
    """Generate (or find) one arm's run, `extra` options added; returns its bench.json (wall seconds, when, which
    code). A play that
    was stopped resumes where its run stopped: the seconds up to each dialogue written are kept in
    bench.partial.json as it plays, and a resumed play adds its own, so the lost part of a dialogue cut short is
    not counted and the dialogue is timed once, when it is written."""
    stamp = arm / "bench.json"
    records = arm / "dialogues.jsonl"
    if stamp.exists() and records.exists() and sum(1 for _ in iter_records(records)) >= n:
        return json.loads(stamp.read_text())
    progress = arm / "bench.partial.json"
    spent = json.loads(progress.read_text())["wall_s"] if progress.exists() else 0.0
    env = dict(os.environ)
    command = [sys.executable, "-m", "synth", "generate", "--n", str(n), "--seed", str(seed), "--source", source,
               "--model", model, "--no-request-cache", "--out", str(arm.resolve()), *extra]
    if checkout is not None:  # its code (run from inside it: `-m` puts the working folder first), and its prompts
        env["PYTHONPATH"] = str(checkout.resolve())
        command += ["--prompts", str(checkout.resolve() / "prompts")]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=checkout)
    written = _written(records)
    while process.poll() is None:
        time.sleep(2)
        if (now := _written(records)) > written:
            written = now
            progress.write_text(json.dumps({"wall_s": round(spent + time.perf_counter() - started, 1), "dialogues": written}))
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)
    figures = {"wall_s": round(spent + time.perf_counter() - started, 1),
               "played": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "code": str(checkout or "this checkout")}
    stamp.write_text(json.dumps(figures))
    return figures


def _written(records: Path) -> int:
    """Dialogues written whole to a run's dialogues.jsonl so far."""
    return records.read_bytes().count(b"\n") if records.exists() else 0


def arm_utterances(arm: Path) -> tuple[list[DialogueRecord], list[list[Spoken]], dict[str, Item]]:
    """An arm's records, each record's unscripted utterances with what the turn loop checked them against (the
    seeker's own verdict of each suggestion read from the source data), and the run's items."""
    records = [found.record for found in iter_records(arm / "dialogues.jsonl")]
    folder = RunFolder.open(arm)
    config = GenerateConfig.model_validate(folder.manifest.config)
    reviews = review_index(config, load_data(config))

    def opinion(user: str, item: str) -> str | None:
        found = reviews.opinion(user, item)
        return None if found is None else verdict(found)

    examples = shipped_example_replies()
    return records, [record_utterances(r, folder.items, opinion, examples) for r in records], folder.items


def arm_cells(arm: Path, figures: dict) -> dict[str, str]:
    """Defect rates, outcome and cost figures, and the basic filters' drop rate of one run."""
    records, dialogues, _ = arm_utterances(arm)
    cells = rate_cells(defect_rates(dialogues))
    filtered = asyncio.run(filter_run(arm, arm.with_name(arm.name + "-filtered"), FilterConfig(filters=["basic"]), overwrite=True))
    resamples = [r.generation.reply_resamples for r in records]
    kept = sum(bool(t.checks and t.checks.kept_defects) for r in records for t in r.turns)
    cells |= {
        "dialogues": str(len(records)),
        "acceptance rate": f"{statistics.fmean(r.outcome.accepted_target for r in records):.0%}",
        "format retries per dialogue": f"{statistics.fmean(r.generation.format_retries for r in records):.2f}",
        "reply re-samples per dialogue": f"{statistics.fmean(resamples):.2f}",
        "replies kept with a defect at the re-sample limit": str(kept),
        "seconds per dialogue (wall)": f"{figures['wall_s'] / len(records):.1f}",
        "basic filters' drop rate": f"{filtered.dropped / max(filtered.dialogues, 1):.0%}",
        "played": figures["played"],
    }
    return cells


def rate_cells(rates) -> dict[str, str]:
    """One cell per defect: its rate and the count behind it."""
    return {
        f"{d.label} ({d.unit})": "–" if rates[d.name].of == 0 else f"{rates[d.name].rate:.1%} ({rates[d.name].hits}/{rates[d.name].of})"
        for d in DEFECTS
    }


@app.command()
def main(
    today: Path = typer.Option(..., help="A checkout of synth before the reply checks (git worktree add DIR COMMIT)."),
    out: Path = typer.Option(Path("runs/bench-utterances"), help="Folder of the runs (reused when complete)."),
    n: int = typer.Option(20, help="Dialogues per arm."),
    model: str = typer.Option(MODEL, help="The model every arm uses."),
    reference: str = typer.Option("redial-test", help="The human set shown beside the runs."),
    reference_n: int = typer.Option(20, help="Dialogues of the reference set (its first ones)."),
    arms: str = typer.Option("today,new", help="Which arms to play: today, new or both."),
    scoring: bool = typer.Option(True, "--score/--no-score", help="Print the table (--no-score: only play)."),
) -> None:
    """Play or reuse the arms, then print the defect table."""
    played = play_arms(out, arms.split(","), today, n, model)
    if not scoring:
        return
    human = [dialogue_utterances(merge_turns(d)) for d, _ in load_corpus(reference)][:reference_n]
    columns = {f"{reference} (first {reference_n}, merged turns)": rate_cells(defect_rates(human))}
    columns |= {name: arm_cells(arm, figures) for name, (arm, figures) in played.items()}
    print_table("utterances: defect rates, before and after the reply checks", columns)


def play_arms(out: Path, wanted: list[str], today: Path, n: int, model: str) -> dict[str, tuple[Path, dict]]:
    """The `wanted` sides (today: the checkout in `today`; new: this one), each on every source of SOURCES,
    played or found in `out`: arm name -> (folder, its bench.json)."""
    played: dict[str, tuple[Path, dict]] = {}
    for side in ("today", "new"):
        for source, seed in SOURCES.items():
            arm = out / f"{side}-{source}"
            if side in wanted:
                played[arm.name] = (arm, play(arm, source, seed, n, today if side == "today" else None, model))
    return played


def print_table(title: str, columns: dict[str, dict[str, str]]) -> None:
    """One column per dataset or arm, one row per key any of them has."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for name in columns:
        table.add_column(name, justify="right")
    for row in dict.fromkeys(key for cells in columns.values() for key in cells):
        table.add_row(row, *(cells.get(row, "") for cells in columns.values()))
    console.print(table)


if __name__ == "__main__":
    app()
