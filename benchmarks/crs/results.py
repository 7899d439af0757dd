"""The results as the papers show them: rows are model x training set, columns are metrics per test set;
a markdown file, console tables and a bar plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from synth.benchmarks.crs.evaluate import CRSLAB_METRICS, RECOMMENDATION_METRICS, RESPONSE_METRICS
from synth.benchmarks.crs.significance import verdict

SHORT = {"recall@1": "R@1", "recall@10": "R@10", "recall@50": "R@50", "mrr@50": "MRR@50", "ndcg@50": "NDCG@50"}
PLOTTED = {"recommendation": ("recall@10", "recall@50"), "response": ("f1", "bleu-2", "dist-2")}


def metric_names(task: str, results: dict[str, Any]) -> tuple[str, ...]:
    if task == "recommendation":
        return RECOMMENDATION_METRICS
    return RESPONSE_METRICS + (CRSLAB_METRICS if results["settings"]["crslab_compat"] else ())


def rows(task: str, results: dict[str, Any]) -> list[tuple[str, str, dict[str, dict[str, float]], dict[str, int]]]:
    """(model, train label, {test: metrics}, {test: cases}) in the order the models ran; a metric's 95% interval
    is under its name + '_ci'."""
    table: dict[tuple[str, str], tuple[dict[str, dict[str, float]], dict[str, int]]] = {}
    for entry in results["results"]:
        if entry["task"] == task:
            metrics, cases = table.setdefault((entry["model"], entry["train"] or "–"), ({}, {}))
            found = entry["metrics"] | {f"{name}_ci": ci for name, ci in entry.get("ci95", {}).items()}
            metrics[entry["test"]], cases[entry["test"]] = found, entry["cases"]
    return [(model, train, metrics, cases) for (model, train), (metrics, cases) in table.items()]


def tests_of(results: dict[str, Any]) -> list[str]:
    return list(results["test_cases"])


def datasets_table(results: dict[str, Any]) -> list[str]:
    """Each dataset's size, its cases and the share of its item mentions MovieLens lacks."""
    lines = ["### Datasets", "", "| role | dataset | dialogues | recommendation cases | response cases | item mentions | "
             "not in MovieLens |", "|---|---|---:|---:|---:|---:|---:|"]
    for role, cases_key in (("train", "training_cases"), ("test", "test_cases")):
        for label, info in results["datasets"][role].items():
            cases, items = results[cases_key][label], info["items"]
            lines.append(f"| {role} | {label} | {info['dialogues']:,} | {cases['recommendation']:,} | "
                         f"{cases['response']:,} | {items['mentions']:,} | {items['unmapped_share']:.1%} |")
    tests = tests_of(results)
    lines += ["", "Share of each test set's recommendation targets that are also training targets:", "",
              "| train | " + " | ".join(tests) + " |", "|---|" + "---:|" * len(tests)]
    for label, shares in results["target_coverage"].items():
        lines.append(f"| {label} | " + " | ".join(f"{shares[t]:.1%}" for t in tests) + " |")
    return lines + [""]


def markdown(results: dict[str, Any]) -> str:
    """The datasets, then both tasks' tables with the case counts and the labels the numbers need."""
    lines = datasets_table(results)
    tests = tests_of(results)
    for task in ("recommendation", "response"):
        task_rows = rows(task, results)
        if not task_rows or (task == "response" and all(r[0] == "references" for r in task_rows)):
            continue
        names = metric_names(task, results)
        lines += [f"### {task.capitalize()}", ""]
        header = ["model", "train"] + [f"{test} {SHORT.get(m, m)}" for test in tests for m in names]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]
        for model, train, metrics, _ in task_rows:
            cells = [_cell(metrics.get(test, {}).get(m), metrics.get(test, {}).get(f"{m}_ci"))
                     for test in tests for m in names]
            lines.append(f"| {model} | {train} | " + " | ".join(cells) + " |")
        lines += ["", "Cases per test set: " + "; ".join(_cases_note(task, test, task_rows) for test in tests) + "."]
        lines.append("In brackets: 95% bootstrap intervals over the test cases.")
        found = verdict([c for c in results.get("comparisons", []) if c["task"] == task], SHORT)
        lines += [found] if found else []
        if task == "recommendation":
            space = results["settings"]["item_space"]
            excluded = "excluded from" if results["settings"]["exclude_mentioned"] else "kept in"
            lines.append(f"Ranked over {space['items']:,} items; items mentioned earlier in the dialogue are {excluded} "
                         "the ranking.")
        else:
            lines.append("Dist-n: distinct / all word n-grams over the model's responses; 'references' is the test "
                         "set's own responses; it falls as the number of responses grows, so compare rows with the same case count. "
                         "BLEU: corpus-level; ROUGE and F1: mean over responses.")
            if results["settings"]["crslab_compat"]:
                lines.append("crslab-dist@n: CRSLab's variant, distinct *character* n-grams / responses, only for "
                             "comparison with numbers published with CRSLab.")
        lines.append("")
    return "\n".join(lines + planted_table(results) + fits_table(results))


