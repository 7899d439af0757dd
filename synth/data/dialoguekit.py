"""DialogueKit's annotated dialogues: the JSON list `dialoguekit.utils.dialogue_reader.json_to_dialogues`
reads, as UserSimCRS trains on them and synth.export.dialoguekit writes them.

Each object has `conversation_id` (without one, the dialogue's 1-based index is its id), `agent` and `user`
({"id", ...}) and `conversation`, a list of utterances {"participant": "USER" | "AGENT", "utterance",
"dialogue_acts"?: [{"intent"?, "slot_values": [[slot, value, start, end]]}], "metadata"?}. USER is the seeker,
AGENT the recommender. A turn's `items` are the ids in its `metadata.item_ids` (synth's export: one per TITLE
slot), else the values of its TITLE slots; `Dialogue.items` maps each to its title (the TITLE slot value).
turn.meta["acts"] holds the dialogue acts' intents, Dialogue.meta the dialogue's `metadata`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn, Role
from synth.data.readers import collect, read_json_document, validate
from synth.errors import InputError

TITLE_SLOT = "TITLE"  # the slot of item titles in UserSimCRS's movie domains
_ROLES: dict[str, Role] = {"USER": "seeker", "AGENT": "recommender"}


class _Act(BaseModel):
    intent: str | None = None
    slot_values: list[tuple[str, Any, int | None, int | None]] = []


class _Utterance(BaseModel):
    participant: Literal["USER", "AGENT"]
    utterance: str
    dialogue_acts: list[_Act] = []
    metadata: dict[str, Any] = {}


class _Participant(BaseModel):
    id: str | int


class _Record(BaseModel):
    conversation_id: str | int | None = None
    agent: _Participant | None = None
    user: _Participant | None = None
    conversation: list[_Utterance]
    metadata: dict[str, Any] = {}


def load_dialoguekit(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """DialogueKit dialogues from one JSON list; `line` in errors is the 1-based dialogue index."""
    bad_lines = BadLines() if bad_lines is None else bad_lines
    document = read_json_document(path)
    if not isinstance(document, list):
        raise InputError(path, "expected a JSON list of dialogues")
    return collect(path, enumerate(document, start=1), lambda raw, line: _dialogue(raw, path, line), bad_lines)


def _dialogue(raw: Any, path: Path, line: int) -> Dialogue:
    record = validate(_Record, raw, path, line)
    items: dict[str, str] = {}
    turns = []
    for position, utterance in enumerate(record.conversation):
        slots = [slot for act in utterance.dialogue_acts for slot in act.slot_values]
        titles = [str(value) for name, value, _, _ in slots if name == TITLE_SLOT and value is not None]
        ids = utterance.metadata.get("item_ids")
        if ids is None:
            ids = titles
        elif not isinstance(ids, list) or len(ids) != len(titles):
            message = f"expected a list of one item id per {TITLE_SLOT} slot ({len(titles)})"
            raise InputError(path, message, line=line, field=f"conversation.{position}.metadata.item_ids")
        items.update((str(item), title) for item, title in zip(ids, titles))
        intents = [act.intent for act in utterance.dialogue_acts if act.intent]
        turns.append(
            DialogueTurn(
                role=_ROLES[utterance.participant],
                text=utterance.utterance,
                items=list(dict.fromkeys(str(item) for item in ids)),
                meta={"acts": intents} if intents else {},
            )
        )
    return Dialogue(
        id=str(line if record.conversation_id is None else record.conversation_id),
        source="dialoguekit",
        turns=turns,
        items=items,
        seeker_id=str(record.user.id) if record.user else None,
        recommender_id=str(record.agent.id) if record.agent else None,
        meta=record.metadata,
    )
