"""The filter report: drops and rates per filter, overlaps between filters, examples; as JSON and as
printed tables."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from rich.console import Console
from rich.table import Table

from synth.filters.base import Verdict
from synth.runs.filtering import Drop, DropExample, FilterReport, FilterRow, JudgeErrorExample

EVIDENCE_CHARS = 300


class ReportBuilder:
    """Collects every filter's verdicts, dialogue by dialogue."""

    def __init__(self, filters: list[str], examples: int = 3):
        self.filters, self.examples = filters, examples
        self.dialogues = 0
        self.dropped = 0
        self.ran: Counter[str] = Counter()
        self.drops: Counter[str] = Counter()
        self.only: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.samples: dict[str, list[DropExample]] = {name: [] for name in filters}
        self.error_samples: dict[str, list[JudgeErrorExample]] = {name: [] for name in filters}

    def add(self, dialogue_id: str, verdicts: dict[str, Verdict]) -> list[str]:
        """Count one dialogue; returns the names of the filters that dropped it."""
        self.dialogues += 1
        failed = []
        for name, verdict in verdicts.items():
            self.ran[name] += 1
            if verdict.keep and verdict.reason:  # kept because the judge could not answer
                self.errors[name] += 1
                if len(self.error_samples[name]) < self.examples:
                    self.error_samples[name].append(JudgeErrorExample(id=dialogue_id, error=verdict.reason))
            if not verdict.keep:
                failed.append(name)
                self.drops[name] += 1
                if len(self.samples[name]) < self.examples:
                    self.samples[name].append(DropExample(id=dialogue_id, **drop_of(name, verdict).model_dump()))
        if failed:
            self.dropped += 1
            if len(failed) == 1:
                self.only[failed[0]] += 1
            for pair in combinations(sorted(failed), 2):
                self.pairs[pair] += 1
        return failed

    def build(self, **run: Any) -> FilterReport:
        """The report; `run` holds what the caller knows of the run (input, format, settings, timing)."""
        per_filter = {
            name: FilterRow(
                ran_on=self.ran[name],
                dropped=self.drops[name],
                drop_rate=round(self.drops[name] / self.ran[name], 4) if self.ran[name] else None,
                dropped_by_this_filter_only=self.only[name],
                judge_errors=self.errors[name],
                examples=self.samples[name],
                error_examples=self.error_samples[name],
            )
            for name in self.filters
        }
        overlap = {f"{a} & {b}": count for (a, b), count in sorted(self.pairs.items())}
        return FilterReport(
            **run,
            dialogues=self.dialogues,
            kept=self.dialogues - self.dropped,
            dropped=self.dropped,
            drop_rate=round(self.dropped / self.dialogues, 4) if self.dialogues else None,
            filters=per_filter,
            overlap=overlap,
        )


def drop_of(name: str, verdict: Verdict) -> Drop:
    """Filter `name`'s drop, as written to the dropped file and the report (long evidence shortened)."""
    evidence = verdict.evidence
    if evidence and len(evidence) > EVIDENCE_CHARS:
        evidence = evidence[:EVIDENCE_CHARS] + "…"
    return Drop(filter=name, reason=verdict.reason or "", evidence=evidence, turn=verdict.turn, score=verdict.score)


def print_report(report: FilterReport, console: Console) -> None:
    """The report as tables on the caller's `console`: per filter, overlaps, and one example per filter."""
    table = Table(
        title=f"synth filter: {report.kept} of {report.dialogues} dialogues kept ({_pct(report.drop_rate)} dropped)"
    )
    for column in (
        "filter",
        "ran on",
        "dropped",
        "rate",
        "only this filter",
        "judge errors",
    ):
        table.add_column(column, justify="left" if column == "filter" else "right")
    for name, row in report.filters.items():
        table.add_row(
            name,
            str(row.ran_on),
            str(row.dropped),
            _pct(row.drop_rate),
            str(row.dropped_by_this_filter_only),
            str(row.judge_errors),
        )
    console.print(table)
    if report.overlap:
        overlap = Table(title="dialogues dropped by both filters")
        overlap.add_column("filters")
        overlap.add_column("dialogues", justify="right")
        for pair, count in report.overlap.items():
            overlap.add_row(pair, str(count))
        console.print(overlap)
    for name, row in report.filters.items():
        for example in row.examples[:1]:
            console.print(
                f"[bold]{name}[/bold] {example.id}: {example.reason}",
                highlight=False,
            )
            if example.evidence:
                console.print(f"    “{example.evidence}”", highlight=False)
    if report.preference_method:
        console.print(f"preference filters: {report.preference_method}", highlight=False)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"
