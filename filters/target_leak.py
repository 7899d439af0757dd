"""Target leak: the seeker names the movie it hopes for before anyone has recommended it."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue


class TargetLeak(BaseModel):
    """Drops a dialogue whose seeker names the target (fuzzy title match, year optional) before the
    turn that recommends it."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "target_leak"

    def check(self, dialogue: FilterDialogue) -> Verdict:
        spotter = dialogue.target_spotter
        if spotter is None:
            return KEEP
        until = dialogue.first_recommendation_of(dialogue.target)
        for index in range(dialogue.first_free_turn, len(dialogue.turns) if until is None else until):
            turn = dialogue.turns[index]
            if turn.role != "seeker":
                continue
            named = spotter.find(turn.text)
            if named:
                when = "before it is recommended" if until is not None else "and it is never recommended"
                return Verdict.drop(
                    f"the seeker names the target '{spotter.title}' ('{named}') {when}",
                    turn.text,
                    index,
                )
        return KEEP
