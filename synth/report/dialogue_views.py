"""Dialogue records as the report's browser shows them: chat turns with candidates and think text, the
persona or GoRecDial game, the outcome, and each filter drop pinned to its offending utterance."""

from __future__ import annotations

from pydantic import BaseModel

from synth.records import DialogueRecord, Item
from synth.report.run_files import ReportedDialogue
from synth.runs.filtering import Drop


class CandidateView(BaseModel):
    title: str
    score: float
    recommended: bool


class TurnView(BaseModel):
    role: str
    text: str
    think: str | None = None
    recommended: str | None = None
    candidates: list[CandidateView] = []
    accepted: bool | None = None
    correct: bool | None = None
    drops: list[Drop] = []  # the drops that name this utterance


class ReviewView(BaseModel):
    title: str
    score: float | None
    text: str


class DialogueView(BaseModel):
    id: str
    mode: str
    user: str
    status: str  # kept, dropped, or unfiltered (the run was never filtered)
    outcome: str  # accepted or failed
    ended_by: str
    turns_to_goal: int | None
    recommendations: int
    score: float | None
    target: str
    taste: list[ReviewView] = []  # pearl persona: the general reviews
    target_review: ReviewView | None = None
    liked: list[str] = []  # gorecdial: the seeker's movies
    game_candidates: list[tuple[str, bool]] = []  # gorecdial: the expert's (title, is the correct one)
    turns: list[TurnView]
    drops: list[Drop] = []
    errors: list[str] = []


def dialogue_view(found: ReportedDialogue, items: dict[str, Item], filtered: bool) -> DialogueView:
    """The browser's view of one dialogue; `filtered` says whether the run went through `synth filter`."""
    record = found.record
    drops = found.drops
    turns = [_turn(record, index, items, drops) for index in range(len(record.turns))]
    view = DialogueView(
        id=record.id,
        mode=record.mode,
        user=record.user_id,
        status=("dropped" if drops else "kept") if filtered else "unfiltered",
        outcome="accepted" if record.outcome.accepted_target else "failed",
        ended_by=record.outcome.ended_by,
        turns_to_goal=record.outcome.turns_to_goal,
        recommendations=record.outcome.recommendations,
        score=record.outcome.score,
        target=record.target_item.display,
        turns=turns,
        drops=drops,
        errors=record.errors,
    )
    if record.persona is not None:
        view.taste = [_review(review.item, review.score, review.text, items) for review in record.persona.general]
        target = record.persona.target
        view.target_review = _review(target.item, target.score, target.text, items)
    if record.gorecdial is not None:
        game = record.gorecdial
        view.liked = [item.display for item in game.seeker_items]
        view.game_candidates = [(item.display, i == game.correct_index) for i, item in enumerate(game.candidates)]
    return view


def _title(item_id: str, items: dict[str, Item]) -> str:
    item = items.get(item_id)
    return item.display if item is not None else f"item {item_id}"


def _review(item_id: str, score: float | None, text: str, items: dict[str, Item]) -> ReviewView:
    return ReviewView(title=_title(item_id, items), score=score, text=text)


def _turn(record: DialogueRecord, index: int, items: dict[str, Item], drops: list[Drop]) -> TurnView:
    turn = record.turns[index]
    candidates = [
        CandidateView(title=_title(c.item_id, items), score=c.score, recommended=c.item_id == turn.recommended_item)
        for c in turn.candidates or []
    ]
    return TurnView(
        role=turn.role,
        text=turn.text,
        think=turn.think,
        recommended=_title(turn.recommended_item, items) if turn.recommended_item else None,
        candidates=candidates,
        accepted=turn.accepted,
        correct=turn.correct,
        drops=[drop for drop in drops if drop.turn == index],
    )
