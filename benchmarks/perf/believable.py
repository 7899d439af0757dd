"""python -m synth.benchmarks.perf.believable: dialogues a reader believes (issue #63). Today's main (`--today`, a
checkout of it: free wording) against this checkout's decided wording, on the demo and on `movielens+rt`, the same
model, seeds, max_tokens and turn cap, one arm at a time (synth.benchmarks.perf.utterances.play: an arm already
played is read back, its time from its bench.json).

Three steps, each its own invocation:
1. `--sheet FILE`: play the arms, then write a blind reading sheet: every dialogue of every arm, shuffled, under
   a number only (no arm, run, model or file name), each with its target, the seeker's review of it and its
   ratings; the key goes to FILE.key.json, which the reader does not open.
2. The reader reads each dialogue whole and writes FILE.verdicts.jsonl, one line per dialogue:
   {"dialogue": 7, "sound": false, "defects": {"other_role": 1, "false_fact": 2}} (turns per category, CATEGORIES;
   a list of the turn numbers counts as its length).
3. `--verdicts FILE.verdicts.jsonl`: the table, per arm (without it, the same table less the audit): the audit (dialogues and turns per category, dialogues
   found sound), believable dialogues per hour (dialogues per hour times the share found sound), the detector
   rates of `synth stats`, acceptance and wrong acceptances, seconds, tokens and re-samples per dialogue, Dist-2
   and self-BLEU beside ReDial test's (at equal size), and the TF-IDF classifier's ROC AUC against ReDial test
   turns."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import typer

from synth.analysis.stats.run import collect_stats, open_corpora
from synth.benchmarks.perf.coherence import (
    classifier_auc,
    defect_cells,
    human_turns,
    masked_turns_of_records,
    outcome_cells,
)
from synth.benchmarks.perf.utterances import MODEL, SOURCES, arm_utterances, play, print_table
from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.modes import review_index
from synth.rating.protocols import CATEGORIES
from synth.records import DialogueRecord, Item, Review, verdict
from synth.runs.folder import RunFolder
from synth.runs.records import iter_records

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
SIDES = {"today": (), "new": ("--wording", "decided")}  # side -> the options its arms add


def play_all(out: Path, today: Path, n: int, model: str) -> dict[str, tuple[Path, dict]]:
    """Every arm (side x source), played or read back: arm name -> (folder, bench.json)."""
    return {
        f"{side}-{source}": (out / f"{side}-{source}", play(out / f"{side}-{source}", source, seed, n,
                                                             today if side == "today" else None, model, extra))
        for side, extra in SIDES.items() for source, seed in SOURCES.items()
    }


def write_sheet(sheet: Path, played: dict[str, tuple[Path, dict]], seed: int = 63) -> None:
    """The blind sheet (Markdown) and its key: every dialogue shuffled, numbered from 1."""
    entries = [(arm, record, items, opinion) for arm, (folder, _) in played.items()
               for record, items, opinion in _records(folder)]
    random.Random(seed).shuffle(entries)
    lines = ["# Reading sheet", "", "Read each dialogue whole; note every defect by category: "
             + "; ".join(f"`{k}` {v}" for k, v in CATEGORIES.items()), ""]
    for number, (_, record, items, opinion) in enumerate(entries, 1):
        lines += _dialogue_lines(number, record, items, opinion)
    sheet.write_text("\n".join(lines) + "\n")
    key = {str(number): {"arm": arm, "id": record.id} for number, (arm, record, _, _) in enumerate(entries, 1)}
    sheet.with_suffix(".key.json").write_text(json.dumps(key, indent=1))


Opinion = Callable[[str, str], Review | None]


def _records(folder: Path) -> list[tuple[DialogueRecord, dict[str, Item], Opinion]]:
    """An arm's records, its items and the seekers' own ratings (from the run's source data)."""
    folder_run = RunFolder.open(folder)
    config = GenerateConfig.model_validate(folder_run.manifest.config)
    reviews = review_index(config, load_data(config))
    records = [found.record for found in iter_records(folder / "dialogues.jsonl")]
    return [(record, folder_run.items, reviews.opinion) for record in records]


def _rated(review: Review) -> str:
    return f"{verdict(review)} ({review.stars or f'{review.rating:g}'})"


def _dialogue_lines(number: int, record: DialogueRecord, items: dict[str, Item], opinion: Opinion) -> list[str]:
    """One dialogue as the reader sees it: what the seeker hopes for, its ratings and its own rating of each
    movie suggested to it, then every turn."""
    target = record.target_item
    lines = [f"## Dialogue {number}", "", f"Target: {target.display} ({', '.join(target.genres)})"]
    if record.persona is not None:
        lines.append(f"Seeker's review of it ({_rated(record.persona.target)}): {record.persona.target.text or '(a rating only)'}")
        lines += [f"- rated {items[r.item].display if r.item in items else r.item}: {_rated(r)}"
                  + (f' "{r.text}"' if r.text else "") for r in record.persona.general]
        suggested = dict.fromkeys(t.recommended_item for t in record.turns if t.recommended_item)
        for item_id in suggested:
            own = opinion(record.user_id, item_id) if item_id != target.id else None
            if own is not None:
                lines.append(f"- suggested {items[item_id].display if item_id in items else item_id}, which the seeker "
                             f"rated: {_rated(own)}" + (f' "{own.text}"' if own.text else ""))
    lines.append("")
    lines += [f"{i}. **{t.role}**: {t.text}" for i, t in enumerate(record.turns, 1)]
    return [*lines, ""]


def audit_cells(verdicts: Path, key: dict[str, dict[str, str]], arm: str, figures: dict, n: int) -> dict[str, str]:
    """The reader's findings in one arm: dialogues / turns per category, dialogues found sound, believable per hour."""
    found = [json.loads(line) for line in verdicts.read_text().splitlines() if line.strip()]
    mine = [v for v in found if key[str(v["dialogue"])]["arm"] == arm]
    cells = {}
    for name, label in CATEGORIES.items():
        # a category's turns as a count, or as the list of the turns (the `synth rate` ratings' way)
        counts = [len(t) if isinstance(t, list) else t for t in (v["defects"].get(name, 0) for v in mine)]
        with_it = [count for count in counts if count]
        cells[f"reader: {label} (dialogues / turns)"] = f"{len(with_it)} / {sum(with_it)}"
    sound = sum(bool(v["sound"]) for v in mine)
    per_hour = 3600 * n / figures["wall_s"]
    cells["reader: dialogues found sound"] = f"{sound} of {len(mine)}"
    cells["believable dialogues per hour"] = f"{per_hour * sound / max(len(mine), 1):.1f}"
    return cells


@app.command()
def main(
    today: Path = typer.Option(..., help="A checkout of today's main (git worktree add DIR COMMIT)."),
    out: Path = typer.Option(Path("runs/bench-believable"), help="Folder of the runs (reused when complete)."),
    n: int = typer.Option(20, help="Dialogues per arm."),
    model: str = typer.Option(MODEL, help="The model every arm uses."),
    sheet: Path | None = typer.Option(None, help="Write the blind reading sheet here (and its key beside it)."),
    verdicts: Path | None = typer.Option(None, help="The reader's verdicts (JSON Lines), scored in the table."),
    scoring: bool = typer.Option(True, "--score/--no-score", help="Print the table (without --verdicts: no audit rows)."),
    reference: str = typer.Option("redial-test", help="The human set the classifier and the diversity compare with."),
) -> None:
    """Play or reuse the arms; write the sheet; print the table (with the reader's verdicts where given)."""
    played = play_all(out, today, n, model)
    if sheet is not None:
        write_sheet(sheet, played)
        typer.echo(f"wrote {sheet} ({4 * n} dialogues) and its key {sheet.with_suffix('.key.json')}")
    if not scoring:
        return
    key = json.loads(verdicts.with_name(verdicts.name.replace(".verdicts.jsonl", ".key.json")).read_text()) if verdicts else {}
    human = human_turns(reference)
    stats, _ = collect_stats(open_corpora([*(str(folder) for folder, _ in played.values()), reference]))
    diversity = {s.name: s.diversity for s in stats}
    columns: dict[str, dict[str, str]] = {}
    for (name, (folder, figures)), corpus in zip(played.items(), stats):
        records = [found.record for found in iter_records(folder / "dialogues.jsonl")]
        _, dialogues, catalog = arm_utterances(folder)
        wrong = [r.outcome.ended_by == "wrong_acceptance" for r in records]
        audit = audit_cells(verdicts, key, name, figures, len(records)) if verdicts else {}
        columns[name] = {
            **audit, **outcome_cells(records, figures),
            **defect_cells(dialogues, wrong), **_diversity_cells(corpus.diversity),
            "classifier ROC AUC vs ReDial test (0.5: indistinguishable)": classifier_auc(
                masked_turns_of_records(records, catalog), human),
        }
    for source in SOURCES:
        columns[f"new-{source}"] |= _ratio_cells(columns[f"today-{source}"], columns[f"new-{source}"])
    columns[reference] = _diversity_cells(diversity[stats[-1].name])
    print_table("believable dialogues: today's main against decided wording (issue #63)", columns)


RATIOS = ("seconds per dialogue (wall)", "believable dialogues per hour")


def _ratio_cells(today: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    """Decided wording's figure over today's, beside the figures (∞ where today's is 0)."""
    cells = {}
    for row in (r for r in RATIOS if r in today and r in new):
        before, after = float(today[row]), float(new[row])
        cells[f"{row}: decided / today"] = f"{after / before:.2f}x" if before else "∞"
    return cells


def _diversity_cells(diversity) -> dict[str, str]:
    if diversity is None:
        return {}
    return {"Dist-2 at equal size": f"{diversity.dist_equal_size['2']:.3f}",
            "self-BLEU (0-100, lower is more diverse)": f"{diversity.self_bleu:.1f}" if diversity.self_bleu is not None else "–"}


if __name__ == "__main__":
    app()
