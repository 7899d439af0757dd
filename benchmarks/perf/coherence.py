"""python -m synth.benchmarks.perf.coherence: do the default model's dialogues hold together? synth as it was
before the dialogue-state checks (`--today`, a checkout of that commit) against this checkout, on the demo and
on `movielens+rt`, side by side in one table (issue #43).

Each arm is `synth generate` run as a subprocess with the same model, seeds, max_tokens, turn cap and no
request cache (synth.benchmarks.perf.utterances.play: an arm whose folder already holds its `n` dialogues is
not played again, its time read from the bench.json written when it was played). Then this checkout's
detectors read every run, each utterance with what the turn loop checks it against, and the table gives, per
dialogue-state defect, its share of the utterances it applies to and the share of dialogues with at least one;
the share of dialogues with any of them; wrong acceptances, acceptance, re-samples, format retries, failed
dialogues and seconds per dialogue; and a classifier's view: the cross-validated ROC AUC of TF-IDF + logistic
regression telling the run's turns from as many ReDial test turns (consecutive messages of a speaker merged,
movie titles masked on both sides; 0.5 means it cannot tell them apart)."""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Sequence
from pathlib import Path

import typer

from synth.analysis.defects import (
    DEFECTS,
    STATE_DEFECTS,
    Spoken,
    defect_rates,
    dialogue_items,
    dialogue_utterances,
    dialogues_with_any,
)
from synth.analysis.stats.corpus import load_corpus
from synth.benchmarks.perf.utterances import MODEL, arm_utterances, play_arms, print_table
from synth.data.dialogues import merge_turns
from synth.records import DialogueRecord, Item

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
MASK = "MOVIE"
_MENTION = re.compile(r"@\d+")  # ReDial's movie mentions
_TITLE_WITH_YEAR = re.compile(r"[A-Z0-9][\w'’.:,!-]*(?:\s+(?:[A-Z0-9][\w'’.:,!-]*|of|the|a|an|and|in|on|at|to|for|with))*\s*\(\d{4}\)")
LABELS = {m.name: m for m in DEFECTS}
# the defects issue #43 names (its done-when counts them and wrong acceptances); the others are synth's own
ISSUE_DEFECTS = ("unsaid_reference", "speaks_as_other", "unnamed_recommendation", "recites_target", "unasked_question",
                 "early_goodbye", "contradicts_catalog")


def defect_cells(dialogues: Sequence[Sequence[Spoken]], wrong: Sequence[bool] = ()) -> dict[str, str]:
    """Each dialogue-state defect: share of the utterances it applies to, and share of dialogues with one; then
    the dialogues with any of them (those that end on a wrong acceptance, `wrong`, counted with the issue's)."""
    rates = defect_rates(dialogues)
    cells = {}
    for name in STATE_DEFECTS:
        rate = rates[name]
        utterances = "–" if not rate.of else f"{rate.hits / rate.of:.1%} ({rate.hits}/{rate.of})"
        share = "" if not len(dialogues) else f"; {rate.dialogues}/{len(dialogues)} dlg"
        cells[f"{LABELS[name].label} (of {LABELS[name].unit})"] = utterances + share
    wrong = list(wrong) or [False] * len(dialogues)
    for label, names in (("dialogues with any of the issue's seven, or a wrong acceptance", ISSUE_DEFECTS),
                         ("dialogues with any of these defects, or a wrong acceptance", STATE_DEFECTS)):
        hits = sum(bad or dialogues_with_any([d], names).hits > 0 for d, bad in zip(dialogues, wrong))
        cells[label] = f"{hits / max(len(dialogues), 1):.0%} ({hits}/{len(dialogues)})"
    return cells


def outcome_cells(records: Sequence[DialogueRecord], figures: dict) -> dict[str, str]:
    n = len(records)
    ended = [r.outcome.ended_by for r in records]
    whole = sum(not r.errors for r in records)  # dialogues per hour count the dialogues no error ended
    return {
        "dialogues": str(n),
        "accepted the target": f"{sum(r.outcome.accepted_target for r in records)} of {n}",
        "ended on a wrong acceptance": f"{ended.count('wrong_acceptance')} of {n}",
        "failed (an error ended it)": f"{sum(bool(r.errors) for r in records)} of {n}",
        "reply re-samples per dialogue": f"{statistics.fmean(r.generation.reply_resamples for r in records):.2f}",
        "format retries per dialogue": f"{statistics.fmean(r.generation.format_retries for r in records):.2f}",
        "LLM calls per dialogue": f"{statistics.fmean(r.generation.llm_calls for r in records):.1f}",
        "seconds per dialogue (wall)": f"{figures['wall_s'] / n:.1f}",
        "dialogues per hour (wall; not failed)": f"{3600 * whole / figures['wall_s']:.1f}",
        "completion tokens per dialogue": f"{statistics.fmean(r.generation.completion_tokens for r in records):.0f}",
        "of which forced by the schema": _mean_known([r.generation.completion_tokens_forced for r in records]),
        "prompt tokens evaluated per dialogue": _mean_known([r.generation.prompt_tokens_evaluated for r in records]),
        "played": figures["played"],
    }


