"""The model's one job in decided wording: put one decided content in words. A short prompt (the speaker's role
and way of talking, the other side's last message, the content's template sentence to say in its own words, a
length) for a short JSON reply."""

from __future__ import annotations

from typing import Any

from synth.content.decide import Decided
from synth.prompting import PromptSet
from synth.records import TurnPlan
from synth.replies import ReplyFormatError, extract_json

DEFAULT_WORDS = {"seeker": 14, "recommender": 18, "expert": 18}  # a turn's length where no plan (--strategy human) gives one
CHARS_PER_WORD = 9  # the cap leaves room for half again the asked words, plus the facts and titles
MIN_CAP = 120
TEMPLATE_ROOM = 1.3  # the cap leaves room for the template sentence said again in a few more words
ANSWERS = ("reveal", "ask")  # moves worded with the other side's last message in view; the others need only
# their content, and a small model shown the last message copies its words into them ("Have you seen X? Who's in it?")


def wording_messages(
    prompts: PromptSet, role: str, decided: Decided, *, style: str, last: str, words: int
) -> list[dict[str, str]]:
    """The wording prompt of one turn: the role's standing lines (the same for every turn of a dialogue, so the
    KV cache serves them), the other side's `last` message where the move answers it (ANSWERS), and the turn's
    content as its template sentence, to be said again in the speaker's own words (a small model rewords a
    sentence far more faithfully than it writes one from a list of points)."""
    shown = last if decided.content.move in ANSWERS else ""
    return [
        {"role": "system", "content": prompts.render("word_system", role=role, style=style)},
        {"role": "user", "content": prompts.render("word_turn", last=shown, points=decided.content.points,
                                                   sentence=decided.template, words=words)},
    ]


def words_for(plan: TurnPlan | None, role: str) -> int:
    """How many words the turn should have: the plan's, else the role's default."""
    return plan.words if plan is not None else DEFAULT_WORDS[role]


def cap_for(words: int, decided: Decided) -> int:
    """The utterance's length cap in characters: room for the words asked, half the content's points (a model
    says its facts at some length) and the titles the content names, and at least for its template sentence."""
    titles = sum(len(title) for title in decided.content.titles)
    points = sum(len(point) for point in decided.content.points)
    return max(MIN_CAP, CHARS_PER_WORD * words + points // 2, round(TEMPLATE_ROOM * len(decided.template))) + titles


def wording_schema(cap: int) -> dict[str, Any]:
    """The reply's JSON schema: one utterance of at most `cap` characters."""
    return {
        "type": "object",
        "properties": {"utterance": {"type": "string", "minLength": 1, "maxLength": cap}},
        "required": ["utterance"],
        "additionalProperties": False,
    }


def parse_wording(text: str) -> str:
    """The utterance of a wording reply (whitespace joined); ReplyFormatError if there is none."""
    data = extract_json(text)
    utterance = data.get("utterance")
    if not isinstance(utterance, str) or not utterance.strip():
        raise ReplyFormatError('no "utterance" string in the reply')
    return " ".join(utterance.split())
