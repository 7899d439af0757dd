"""Repetition: an utterance that repeats an earlier one of the same dialogue, word for word once
normalised, or nearly (rapidfuzz ratio at or above the threshold)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue
from synth.filters.titles import normalise
from synth.replies import END_MARKER


class Repetition(BaseModel):
    """Drops a dialogue in which an utterance repeats or nearly repeats an earlier one (either speaker)."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "repetition"

    similarity: float = Field(
        90.0,
        ge=0,
        le=100,
        description="rapidfuzz ratio (0-100) from which two utterances are near-repeats",
    )
    min_words: int = Field(4, ge=1, description="shorter utterances ('Thanks!') may repeat")

    def check(self, dialogue: FilterDialogue) -> Verdict:
        earlier: list[str] = []
        positions: list[int] = []
        for index, turn in enumerate(dialogue.turns):
            text = normalise(turn.text.replace(END_MARKER, ""))
            if len(text.split()) < self.min_words:
                continue
            if index >= dialogue.first_free_turn and earlier:
                best = process.extractOne(text, earlier, scorer=fuzz.ratio, score_cutoff=self.similarity)
                if best is not None:
                    _, score, at = best
                    kind = "repeats" if score == 100 else f"nearly repeats ({score:.0f}% similar)"
                    return Verdict.drop(
                        f"{turn.role} turn {index} {kind} turn {positions[at]}",
                        turn.text,
                        index,
                        round(score / 100, 3),
                    )
            earlier.append(text)
            positions.append(index)
        return KEEP
