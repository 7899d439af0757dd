"""Fit the strategy table from IARD: consecutive messages of one speaker merged into a turn (its acts united),
rare act sets folded into their most common subset, the context's form chosen by dialogue-grouped
cross-validated log-likelihood, and people's words per turn kept as quantiles.

    python -m synth.strategy.fit [--iard PATH] [--out synth/strategy/human.json]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synth.analysis.acts.taxonomy import Role
from synth.data.dialogues import Dialogue, merge_turns
from synth.data.iard import load_iard
from synth.data.paths import shared_data_root
from synth.strategy.model import (
    Context,
    StrategyModel,
    act_set_label,
    acts_of,
    recommends,
    requests,
    shipped_strategy_path,
)
from synth.tokens import words

IARD_FILE = "iard/umap2020_IARD_Cai.json"
MIN_LABEL = 5  # act sets seen fewer times are folded into their most common subset
FORMS: dict[str, tuple[str, ...]] = {  # the context features compared, from general to specific
    "role": (),
    "role+phase": ("phase",),
    "role+phase+previous": ("phase", "previous"),
    "role+phase+previous+position": ("phase", "previous", "position"),
    "role+phase+position+previous": ("phase", "position", "previous"),
}
BETAS = (3.0, 10.0, 30.0, 100.0, 300.0)
ALPHA = 0.5
QUANTILES = 21  # words per turn kept at 0%, 5%, ..., 100%
FOLDS = 5


@dataclass(frozen=True)
class PlannedTurn:
    """One merged turn of a human dialogue: who spoke, its act set, how many words, and its context."""

    role: Role
    label: str
    words: int
    context: Context


def merged_turns(dialogue: Dialogue) -> list[tuple[Role, set[str], int]]:
    """(role, acts, words) per turn: consecutive messages of one speaker joined, acts united."""
    return [(t.role, set(t.meta.get("acts", ())), len(words(t.text))) for t in merge_turns(dialogue).turns]


def vocabulary(dialogues: Sequence[Dialogue]) -> dict[Role, Counter[str]]:
    """How often each act set labels a turn, per role."""
    found: dict[Role, Counter[str]] = {"seeker": Counter(), "recommender": Counter()}
    for dialogue in dialogues:
        for role, acts, _ in merged_turns(dialogue):
            found[role][act_set_label(role, acts)] += 1
    return found


def fold_label(role: Role, label: str, kept: Counter[str]) -> str:
    """`label` if it is kept, else its most common kept subset (the larger one on a tie)."""
    if label in kept:
        return label
    acts = set(acts_of(label))
    subsets = [(kept[k], len(acts_of(k)), k) for k in kept if set(acts_of(k)) <= acts]
    return max(subsets)[2] if subsets else kept.most_common(1)[0][0]


def planned_turns(dialogues: Sequence[Dialogue], kept: dict[Role, Counter[str]]) -> list[list[PlannedTurn]]:
    """Every dialogue's turns with their folded labels and contexts."""
    found = []
    for dialogue in dialogues:
        turns, recommended, previous = [], False, None
        for position, (role, acts, count) in enumerate(merged_turns(dialogue)):
            label = fold_label(role, act_set_label(role, acts), kept[role])
            turns.append(PlannedTurn(role, label, count, Context.after(role, recommended, previous, position)))
            recommended = recommended or (role == "recommender" and recommends(acts_of(label)))
            previous = (role, acts_of(label))
        found.append(turns)
    return found


def fit(turns: Sequence[Sequence[PlannedTurn]], features: tuple[str, ...], beta: float, labels: dict[str, list[str]]) -> StrategyModel:
    """The counts of every context level for `features`."""
    counts: dict[str, Counter[str]] = {}
    for dialogue in turns:
        for turn in dialogue:
            for key in turn.context.keys(features):
                counts.setdefault(key, Counter())[turn.label] += 1
    return StrategyModel(features, beta, ALPHA, labels, {k: dict(v) for k, v in counts.items()})


