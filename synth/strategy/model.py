"""The strategy model: how likely each act set is for a dialogue turn, given who speaks and the context
(whether anything was recommended yet, the other side's last acts, the turn's position), interpolated from
the most specific context to the most general; and how many words people give such a turn.

The table is fitted from IARD by `python -m synth.strategy.fit` and ships with synth (`human.json`): counts
only, no dialogue text."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from synth.analysis.acts.taxonomy import TAXONOMY, Role, top_of
from synth.errors import SynthError

STRATEGY_FILE = "human.json"
FORMAT = 1
RECOMMEND = ("REC-S", "REC-E")
REQUEST = ("REQ", "CLQ")
FEEDBACK = ("SEE", "ACC", "REJ", "INQ", "CRI-F", "CRI-A", "CRI-C", "NRE")  # the seeker's answers to a suggestion
POSITIONS = ((0, "0"), (1, "1"), (2, "2"), (3, "3"), (4, "4-5"), (6, "6-8"), (9, "9+"))  # (from, bucket)


def act_set_label(role: Role, acts: Iterable[str]) -> str:
    """An act set as one label, its codes in the taxonomy's order: 'REC-S+EXP-P'."""
    wanted = set(acts)
    return "+".join(code for code in TAXONOMY[role] if code in wanted)


def acts_of(label: str) -> tuple[str, ...]:
    return tuple(label.split("+")) if label else ()


def recommends(acts: Iterable[str]) -> bool:
    return any(code in RECOMMEND for code in acts)


def requests(acts: Iterable[str]) -> bool:
    """A recommender turn that asks about the seeker's taste (IARD's Request: REQ, CLQ)."""
    return any(code in REQUEST for code in acts)


def position_bucket(position: int) -> str:
    """Turn positions grouped so that later turns, which are rarer, share their counts."""
    return next(bucket for start, bucket in reversed(POSITIONS) if position >= start)


@dataclass(frozen=True)
class Context:
    """What a turn's acts are conditioned on. `previous` is the other side's last turn's top-level acts
    ('Recommend+Explain'; '' at the start), `position` the turn's 0-based index in the dialogue."""

    role: Role
    recommended: bool
    previous: str
    position: int

    @classmethod
    def after(cls, role: Role, recommended: bool, previous: tuple[Role, tuple[str, ...]] | None, position: int) -> Context:
        """The context of a turn by `role` after the turn `previous` (its speaker and acts)."""
        top = "+".join(top_of(previous[0], list(previous[1]))) if previous else ""
        return cls(role, recommended, top, position)

    def value(self, feature: str) -> str:
        if feature == "phase":
            return "after" if self.recommended else "before"
        if feature == "previous":
            return self.previous or "-"
        if feature == "position":
            return position_bucket(self.position)
        raise SynthError(f"unknown strategy feature {feature!r}")

    def keys(self, features: tuple[str, ...]) -> list[str]:
        """Context keys from the most general (the role alone) to the most specific."""
        keys, key = [self.role], self.role
        for feature in features:
            key += f"|{feature}={self.value(feature)}"
            keys.append(key)
        return keys


@dataclass
class StrategyModel:
    """Interpolated act-set probabilities: P_k(l) = (c_k(l) + beta * P_{k-1}(l)) / (c_k + beta), where level 0
    is the role's counts with add-`alpha` smoothing and each level adds one context feature."""

    features: tuple[str, ...]
    beta: float
    alpha: float
    labels: dict[str, list[str]]  # role -> its act-set labels
    counts: dict[str, dict[str, int]]  # context key -> label -> turns
    words: dict[str, list[float]] = field(default_factory=dict)  # "role|label" (or role) -> quantiles of words per turn
    requests: list[int] = field(default_factory=list)  # dialogues by requests before the first recommendation: 0, 1, ...
    meta: dict = field(default_factory=dict)  # source, its sha256, the forms compared

    def distribution(self, context: Context) -> dict[str, float]:
        """P(label | context) over the role's labels."""
        labels = self.labels[context.role]
        probabilities: dict[str, float] = {}
        for depth, key in enumerate(context.keys(self.features)):
            seen = self.counts.get(key, {})
            total = sum(seen.values())
            if depth == 0:
                probabilities = {label: (seen.get(label, 0) + self.alpha) / (total + self.alpha * len(labels)) for label in labels}
            elif total:
                probabilities = {
                    label: (seen.get(label, 0) + self.beta * p) / (total + self.beta) for label, p in probabilities.items()
                }
        return probabilities

    def log_likelihood(self, context: Context, label: str) -> float:
        return math.log(self.distribution(context)[label])

    def sample(self, context: Context, rng: random.Random, allowed: Callable[[tuple[str, ...]], bool] | None = None) -> str:
        """One label drawn from P(label | context), limited to the labels `allowed` accepts."""
        weights = {
            label: p for label, p in self.distribution(context).items() if allowed is None or allowed(acts_of(label))
        }
        if not weights:
            raise SynthError(f"no {context.role} act set is allowed in this context")
        return rng.choices(list(weights), weights=list(weights.values()))[0]

    def words_for(self, role: Role, label: str, rng: random.Random) -> int:
        """A length in words drawn from what people write in such a turn (the role's, for rare labels)."""
        quantiles = self.words.get(f"{role}|{label}") or self.words[role]
        position = rng.random() * (len(quantiles) - 1)
        low = int(position)
        high = min(low + 1, len(quantiles) - 1)
        return max(1, round(quantiles[low] + (quantiles[high] - quantiles[low]) * (position - low)))

    def requests_for(self, rng: random.Random) -> int:
        """How many requests come before the first recommendation, drawn as people's dialogues have them."""
        return rng.choices(range(len(self.requests)), weights=self.requests)[0]

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "features": list(self.features), "beta": self.beta, "alpha": self.alpha,
            "labels": self.labels, "counts": self.counts, "words": self.words, "requests": self.requests,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict, source: str) -> StrategyModel:
        if data.get("format") != FORMAT:
            raise SynthError(f"{source}: strategy table format {data.get('format')!r}, this synth reads {FORMAT}")
        return cls(
            tuple(data["features"]), data["beta"], data["alpha"], data["labels"], data["counts"], data["words"],
            data["requests"], data.get("meta", {}),
        )


def shipped_strategy_path() -> Path:
    return Path(str(resources.files("synth.strategy"))) / STRATEGY_FILE


def load_strategy(path: Path | None = None) -> StrategyModel:
    """The strategy table at `path`, or the one shipped with synth (fitted on IARD)."""
    path = path or shipped_strategy_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SynthError(f"cannot read the strategy table {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise SynthError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from None
    return StrategyModel.from_json(data, str(path))
