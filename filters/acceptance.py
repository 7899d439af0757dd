"""Wrong acceptance: the seeker accepts an item that is not the target, or the dialogue ends without
the target accepted."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue, FilterTurn


def recommended_before(turns: list[FilterTurn], index: int) -> FilterTurn | None:
    """The last recommender turn before `index` that recommended something."""
    return next(
        (t for t in reversed(turns[:index]) if t.role == "recommender" and t.recommended),
        None,
    )


class WrongAcceptance(BaseModel):
    """Drops a dialogue whose seeker accepts a non-target, or that never gets the target accepted."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "wrong_acceptance"

    require_target_accepted: bool = Field(True, description="also drop dialogues that end without the target accepted")

    def check(self, dialogue: FilterDialogue) -> Verdict:
        target_accepted = False
        for index, turn in enumerate(dialogue.turns):
            if turn.role != "seeker" or not turn.accepted:
                continue
            offer = recommended_before(dialogue.turns, index)
            if offer is None:
                return Verdict.drop("the seeker accepts, but nothing was recommended", turn.text, index)
            if offer.recommended != dialogue.target:
                return Verdict.drop(
                    f"the seeker accepts '{offer.recommended_name or offer.recommended}', not the target '{dialogue.target_title}'",
                    turn.text,
                    index,
                )
            target_accepted = True
        if self.require_target_accepted and not target_accepted:
            how = f" (ended by {dialogue.outcome})" if dialogue.outcome else ""
            last = len(dialogue.turns) - 1
            evidence = "; ".join(dialogue.errors) or (dialogue.turns[last].text if dialogue.turns else None)
            return Verdict.drop(
                f"the dialogue ends without the target accepted{how}",
                evidence,
                last if dialogue.turns else None,
            )
        return KEEP
