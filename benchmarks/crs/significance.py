"""Does a training set help? Each row's key metrics with a 95% bootstrap interval over its test cases, and
for each model and test set, the difference between every two training sets, paired case by case (the same
test cases score both), with its own interval: a difference whose interval leaves out 0 is significant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean

from synth.analysis.intervals import mean_interval
from synth.analysis.metrics.generation import token_f1
from synth.analysis.metrics.ranking import recall_at

KEY_METRICS = {"recommendation": ("recall@10", "recall@50"), "response": ("f1",)}


@dataclass
class RowValues:
    """One model x training set x test set: each key metric's value on every test case, in case order."""

    task: str
    model: str
    train: str | None
    test: str
    values: dict[str, list[float]]


def ranking_values(ranks: Sequence[int | None]) -> dict[str, list[float]]:
    """Per case, whether the target is in the top 10 and top 50."""
    return {name: [recall_at([rank], int(name.split("@")[1])) for rank in ranks]
            for name in KEY_METRICS["recommendation"]}


def response_values(answers: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
    """Per case, the token F1 of the answer against its reference."""
    return {"f1": [token_f1(answer, reference) for answer, reference in zip(answers, references)]}


def intervals(values: dict[str, list[float]], seed: int) -> dict[str, list[float] | None]:
    """Each metric's 95% interval of its mean over the cases."""
    return {name: mean_interval(case_values, seed) for name, case_values in values.items()}


UNTRAINED = "untrained"  # the training set's name for a trained model's untrained twin in a comparison


def compare_training_sets(rows: Sequence[RowValues], seed: int,
                          twins: dict[str, str] | None = None) -> list[dict[str, object]]:
    """For each model and test set scored after training on two or more sets, or on one set beside its untrained
    twin's row (`twins`: trained model -> untrained model, compared as the set "untrained", first), every pair of
    sets (in the order given): the mean paired difference (second minus first) of each key metric and its
    interval."""
    groups: dict[tuple[str, str, str], list[RowValues]] = {}
    for row in rows:
        if row.train is not None:
            groups.setdefault((row.task, row.model, row.test), []).append(row)
    untrained = {(row.task, row.model, row.test): row for row in rows if row.train is None}
    for (task, model, test), trained in groups.items():
        twin = untrained.get((task, (twins or {}).get(model, ""), test))
        if twin is not None:
            trained.insert(0, RowValues(task, model, UNTRAINED, test, twin.values))
    found = []
    for (task, model, test), trained in groups.items():
        for first, second in combinations(trained, 2):
            for metric, values in first.values.items():
                other = second.values[metric]
                if len(other) != len(values):  # not the same cases: no paired comparison
                    continue
                differences = [b - a for a, b in zip(values, other)]
                interval = mean_interval(differences, seed)
                found.append({
                    "task": task, "model": model, "test": test, "metric": metric, "first": first.train,
                    "second": second.train, "difference": round(fmean(differences), 4) if differences else 0.0,
                    "ci95": interval, "significant": interval is not None and (interval[0] > 0 or interval[1] < 0),
                })
    return found


def verdict(comparisons: Sequence[dict[str, object]], short: dict[str, str]) -> str:
    """The sentence under a table: which differences between training sets are significant."""
    if not comparisons:
        return ""
    significant = [c for c in comparisons if c["significant"]]
    shown = [f"{c['model']} {short.get(str(c['metric']), c['metric'])} on {c['test']}: {c['second']} "
             f"{'+' if float(c['difference']) > 0 else '−'}{abs(float(c['difference'])):.3f} against {c['first']} "
             f"[{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}]" for c in significant]  # type: ignore[index]
    twin = any(c["first"] == UNTRAINED for c in comparisons)
    head = (f"Differences between training sets{f', {UNTRAINED!r} being the untrained model' if twin else ''} "
            f"(paired bootstrap over the same test cases, 95%): {len(significant)} of {len(comparisons)} significant")
    return head + (": " + "; ".join(shown) + "." if shown else "; no training set beats another on these cases.")
