"""Satisfaction: the IARD-trained predictor (`synth acts train`) scores how likely the seeker ends the
dialogue satisfied, from the acts of every utterance; a dialogue scored below the threshold is dropped,
with the seeker utterance that sounds least satisfied as the evidence. Needs the 'bench' and 'dense' extras."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from synth.data.dialogues import Dialogue, DialogueTurn
from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue

# seeker intents that say a recommendation did not satisfy (IARD codes)
UNSATISFIED_INTENTS = ("REJ", "CRI-F", "CRI-A", "REF", "STO")


class Satisfaction(BaseModel):
    """Drops a dialogue whose predicted satisfaction is below `min_score`."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "satisfaction"

    min_score: float = Field(0.5, ge=0, le=1, description="predicted P(satisfied) below which a dialogue is dropped")
    model: Path | None = Field(None, description="act model folder [default: ~/.cache/synth/acts, trained on first use]")
    _loaded: Any = PrivateAttr(None)

    def check_many(self, dialogues: list[FilterDialogue]) -> list[Verdict]:
        """The verdicts on a chunk of dialogues, tagged together."""
        from synth.analysis.acts.model import act_model

        if self._loaded is None:
            self._loaded = act_model(self.model)
        model, encoder = self._loaded
        tagged = model.tag([_as_dialogue(d) for d in dialogues], encoder)
        return [self._verdict(d, t) for d, t in zip(dialogues, tagged)]

    def _verdict(self, dialogue: FilterDialogue, tagged: Any) -> Verdict:
        if tagged.satisfaction >= self.min_score:
            return KEEP
        from synth.analysis.acts.taxonomy import sub_labels

        codes = sub_labels("seeker")
        columns = [codes.index(code) for code in UNSATISFIED_INTENTS]
        seeker = [(i, u) for i, u in enumerate(tagged.utterances) if u.role == "seeker"]
        if not seeker:
            return Verdict.drop(f"predicted satisfaction {tagged.satisfaction:.2f} < {self.min_score}: the seeker never speaks",
                                score=round(tagged.satisfaction, 3))
        turn, worst = max(seeker, key=lambda pair: (pair[1].probabilities[columns].max(), pair[0]))
        return Verdict.drop(
            f"predicted satisfaction {tagged.satisfaction:.2f} < {self.min_score}; "
            f"least satisfied seeker turn {turn}: {', '.join(worst.acts)}",
            dialogue.turns[turn].text,
            turn,
            round(tagged.satisfaction, 3),
        )


def _as_dialogue(dialogue: FilterDialogue) -> Dialogue:
    return Dialogue(
        id=dialogue.id,
        source="synth" if dialogue.format == "synth" else "pearl",
        turns=[DialogueTurn(role=t.role, text=t.text) for t in dialogue.turns],
    )
