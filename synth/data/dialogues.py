"""One typed dialogue model that every dataset loader fills, so later stages take any of them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["seeker", "recommender"]
Source = Literal["redial", "inspired", "iard", "pearl", "gorecdial", "synth"]


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
