"""The view of a dialogue that every filter reads, built from a synth record or a PEARL-format one.

Items are keyed by catalog id in synth records and by normalised title in PEARL files, which name
movies only in the text ("Title (Year)")."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from synth.analysis.defects import Spoken, dialogue_utterances, record_utterances
from synth.data.dialogues import Dialogue
from synth.domain import Domain, load_domain
from synth.filters.titles import TitleSpotter, mention_key, title_mentions
from synth.prompting import shipped_example_replies
from synth.records import DialogueRecord, Item, verdict
from synth.replies import END_MARKER

SourceFormat = Literal["synth", "pearl"]


@dataclass
class FilterTurn:
    role: str
    text: str
    think: str | None = None
    recommended: str | None = None  # the key of the item recommended on this turn
    recommended_name: str | None = None
    candidates: list[str] | None = None  # keys the recommender could choose from (synth records)
    accepted: bool | None = None  # the seeker's decision on the item recommended just before


@dataclass(frozen=True)
class Statement:
    """One thing the seeker's persona says about its taste, with a label for reports."""

    label: str
    text: str


@dataclass
class FilterDialogue:
    id: str
    format: SourceFormat
    turns: list[FilterTurn]
    raw: str  # the input record as one JSON text, written back unchanged when the dialogue is kept
    first_free_turn: int = 0  # turns before it were scripted by the game (synth records' seed exchange)
    target: str | None = None  # key of the target item
    target_title: str | None = None
    persona: list[Statement] = field(default_factory=list)
    outcome: str | None = None  # synth: how the game ended (accepted, wrong_acceptance, turn_cap, ...)
    errors: list[str] = field(default_factory=list)
    _spotter: TitleSpotter | None = field(default=None, repr=False)
    _spoken: Callable[[], list[Spoken]] | None = field(default=None, repr=False)

    @cached_property
    def utterances(self) -> list[Spoken]:
        """The unscripted utterances with what the reply detectors check them against (built once, on use)."""
        return self._spoken() if self._spoken is not None else []

    @property
    def target_spotter(self) -> TitleSpotter | None:
        """Finds the target's title in an utterance (built once per dialogue)."""
        if self._spotter is None and self.target_title:
            self._spotter = TitleSpotter(self.target_title)
        return self._spotter

    def first_recommendation_of(self, key: str | None) -> int | None:
        """The index of the first turn recommending `key`, or None."""
        return next(
            (i for i, t in enumerate(self.turns) if key is not None and t.recommended == key),
            None,
        )


def from_record(
    record: DialogueRecord, raw: str, catalog: Mapping[str, Item] | None = None, domain: Domain | None = None
) -> FilterDialogue:
    """The view of one synth record (pearl dialogue or GoRecDial game); `catalog` (the run's items) names the
    persona's reviewed items for the reply detectors; `domain` (movies by default) names the target's kind and
    how its title may be said short."""
    domain = domain or load_domain()
    game = record.gorecdial
    fallback = [c.id for c in game.candidates] if game is not None else None
    names = {c.id: c.display for c in game.candidates} if game is not None else {}
    names[record.target_item.id] = record.target_item.display
    turns = [
        FilterTurn(
            role=t.role,
            text=t.text,
            think=t.think,
            recommended=t.recommended_item,
            recommended_name=names.get(t.recommended_item or "", t.recommended_item),
            candidates=[c.item_id for c in t.candidates]
            if t.candidates is not None
            else (fallback if t.role == "recommender" else None),
            accepted=t.accepted,
        )
        for t in record.turns
    ]
    persona: list[Statement] = []
    if record.persona is not None:
        persona = [
            Statement(f"review {i}, {verdict(r)}", r.text) for i, r in enumerate(record.persona.general, start=1)
        ]
        persona.append(Statement(f"what draws them to the {domain.noun} they hope for", record.persona.target.text))
    return FilterDialogue(
        id=record.id,
        format="synth",
        turns=turns,
        raw=raw,
        first_free_turn=record.scripted_turns,
        target=record.target_item.id,
        target_title=record.target_item.display,
        persona=persona,
        outcome=record.outcome.ended_by,
        errors=record.errors,
        _spotter=TitleSpotter(record.target_item.display, short_titles=domain.short_titles),
        _spoken=lambda: record_utterances(record, catalog, examples=shipped_example_replies()),
    )


def from_pearl(dialogue: Dialogue, raw: dict[str, Any]) -> FilterDialogue:
    """The view of one PEARL dialogue: the recommended item of a recommender turn is the target when
    the turn names it, else its first "Title (Year)" mention; the last seeker turn after a
    recommendation is the acceptance (PEARL dialogues end when the seeker accepts)."""
    gt = dialogue.meta.get("gt_movie_title")
    target = mention_key(gt) if gt else None
    spotter = TitleSpotter(gt) if gt else None
    turns: list[FilterTurn] = []
    for turn in dialogue.turns:
        view = FilterTurn(role=turn.role, text=turn.text)
        if turn.role == "recommender":
            if spotter is not None and spotter.find(turn.text):
                view.recommended, view.recommended_name = target, gt
            else:
                mentions = title_mentions(turn.text)
                if mentions:
                    title, year = mentions[0]
                    view.recommended, view.recommended_name = (
                        mention_key(title),
                        f"{title} ({year})",
                    )
        turns.append(view)
    last_seeker = max((i for i, t in enumerate(turns) if t.role == "seeker"), default=None)
    if last_seeker is not None and any(t.recommended for t in turns[:last_seeker]):
        turns[last_seeker].accepted = True
    for turn in turns[:last_seeker] if last_seeker is not None else []:
        if turn.role == "seeker" and END_MARKER in turn.text:
            turn.accepted = True  # an end marker before the last turn: accepted early
    return FilterDialogue(
        id=dialogue.id,
        format="pearl",
        turns=turns,
        raw=json.dumps(raw, ensure_ascii=False),
        target=target,
        target_title=gt,
        persona=persona_statements(dialogue.meta.get("user_persona")),
        _spotter=spotter,
        _spoken=lambda: dialogue_utterances(dialogue),
    )


def persona_statements(persona: Any) -> list[Statement]:
    """PEARL's `user_persona` (free text, a mapping or a list) as labelled statements."""
    if isinstance(persona, str):
        return [Statement("persona", part.strip()) for part in persona.replace("\n", ". ").split(". ") if part.strip()]
    if isinstance(persona, dict):
        return [Statement(str(key), str(value)) for key, value in persona.items() if value]
    if isinstance(persona, list):
        return [Statement(f"persona {i}", str(value)) for i, value in enumerate(persona, start=1) if value]
    return []
