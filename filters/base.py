"""The one filter interface: look at a dialogue, keep it or drop it with a reason and the evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from synth.filters.dialogue import FilterDialogue


@dataclass(frozen=True)
class Verdict:
    """A filter's answer. A drop names its reason and the offending utterance (`evidence`, at `turn`,
    0-based over the whole dialogue); `score` is the judge's confidence where there is one."""

    keep: bool
    reason: str | None = None
    evidence: str | None = None
    turn: int | None = None
    score: float | None = None

    @classmethod
    def drop(
        cls,
        reason: str,
        evidence: str | None = None,
        turn: int | None = None,
        score: float | None = None,
    ) -> Verdict:
        return cls(False, reason, evidence, turn, score)


KEEP = Verdict(True)


@runtime_checkable
class Filter(Protocol):
    """A basic filter: a pure function of the dialogue."""

    name: str

    def check(self, dialogue: FilterDialogue) -> Verdict: ...


@runtime_checkable
class AsyncFilter(Protocol):
    """A preference filter: asks a judge (an NLI model or an LLM), so it is awaited."""

    name: str

    def applies(self, dialogue: FilterDialogue) -> bool:
        """Whether the dialogue holds what the filter looks at (a persona, think texts)."""
        ...

    async def check(self, dialogue: FilterDialogue) -> Verdict: ...
