"""What a contradiction judge is asked and answers; the NLI and the LLM judge both implement it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from synth.filters.dialogue import Statement

Kind = Literal["persona", "guess"]


@dataclass(frozen=True)
class Claim:
    """An utterance (or a recommender's private note) to check, against what it must agree with."""

    turn: int
    text: str
    premises: tuple[Statement, ...]


@dataclass(frozen=True)
class Finding:
    """The claim that contradicts a premise, how sure the judge is (0-1; None from an LLM), and why."""

    claim: Claim
    premise: Statement
    score: float | None
    explanation: str = ""


class JudgeError(Exception):
    """The judge gave no usable answer (e.g. an LLM reply that broke the format on every retry)."""


class ContradictionJudge(Protocol):
    method: str  # "nli" or "llm"
    description: str  # the method and its model, for reports

    async def contradiction(self, kind: Kind, claims: list[Claim]) -> Finding | None:
        """The strongest contradiction among `claims`, or None when every claim agrees or is neutral."""
        ...

    async def check(self) -> None:
        """Fail fast with a SynthError when the judge cannot run (model missing, server down)."""
        ...

    async def aclose(self) -> None: ...
