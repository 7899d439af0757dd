"""One typed dialogue model that every dataset loader fills, so later stages take any of them."""

from __future__ import annotations

from itertools import groupby
from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["seeker", "recommender"]
Source = Literal["redial", "inspired", "iard", "pearl", "gorecdial", "crslab", "dialoguekit", "synth"]
Unit = Literal["turn", "message"]  # what an utterance is when counting: a speaker's turn, or each chat message


class DialogueTurn(BaseModel):
    """One utterance. `items` are the dataset's own ids of the items it mentions, in order."""

    role: Role
    text: str
    items: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)  # e.g. IARD intents, INSPIRED strategies


class Dialogue(BaseModel):
    """A whole conversation from any source; `items` maps the ids it mentions to titles."""

    id: str
    source: Source
    turns: list[DialogueTurn]
    items: dict[str, str] = Field(default_factory=dict)
    seeker_id: str | None = None
    recommender_id: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)  # questionnaires, persona, target, split, ...


def merge_turns(dialogue: Dialogue) -> Dialogue:
    """The dialogue with each run of consecutive messages by one speaker as one turn (ReDial and INSPIRED
    split a turn over several chat messages): texts joined with a space, items and list-valued meta (act
    labels, strategies) united in order, other meta from the run's first message. A dialogue whose speakers
    alternate comes back as it is."""
    runs = [list(run) for _, run in groupby(dialogue.turns, key=lambda turn: turn.role)]
    if len(runs) == len(dialogue.turns):
        return dialogue
    return dialogue.model_copy(update={"turns": [_joined(run) for run in runs]})


def in_unit(dialogue: Dialogue, unit: Unit) -> Dialogue:
    """The dialogue as counted in `unit`: its turns merged ('turn'), or its messages as they are ('message')."""
    return merge_turns(dialogue) if unit == "turn" else dialogue


def _joined(run: list[DialogueTurn]) -> DialogueTurn:
    if len(run) == 1:
        return run[0]
    meta: dict[str, Any] = {}
    for turn in run:
        for key, value in turn.meta.items():
            if isinstance(value, list) and isinstance(meta.get(key, []), list):
                meta[key] = list(dict.fromkeys([*meta.get(key, []), *value]))
            else:
                meta.setdefault(key, value)
    items = list(dict.fromkeys(item for turn in run for item in turn.items))
    return DialogueTurn(role=run[0].role, text=" ".join(turn.text for turn in run), items=items, meta=meta)
