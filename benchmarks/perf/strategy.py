"""python -m synth.benchmarks.perf.strategy: dialogues of the default model under `--strategy human` against
`--strategy pearl` (synth before #26), each beside ReDial test, side by side in one run.

Both runs are played on the demo personas with the same seed (so the same personas and targets), model,
max_tokens and turn cap, one after the other (keep the machine otherwise idle: seconds per dialogue are
measured); a run folder under --out continues where it stopped, so the comparison may span sessions. Then
the act tagger reads every dialogue (merged turns, scripted opening left out) and the table gives, per
strategy: the Jensen-Shannon divergences from ReDial test with bootstrap intervals, requests before the first
recommendation, words per turn, acceptance, turns to goal, format retries, seconds per dialogue, and the
tagger's agreement with the plan.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from synth.analysis.acts.fidelity import REQUEST_BINS, ActCounts, Fidelity, fidelity
from synth.analysis.acts.model import ActModel, TaggedDialogue, act_model
from synth.analysis.acts.profile import act_counts, act_profile
from synth.analysis.acts.taxonomy import TAXONOMY, Role, top_of
from synth.analysis.stats.corpus import load_corpus
from synth.config import GenerateConfig
from synth.iteration import chunks
from synth.records import DialogueRecord
from synth.runner import generate
from synth.runs.records import iter_records, record_dialogue

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)
MODEL = "packaged:qwen2.5-coder-1.5b"
STRATEGIES = ("human", "pearl")
SHOWN_ACTS = (("seeker", "INQ"), ("seeker", "REJ"), ("seeker", "OTH"), ("recommender", "REC-E"), ("recommender", "EXP-P"),
              ("recommender", "R-ANS"), ("recommender", "OTH"))


def config(strategy: str, n: int, seed: int, model: str) -> GenerateConfig:
    """One strategy's settings: everything else is the default."""
    return GenerateConfig(n=n, seed=seed, model=model, strategy=strategy, progress=False)


def play(out: Path, n: int, seed: int, model: str) -> None:
    """Play (or resume) both runs."""
    for strategy in STRATEGIES:
        asyncio.run(generate(config(strategy, n, seed, model), out / strategy))


@app.command()
def main(
    out: Path = typer.Option(Path("runs/bench-strategy"), help="Folder of the two runs (resumed when present)."),
    n: int = typer.Option(20, help="Dialogues per strategy."),
    seed: int = typer.Option(0),
    model: str = typer.Option(MODEL, help="The model both runs use."),
    reference: str = typer.Option("redial-test", help="The human set the divergences are measured from."),
    bootstrap: int = typer.Option(1000, help="Bootstrap resamples of each divergence's interval."),
    playing: bool = typer.Option(True, "--play/--no-play", help="Play or resume the runs first (--no-play: measure what is there)."),
    scoring: bool = typer.Option(True, "--score/--no-score", help="Tag and compare the runs (--no-score: only play)."),
    show: int = typer.Option(0, help="Print this many planned turns of the human run with their tagged acts, to read."),
) -> None:
    """Play or resume both runs, then print the strategy table beside the reference set."""
    if playing:
        play(out, n, seed, model)
    if not scoring:
        return
    tagger, encoder = act_model()
    _, reference_counts = act_profile(reference, ((d, 0) for d, _ in load_corpus(reference)), tagger, encoder)
    columns: dict[str, dict[str, str]] = {reference: describe_counts(reference_counts)}
    samples: list[tuple[str, str, list[str], list[str]]] = []
    for strategy in STRATEGIES:
        records = [found.record for found in iter_records(out / strategy / "dialogues.jsonl")]
        tagged = tag(records, tagger, encoder)
        counts = act_counts(zip(tagged, [r.scripted_turns for r in records]), name=strategy)
        found = fidelity(reference_counts, counts, resamples=bootstrap, seed=seed)
        columns[strategy] = describe_counts(counts) | describe_fidelity(found) | describe_run(records, tagged)
        samples += plan_samples(strategy, records, tagged)
    print_table(columns)
    for strategy, role, planned, text_and_tags in samples[:show]:
        console.print(f"{strategy} {role} planned {'+'.join(planned)} | tagged {text_and_tags[1]} | {text_and_tags[0]}")


def tag(records: Sequence[DialogueRecord], tagger: ActModel, encoder) -> list[TaggedDialogue]:
    """Every record's messages tagged (a synth turn is one message, so tagged utterance i is turn i)."""
    tagged: list[TaggedDialogue] = []
    for batch in chunks(records, 256):
        tagged += tagger.tag([record_dialogue(r) for r in batch], encoder)
    return tagged


