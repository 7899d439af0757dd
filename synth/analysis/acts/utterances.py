"""The utterances a tagger reads: readable text (ReDial/IARD movie mentions rendered as titles, synth's
end marker removed), the utterance before it as context, and the gold labels where IARD has them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from synth.analysis.acts.taxonomy import TAXONOMY, Role
from synth.analysis.stats.corpus import utterance_text
from synth.data.dialogues import Dialogue, DialogueTurn
from synth.replies import END_MARKER

_TITLED_MENTION = re.compile(r"@\d+\s*<([^<>]*)>")  # IARD: "@124485 <Spaceballs (1987)>"


@dataclass(frozen=True)
class Utterance:
    dialogue: str  # the dialogue's id: cross-validation keeps a dialogue's utterances together
    role: Role
    text: str
    previous: str  # the utterance before it (either speaker); "" at the start of the dialogue
    first_of_role: bool  # the speaker's first utterance (IARD: the seeker's Initial Query)
    same_speaker: bool  # the speaker also said the previous utterance (ReDial turns split in messages)
    labels: tuple[str, ...] = ()  # gold sub-level codes (IARD), empty elsewhere


def readable(dialogue: Dialogue, turn: DialogueTurn) -> str:
    """The utterance as a reader sees it, whatever the dataset."""
    text = _TITLED_MENTION.sub(lambda m: m.group(1), turn.text)
    text = utterance_text(dialogue, turn.model_copy(update={"text": text})) if "@" in text else text
    return " ".join(text.replace(END_MARKER, " ").split())


def dialogue_utterances(dialogue: Dialogue) -> list[Utterance]:
    """Every utterance of a dialogue with its context; labels from turn.meta['acts'] when present."""
    found: list[Utterance] = []
    seen: set[str] = set()
    previous, previous_role = "", None
    for turn in dialogue.turns:
        text = readable(dialogue, turn)
        known = TAXONOMY[turn.role]
        labels = tuple(code for code in turn.meta.get("acts", ()) if code in known)
        found.append(
            Utterance(dialogue.id, turn.role, text, previous, turn.role not in seen, turn.role == previous_role, labels)
        )
        seen.add(turn.role)
        previous, previous_role = text, turn.role
    return found


def all_utterances(dialogues: Iterable[Dialogue]) -> list[Utterance]:
    return [u for dialogue in dialogues for u in dialogue_utterances(dialogue)]