def _mean_known(values: Sequence[int | None]) -> str:
    """The mean, or "–" where a record does not know the figure (a server that does not say)."""
    return "–" if any(v is None for v in values) or not values else f"{statistics.fmean(values):.0f}"


def masked_turns_of_records(records: Sequence[DialogueRecord], catalog: dict[str, Item]) -> list[str]:
    """The runs' unscripted turns, consecutive ones of a speaker merged, every title of the dialogue masked."""
    turns = []
    for record in records:
        titles = sorted({i.title for i in dialogue_items(record, catalog)} | {record.target_item.title}, key=len, reverse=True)
        spoken = [(t.role, t.text) for t in record.turns[record.scripted_turns :]]
        for _, text in _merged(spoken):
            text = _TITLE_WITH_YEAR.sub(MASK, text.replace("[EOD]", ""))
            for title in titles:
                text = re.sub(rf"(?<!\w){re.escape(title)}(?:\s*\(\d{{4}}\))?(?!\w)", MASK, text, flags=re.IGNORECASE)
            turns.append(text.strip())
    return [t for t in turns if t]


def _merged(spoken: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    merged: list[tuple[str, str]] = []
    for role, text in spoken:
        if merged and merged[-1][0] == role:
            merged[-1] = (role, merged[-1][1] + " " + text)
        else:
            merged.append((role, text))
    return merged


def human_turns(reference: str) -> list[str]:
    """Every turn of the reference set, consecutive messages of a speaker merged, "@123" mentions masked."""
    return [_MENTION.sub(MASK, t.text) for d, _ in load_corpus(reference) for t in merge_turns(d).turns if t.text.strip()]


def classifier_auc(generated: Sequence[str], human: Sequence[str], seed: int = 0) -> str:
    """Mean 5-fold cross-validated ROC AUC of TF-IDF (words and bigrams) + logistic regression telling the
    generated turns from as many human turns drawn at random."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline

    sample = random.Random(seed).sample(list(human), len(generated))
    texts, labels = [*generated, *sample], [1] * len(generated) + [0] * len(sample)
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True), LogisticRegression(max_iter=1000))
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    scores = cross_val_score(model, texts, labels, cv=folds, scoring="roc_auc")
    return f"{scores.mean():.3f} ± {scores.std():.3f} ({len(generated)} + {len(sample)} turns)"


@app.command()
def main(
    today: Path = typer.Option(..., help="A checkout of synth before the dialogue-state checks (git worktree add DIR COMMIT)."),
    out: Path = typer.Option(Path("runs/bench-coherence"), help="Folder of the runs (reused when complete)."),
    n: int = typer.Option(20, help="Dialogues per arm."),
    model: str = typer.Option(MODEL, help="The model every arm uses."),
    reference: str = typer.Option("redial-test", help="The human set the classifier compares with."),
    arms: str = typer.Option("today,new", help="Which arms to play: today, new or both."),
    scoring: bool = typer.Option(True, "--score/--no-score", help="Print the table (--no-score: only play)."),
) -> None:
    """Play or reuse the arms, then print the coherence table."""
    played = play_arms(out, arms.split(","), today, n, model)
    if not scoring:
        return
    human = human_turns(reference)
    reference_dialogues = [dialogue_utterances(merge_turns(d)) for d, _ in load_corpus(reference)][:n]
    columns = {f"{reference} (first {n}, merged turns)": {**defect_cells(reference_dialogues)}}
    for name, (arm, figures) in played.items():
        records, dialogues, catalog = arm_utterances(arm)
        wrong = [r.outcome.ended_by == "wrong_acceptance" for r in records]
        columns[name] = {**defect_cells(dialogues, wrong), **outcome_cells(records, figures),
                         "classifier ROC AUC vs ReDial test (0.5: indistinguishable)": classifier_auc(
                             masked_turns_of_records(records, catalog), human)}
    print_table("coherence: dialogue-state defects, before and after (issue #43)", columns)


if __name__ == "__main__":
    app()
