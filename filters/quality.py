"""Quality: the reply detectors of the turn loop (synth.analysis.defects) applied after the fact. A dialogue
is dropped at its first utterance with a defect: one speaker copying the other, repeating itself, speaking in
the third person, a seeker contradicting its own reviews or naming its hidden target, a recommender
describing an item with another's description, or a reply copying its prompt's example."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from synth.analysis.defects import DEFECTS, check_reply
from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue

DETECTORS = tuple(m.name for m in DEFECTS if m.name not in ("same_opening", "shared_rejection_start"))


class Quality(BaseModel):
    """Drops a dialogue with an utterance a reader would not believe (synth records: checked against the
    persona's reviews, the items shown and the prompts' examples; other formats: against the words alone)."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "quality"

    detectors: list[str] = Field(default_factory=lambda: list(DETECTORS), description="which defects drop a dialogue")

    @field_validator("detectors")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        unknown = [n for n in names if n not in DETECTORS]
        if unknown:
            raise ValueError(f"unknown detector {unknown[0]!r}; known: {', '.join(DETECTORS)}")
        return names

    def check(self, dialogue: FilterDialogue) -> Verdict:
        for spoken in dialogue.utterances:
            found = [d for d in check_reply(spoken.text, spoken.context, spoken.named, spoken.recommends) if d.name in self.detectors]
            if found:
                reasons = "; ".join(str(d) for d in found)
                return Verdict.drop(f"{spoken.role} turn {spoken.turn}: {reasons}", spoken.text, spoken.turn)
        return KEEP
