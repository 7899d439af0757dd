"""The results of `synth evaluate` as a reader wants them: a markdown table shaped like iEvaLM's (one row per
CRS, success and Recall@k at the end, success at the first recommendation and later, the leak rate), the
validation verdicts, and a plot of success by turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table


def _cell(entry: dict[str, Any]) -> str:
    low, high = entry["ci95"]
    return f"{entry['mean']:.3f} [{low:.2f}, {high:.2f}]"


COLUMNS = ("success", "R@1", "R@10", "R@50", "static R@10", "first rec.", "later", "turns to success", "leak rate",
           "s/conv")


def row(scores: dict[str, Any]) -> list[str]:
    turns = scores["turns_to_success"]
    static = scores.get("static", {}).get("recall@10")
    return [_cell(scores["success"]), _cell(scores["recall@1"]), _cell(scores["recall@10"]), _cell(scores["recall@50"]),
            "–" if static is None else f"{static:.3f}", f"{scores['success_at_first_recommendation']:.3f}",
            f"{scores['success_later']:.3f}",
            "–" if turns is None else f"{turns:.2f}", f"{scores['leak_rate']:.1%}",
            f"{scores['seconds_per_conversation']:.1f}"]


def markdown(results: dict[str, Any]) -> str:
    settings, cases = results["settings"], results["cases"]
    lines = [
        f"## Interactive evaluation on {settings['test']} ({cases['played']} cases, {settings['turns']} CRS turns, "
        f"seeker {settings['seeker_model']})", "",
        f"Targets in the test set: {cases['targets']} ({cases['not_in_catalog']} not in the catalog, not played). "
        "Means with 95% bootstrap intervals over the cases; an item mentioned before never counts. Static R@10: the "
        "trained baseline on every movie mention of the test set, as `synth benchmark` scores it.", "",
        "| CRS | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS),
    ]
    for name, scores in results["systems"].items():
        lines.append(f"| {name} | " + " | ".join(row(scores)) + " |")
    if "validation" in results:
        lines += ["", "| degraded twin | of | played as | success intervals apart | Recall@10 intervals apart |",
                  "|---|---|---|---|---|"]
        for twin, verdict in results["validation"].items():
            apart = ["yes" if verdict.get(f"separated_{metric}") else "no" for metric in ("success", "recall@10")]
            lines.append(f"| {twin} | {verdict['of']} | {verdict.get('played_as', twin)} | {' | '.join(apart)} |")
    return "\n".join(lines) + "\n"


def console_tables(results: dict[str, Any]) -> list[Table]:
    table = Table(title=f"synth evaluate on {results['settings']['test']}")
    table.add_column("CRS")
    for column in COLUMNS:
        table.add_column(column, justify="right")
    for name, scores in results["systems"].items():
        table.add_row(name, *row(scores))
    return [table]


def plot(results: dict[str, Any], folder: Path) -> list[Path]:
    """success_by_turn.png: the share of conversations that succeeded by each CRS turn, one line per CRS."""
    from synth.analysis.stats.plots import pyplot

    plt = pyplot()
    figure, axis = plt.subplots(figsize=(6, 4))
    turns = results["settings"]["turns"]
    for name, scores in results["systems"].items():
        axis.plot(range(1, turns + 1), scores["success_by_turn"], marker="o", label=name)
    axis.set_xlabel("CRS turn")
    axis.set_ylabel("success so far")
    axis.set_xticks(range(1, turns + 1))
    axis.legend(fontsize=7)
    figure.tight_layout()
    path = folder / "success_by_turn.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return [path]
