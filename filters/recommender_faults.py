"""Recommender faults: a recommendation outside its candidates, one already made or mentioned, or no
recommendation at all."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue
from synth.filters.titles import mention_key, title_mentions


class RecommenderFaults(BaseModel):
    """Drops a dialogue whose recommender breaks the game: it recommends an item that was not among its
    candidates, recommends one already recommended (or, in PEARL files, already named earlier), or
    never recommends anything."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "recommender_faults"

    def check(self, dialogue: FilterDialogue) -> Verdict:
        mentioned: dict[str, int] = {}
        recommended_any = False
        for index, turn in enumerate(dialogue.turns):
            item = turn.recommended
            if turn.role == "recommender" and item:
                recommended_any = True
                name = turn.recommended_name or item
                if turn.candidates is not None and item not in turn.candidates:
                    return Verdict.drop(
                        f"recommends '{name}', which is not among its candidates",
                        turn.text,
                        index,
                    )
                if item in mentioned:
                    return Verdict.drop(
                        f"recommends '{name}', already mentioned at turn {mentioned[item]}",
                        turn.text,
                        index,
                    )
            if item:
                mentioned.setdefault(item, index)
            if dialogue.format == "pearl":
                for title, _ in title_mentions(turn.text):
                    mentioned.setdefault(mention_key(title), index)
        if not recommended_any:
            return Verdict.drop("the recommender never recommends an item")
        return KEEP