def cross_validated(turns: Sequence[Sequence[PlannedTurn]], labels: dict[str, list[str]], *, seed: int = 0) -> dict[str, float]:
    """Mean held-out log-likelihood per turn of every form and beta, dialogues grouped in `FOLDS` folds."""
    order = list(range(len(turns)))
    random.Random(seed).shuffle(order)
    fold_of = {index: rank % FOLDS for rank, index in enumerate(order)}
    scores: dict[str, float] = {}
    for name, features in FORMS.items():
        for beta in BETAS:
            total, count = 0.0, 0
            for fold in range(FOLDS):
                train = [d for i, d in enumerate(turns) if fold_of[i] != fold]
                model = fit(train, features, beta, labels)
                for i, dialogue in enumerate(turns):
                    if fold_of[i] == fold:
                        total += sum(model.log_likelihood(t.context, t.label) for t in dialogue)
                        count += len(dialogue)
            scores[f"{name}, beta {beta:g}"] = total / count
    return scores


def word_quantiles(turns: Sequence[Sequence[PlannedTurn]], *, min_turns: int = 10) -> dict[str, list[float]]:
    """Quantiles of words per turn for each role, and for each (role, label) with at least `min_turns`."""
    lengths: dict[str, list[int]] = {}
    for dialogue in turns:
        for turn in dialogue:
            lengths.setdefault(turn.role, []).append(turn.words)
            lengths.setdefault(f"{turn.role}|{turn.label}", []).append(turn.words)
    levels = np.linspace(0, 100, QUANTILES)
    return {
        key: [round(float(q), 2) for q in np.percentile(values, levels)]
        for key, values in sorted(lengths.items())
        if "|" not in key or len(values) >= min_turns
    }


def requests_before_recommendation(turns: Sequence[Sequence[PlannedTurn]]) -> list[int]:
    """Dialogues by how many recommender turns requested (REQ, CLQ) before the first recommendation; a turn
    that asks and recommends counts as recommending. Dialogues without a recommendation are left out."""
    found: Counter[int] = Counter()
    for dialogue in turns:
        asked = 0
        for turn in dialogue:
            acts = acts_of(turn.label)
            if turn.role != "recommender":
                continue
            if recommends(acts):
                found[asked] += 1
                break
            asked += requests(acts)
    return [found[n] for n in range(max(found) + 1)] if found else [1]


def fit_strategy(iard: Path) -> StrategyModel:
    """The strategy table fitted on all of IARD, with the form that scored best held out."""
    dialogues = load_iard(iard)
    seen = vocabulary(dialogues)
    kept = {role: Counter({k: n for k, n in found.items() if n >= MIN_LABEL}) for role, found in seen.items()}
    labels = {role: sorted(found) for role, found in kept.items()}
    turns = planned_turns(dialogues, kept)
    scores = cross_validated(turns, labels)
    best = max(scores, key=scores.__getitem__)
    name, beta = best.split(", beta ")
    model = fit(turns, FORMS[name], float(beta), labels)
    model.words = word_quantiles(turns)
    model.requests = requests_before_recommendation(turns)
    model.meta = {
        "source": f"IARD (Cai & Chen, UMAP 2020), {iard.name}",
        "sha256": hashlib.sha256(iard.read_bytes()).hexdigest(),
        "dialogues": len(dialogues),
        "turns": sum(len(d) for d in turns),
        "min_label_turns": MIN_LABEL,
        "cross_validated_log_likelihood_per_turn": {k: round(v, 4) for k, v in scores.items()},
        "chosen": best,
        "perplexity": round(math.exp(-scores[best]), 2),
    }
    return model


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit synth's strategy table from IARD.")
    parser.add_argument("--iard", type=Path, default=shared_data_root() / IARD_FILE)
    parser.add_argument("--out", type=Path, default=shipped_strategy_path())
    args = parser.parse_args(argv)
    import json

    model = fit_strategy(args.iard)
    args.out.write_text(json.dumps(model.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for form, score in model.meta["cross_validated_log_likelihood_per_turn"].items():
        print(f"{form:45s} {score:8.4f}  perplexity {math.exp(-score):6.2f}{'  <- chosen' if form == model.meta['chosen'] else ''}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
