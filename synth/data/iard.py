"""IARD (Cai & Chen, UMAP 2020): ReDial dialogues with intent / action labels on every utterance."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from synth.data.bad_lines import BadLines
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.data.readers import collect, normalise_space, read_json_document, validate
from synth.data.redial import MENTION
from synth.errors import InputError

_TITLED_MENTION = re.compile(r"@(\d+)\s*<([^<>]*)>")  # "@124485 <Spaceballs (1987)>"


class _Utterance(BaseModel):
    utterance_pos: int
    worker_id: int
    role: Literal["seeker", "recommender"]
    utterance_text: str
    top_level: list[str] = Field(alias="top-level intent/action")
    sub: list[str] = Field(alias="sub-intent/action")


class _Conversation(BaseModel):
    accepted_recommendation: list[int]
    dialogue_info: dict[str, _Utterance]


def load_iard(path: Path, *, bad_lines: BadLines | None = None) -> list[Dialogue]:
    """IARD dialogues; `line` in errors is the 1-based position of the conversation in the file.

    turn.meta["acts"] holds the sub-intent/action codes (e.g. REC-S, ACC), turn.meta["top_acts"] the
    top-level ones; Dialogue.meta["satisfied"] is the README's SAT / unSAT split (an accepted
    recommendation or not).
    """
    bad_lines = BadLines() if bad_lines is None else bad_lines
    document = read_json_document(path)
    if not isinstance(document, dict):
        raise InputError(path, "expected a JSON object keyed by conversation id")
    records = enumerate(document.items(), start=1)
    return collect(path, records, lambda entry, index: _dialogue(entry, path, index), bad_lines)


def _dialogue(entry: tuple[str, Any], path: Path, index: int) -> Dialogue:
    conversation_id, raw = entry
    record = validate(_Conversation, raw, path, index, prefix=conversation_id)
    utterances = sorted(record.dialogue_info.items(), key=lambda item: item[1].utterance_pos)
    workers = {u.role: str(u.worker_id) for _, u in reversed(utterances)}  # first worker of each role
    return Dialogue(
        id=conversation_id,
        source="iard",
        turns=[_turn(key, utterance) for key, utterance in utterances],
        items={
            movie_id: normalise_space(title)
            for _, utterance in utterances
            for movie_id, title in _TITLED_MENTION.findall(utterance.utterance_text)
        },
        seeker_id=workers.get("seeker"),
        recommender_id=workers.get("recommender"),
        meta={
            "conversationId": conversation_id,
            "accepted_recommendation": record.accepted_recommendation,
            "satisfied": bool(record.accepted_recommendation),
        },
    )


def _turn(key: str, utterance: _Utterance) -> DialogueTurn:
    return DialogueTurn(
        role=utterance.role,
        text=utterance.utterance_text,
        items=MENTION.findall(utterance.utterance_text),
        meta={
            "acts": utterance.sub,
            "top_acts": utterance.top_level,
            "utterance_id": key,
            "utterance_pos": utterance.utterance_pos,
        },
    )
