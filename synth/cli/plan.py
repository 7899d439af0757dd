"""`synth generate --plan`: what a run would play, read from the data alone (no model is loaded or called)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import typer
from rich.table import Table

from synth.cli.console import table_console
from synth.config import GenerateConfig


def plan_figures(settings: GenerateConfig, coverage_of: list[str]) -> dict[str, Any]:
    """The plan's counts (n, distinct users, targets, pairs, personas, the most games of one user, the Gini of
    the targets' games) and, per reference set, the share of its targets the plan covers."""
    from synth.data.configured import load_data
    from synth.data.reference_targets import target_coverage
    from synth.modes import PLANNERS

    data = load_data(settings)
    planned = PLANNERS[settings.mode](settings, data)
    figures: dict[str, Any] = {"mode": settings.mode, "source": settings.data_source, **asdict(planned.summary)}
    if settings.mode == "gorecdial":  # how hard the sets are: the share each ranker picks correctly first
        figures["set_difficulty"] = settings.set_rules.difficulty
        for ranker in ("description", "corating"):
            figures[f"sets_{ranker}_first"] = round(planned.counts[f"sets_{ranker}_first"] / planned.summary.n, 4)
    if coverage_of:
        targets = {spec_target(spec): data.catalog[spec_target(spec)] for spec in planned.specs}
        figures["coverage"] = {}
        for reference in coverage_of:
            coverage = target_coverage(targets.values(), reference)
            figures["coverage"][reference] = {"covered": coverage.covered, "total": coverage.total, "share": coverage.share}
    return figures


def spec_target(spec: Any) -> str:
    """The catalog id of a game's target: the persona's (PEARL) or the correct candidate (GoRecDial)."""
    if hasattr(spec, "target"):
        return spec.target.id
    return spec.movie_set.candidates[spec.movie_set.correct_index]


def show_plan(settings: GenerateConfig, coverage_of: list[str], as_json: bool) -> None:
    """Print the plan as one JSON object or as a table."""
    figures = plan_figures(settings, coverage_of)
    if as_json:
        typer.echo(json.dumps(figures, sort_keys=True))
        return
    table = Table(title=f"Plan: {settings.mode} games from '{settings.data_source}' (no model loaded)")
    table.add_column("")
    table.add_column("value", justify="right")
    for key, value in figures.items():
        if key == "coverage":
            for reference, share in value.items():
                table.add_row(f"targets of {reference} covered", f"{share['covered']} of {share['total']} ({share['share']:.1%})")
        elif value is not None:
            table.add_row(key.replace("_", " "), f"{value:.3f}" if isinstance(value, float) else str(value))
    table_console(60).print(table)