def planted_table(results: dict[str, Any]) -> list[str]:
    """`--planted`: per model, test set and key metric, the planted gain (half -> both) and the planted
    nothing (half -> shuffled) with their paired intervals, and the smallest gain the row can see."""
    rows = results.get("planted")
    if not rows:
        return []
    lines = ["### The instrument: a planted gain and a planted nothing", "",
             "| model | test | metric | half → both | half → shuffled | smallest gain seen |", "|---|---|---|---:|---:|---:|"]
    for row in rows:
        positive = _difference(row.get("positive"), row.get("positive_ci95"), row.get("positive_seen"))
        negative = _difference(row.get("negative"), row.get("negative_ci95"), row.get("negative_seen_as_gain"))
        lines.append(f"| {row['model']} | {row['test']} | {SHORT.get(row['metric'], row['metric'])} | {positive} | "
                     f"{negative} | {row.get('smallest_gain', '')} |")
    seen = sorted({r["model"] for r in rows if r.get("positive_seen")})
    false = sorted({r["model"] for r in rows if r.get("negative_seen_as_gain")})
    lines += ["", "Paired bootstrap over the same test cases, 95%; **bold**: the interval leaves out 0 on the gain side. "
              f"The planted gain is seen by {len(seen)} model(s) ({', '.join(seen) or 'none'}); the planted nothing is "
              f"taken for a gain by {len(false)} ({', '.join(false) or 'none'}). Smallest gain seen: the half-width of "
              "the planted gain's interval, the least difference these test sets tell from zero.", ""]
    return lines


def _difference(value: float | None, interval: list[float] | None, seen: bool | None) -> str:
    if value is None or interval is None:
        return ""
    text = f"{value:+.3f} [{interval[0]:+.3f}, {interval[1]:+.3f}]"
    return f"**{text}**" if seen else text


def fits_table(results: dict[str, Any]) -> list[str]:
    """One line per trained model and training set: seconds to fit (or to load a cached fit), and for the models
    that record their training (lm-crs) its steps, examples, first and final loss and peak memory."""
    fits = {(r["model"], r["train"]): r for r in results["results"] if r.get("train")}
    if not fits:
        return []
    lines = ["### Fits", "", "| model | train | fit s | steps | examples | loss first → final | peak memory MB |",
             "|---|---|---:|---:|---:|---|---:|"]
    for (model, train), entry in fits.items():
        done = entry.get("training") or {}
        seconds = f"{entry['fit_s']:.0f}" + (" (cached)" if entry.get("cached") else "")
        loss = f"{done['first_loss']:.2f} → {done['final_loss']:.2f}" if done else "–"
        memory = f"{done['peak_memory_mb']:,} ({done['peak_memory_of']})" if done else "–"
        lines.append(f"| {model} | {train} | {seconds} | {done.get('steps', '–')} | {done.get('examples', '–')} | "
                     f"{loss} | {memory} |")
    return lines + ["", "A cached fit's seconds are loading it; its training figures are the original fit's.", ""]


def _cases_note(task: str, test: str, task_rows: list) -> str:
    counts = sorted({cases[test] for *_, cases in task_rows if test in cases}, reverse=True)
    return f"{test} " + " / ".join(f"{n:,}" for n in counts)


def _cell(value: float | None, interval: list[float] | None = None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def console_tables(results: dict[str, Any]) -> list[Table]:
    """One table per task and test set (the response metrics are too many for one row per model)."""
    tables = []
    for task in ("recommendation", "response"):
        names = metric_names(task, results)
        for test in tests_of(results):
            task_rows = [r for r in rows(task, results) if test in r[2]]
            if not any(model != "references" for model, *_ in task_rows):
                continue
            table = Table(title=f"{task} on {test}")
            for column in ["model", "train", "cases", *(SHORT.get(m, m) for m in names)]:
                table.add_column(column, justify="left" if column in ("model", "train") else "right")
            for model, train, metrics, cases in task_rows:
                table.add_row(model, train, f"{cases[test]:,}", *(_cell(metrics[test].get(m)) for m in names))
            tables.append(table)
    return tables


def plot(results: dict[str, Any], folder: Path) -> list[Path]:
    """One PNG per task: a panel per test set, grouped bars of its key metrics per model x training set."""
    from synth.analysis.stats.plots import pyplot

    plt = pyplot()
    import numpy as np

    written = []
    tests = tests_of(results)
    for task, metrics in PLOTTED.items():
        task_rows = [r for r in rows(task, results) if not (r[0] == "references" and task == "recommendation")]
        if not any(model != "references" for model, *_ in task_rows):
            continue
        figure, axes = plt.subplots(1, len(tests), figsize=(6 * len(tests), 4.5), squeeze=False, sharey=True)
        labels = [f"{model}\n({train})" if train != "–" else model for model, train, *_ in task_rows]
        width = 0.8 / len(metrics)
        for axis, test in zip(axes[0], tests):
            for index, metric in enumerate(metrics):
                values = [m.get(test, {}).get(metric, np.nan) for _, _, m, _ in task_rows]
                axis.bar(np.arange(len(task_rows)) + index * width, values, width, label=SHORT.get(metric, metric))
            axis.set_xticks(np.arange(len(task_rows)) + width * (len(metrics) - 1) / 2, labels, rotation=60,
                            ha="right", fontsize=7)
            axis.set_title(f"{task} on {test}")
        axes[0][0].legend()
        figure.tight_layout()
        path = folder / f"{task}.png"
        figure.savefig(path, dpi=120)
        plt.close(figure)
        written.append(path)
    return written