def agreement(records: Sequence[DialogueRecord], tagged: Sequence[TaggedDialogue]) -> tuple[float | None, float | None]:
    """Over planned turns: the share whose tagged top-level acts are the planned ones, and the share of planned
    sub-level acts the tagger found."""
    same = turns = found = planned = 0
    for record, dialogue in zip(records, tagged):
        for turn, utterance in zip(record.turns, dialogue.utterances):
            if turn.plan is None:
                continue
            role: Role = turn.role
            turns += 1
            same += set(top_of(role, turn.plan.acts)) == set(top_of(role, utterance.acts))
            planned += len(turn.plan.acts)
            found += len(set(turn.plan.acts) & set(utterance.acts))
    return (same / turns, found / planned) if turns else (None, None)


def plan_samples(strategy: str, records: Sequence[DialogueRecord], tagged: Sequence[TaggedDialogue]) -> list:
    """(strategy, role, planned acts, (text, tagged acts)) of every planned turn, in order."""
    return [
        (strategy, turn.role, turn.plan.acts, (turn.text, "+".join(utterance.acts)))
        for record, dialogue in zip(records, tagged)
        for turn, utterance in zip(record.turns, dialogue.utterances)
        if turn.plan is not None
    ]


def describe_counts(counts: ActCounts) -> dict[str, str]:
    """Requests before the first recommendation, words per turn and a few act shares, as table cells."""
    cells = {"dialogues": f"{counts.dialogues:,}"}
    recommending = counts.requests[counts.requests >= 0]
    bins = [np.mean(np.minimum(recommending, 3) == b) if len(recommending) else 0.0 for b in range(len(REQUEST_BINS))]
    cells["requests before 1st rec: " + " / ".join(REQUEST_BINS)] = " / ".join(f"{b:.0%}" for b in bins)
    for role, words in counts.mean_words().items():
        cells[f"words per {role} turn"] = "–" if words is None else f"{words:.1f}"
    for role, code in SHOWN_ACTS:
        total = counts.utterances[role].sum()
        index = list(TAXONOMY[role]).index(code)
        cells[f"{role} {code} (share of turns)"] = f"{counts.acts[role][:, index].sum() / total:.1%}" if total else "–"
    return cells


def describe_fidelity(found: Fidelity) -> dict[str, str]:
    def cell(interval) -> str:
        return "–" if interval.value is None else f"{interval.value:.3f} [{interval.low:.3f}, {interval.high:.3f}]"

    return {
        "JSD seeker acts": cell(found.seeker_acts),
        "JSD recommender acts": cell(found.recommender_acts),
        "JSD requests before 1st rec": cell(found.requests_before_recommendation),
        "sum of the divergences": cell(found.sum),
    }


def describe_run(records: Sequence[DialogueRecord], tagged: Sequence[TaggedDialogue]) -> dict[str, str]:
    """Outcome and cost figures of a run, and how well the tagger finds the planned acts."""
    goals = [r.outcome.turns_to_goal for r in records if r.outcome.accepted_target and r.outcome.turns_to_goal]
    top, sub = agreement(records, tagged)
    return {
        "acceptance rate": f"{np.mean([r.outcome.accepted_target for r in records]):.0%}",
        "turns to goal (mean, after the seed exchange)": f"{statistics.fmean(goals):.1f}" if goals else "–",
        "turns per dialogue": f"{statistics.fmean(len(r.turns) for r in records):.1f}",
        "format retries per dialogue": f"{statistics.fmean(r.generation.format_retries for r in records):.2f}",
        "failed dialogues": f"{sum(bool(r.errors) for r in records)}",
        "seconds per dialogue (LLM time)": f"{statistics.fmean(r.generation.latency_s for r in records):.1f}",
        "tagged top-level acts = planned (share of planned turns)": "–" if top is None else f"{top:.0%}",
        "planned sub-level acts the tagger finds": "–" if sub is None else f"{sub:.0%}",
    }


def print_table(columns: dict[str, dict[str, str]]) -> None:
    table = Table(title="strategy: generated dialogues against the reference (merged turns, scripted opening left out)",
                  title_justify="left")
    table.add_column("")
    for name in columns:
        table.add_column(name, justify="right")
    rows = list(dict.fromkeys(key for cells in columns.values() for key in cells))
    for row in rows:
        table.add_row(row, *(cells.get(row, "") for cells in columns.values()))
    console.print(table)


if __name__ == "__main__":
    app()
