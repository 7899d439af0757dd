"""Reply formats of the two simulators: the JSON schemas sent to the backend, and tolerant parsing.

The schemas and the parsing are our own rather than pydantic models: each turn's schema is built for that turn
(the candidates' enum, an accept the rules fix as a const, a question field with its pattern, per-role length
caps), and parsing repairs what a model gets wrong instead of refusing it (a leaked role prefix, quotes, an
utterance the length cap cut, a reply without its question field). Models would need a class per variant and
a validator for each repair, and their generated schemas (titles, $defs) would change the grammars the
embedded model decodes under.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from synth.records import Item, ReplyChecks
from synth.short_titles import ShortTitleRule, short_title, spoken_titles
from synth.tokens import ascii_words

END_MARKER = "[EOD]"
NO_ITEM = "none"  # a recommender that may only speak this turn names no item
_ROLE_PREFIX = re.compile(r"^\s*(?:seeker|recommender|user|assistant|you)\s*:\s*", re.IGNORECASE)
_YEAR_SUFFIX = re.compile(r"\s*\(\d{4}\)\s*$")
# Length caps (characters) that keep a whole reply inside the default max_tokens of 160.
UTTERANCE_MAX_CHARS = 300
THINK_MAX_CHARS = 160
QUESTION_MAX_CHARS = 120  # the question of a question move, in its own field (about 20 words)
CAP_SLACK_CHARS = 5  # a text this close to the cap was most likely closed by it
_TERMINAL = set(".!?…\"'”’)")
_DANGLING = frozenset("a an the and or but of to for with in on at by from as that which who my your its their this".split())
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)]*(?=\s|$)")


class ReplyFormatError(ValueError):
    """The model's answer could not be read as the expected reply."""


@dataclass(frozen=True)
class SeekerReply:
    utterance: str
    accept: bool | None  # None on turns where nothing was recommended
    checks: ReplyChecks | None = None  # what the reply checks turned down before this reply


@dataclass(frozen=True)
class RecommenderReply:
    think: str
    utterance: str
    item_id: str | None
    checks: ReplyChecks | None = None  # what the reply checks turned down before this reply


def _string(max_length: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_length}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _with_question(properties: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """A question move's reply: whatever it says first (`utterance`, which may be empty), then the question it
    must ask in a field of its own (`question`, a schema pattern: a plain string ending in "?"). A question
    field ends where the model ends its question; a pattern on the whole utterance instead forced a "?" onto
    whatever the length cap cut ("What?", "also a?"; docs/measurements.md#dialogue-coherence)."""
    return {
        **properties,
        "utterance": {"type": "string", "maxLength": max_chars},
        "question": {"type": "string", "pattern": f'^[^"\\\\]{{2,{QUESTION_MAX_CHARS}}}\\?$'},
    }


def seeker_schema(
    decides: bool, *, accept: bool | None = None, max_chars: int = UTTERANCE_MAX_CHARS, question: bool = False
) -> dict[str, Any]:
    """The seeker answers with an utterance (and its `question`, on a question move), plus accept/reject when
    something was recommended: `accept` fixes the decision the rules allow (the target is accepted, nothing
    else), None leaves it to the model."""
    properties: dict[str, Any] = {"utterance": _string(max_chars)}
    if question:
        properties = _with_question(properties, max_chars)
    if decides:
        properties["accept"] = {"type": "boolean"} if accept is None else {"const": accept}
    return _object(properties)


def recommender_schema(
    candidates: list[Item] | None, *, may_pass: bool = False, max_chars: int = UTTERANCE_MAX_CHARS, question: bool = False,
    think: bool = True,
) -> dict[str, Any]:
    """Its `think` first (where asked for), then (on recommendation turns) exactly one candidate, or "none" where
    it `may_pass` (--strategy free), then the utterance (and its `question`, on a question move)."""
    properties: dict[str, Any] = {"think": _string(THINK_MAX_CHARS)} if think else {}
    if candidates:
        properties["item"] = {"type": "string", "enum": [c.display for c in candidates] + ([NO_ITEM] if may_pass else [])}
    properties["utterance"] = _string(max_chars)
    return _object(_with_question(properties, max_chars) if question else properties)


def names_no_item(name: Any) -> bool:
    """The reply's "item" says the recommender only speaks: "none", empty or left out."""
    return name is None or (isinstance(name, str) and name.strip().lower() in (NO_ITEM, ""))


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in `text` (a bare object, or one inside prose or a code fence)."""
    text = text.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0:
            raise ReplyFormatError(f"no JSON object in reply: {text[:120]!r}") from None
        if end <= start:
            raise ReplyFormatError(f"broken JSON in reply (never closed): {text[:120]!r}") from None
        try:
            value = json.loads(text[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ReplyFormatError(f"broken JSON in reply ({exc.msg}): {text[:120]!r}") from None
    if not isinstance(value, dict):
        raise ReplyFormatError(f"reply is JSON but not an object: {text[:120]!r}")
    return value


def clean_utterance(value: Any, max_chars: int = UTTERANCE_MAX_CHARS) -> str:
    """Strip a leaked role prefix and surrounding quotes; an empty result is a format error, and an
    utterance the length cap (`max_chars`) cut mid-sentence is cut back to its last whole sentence."""
    if not isinstance(value, str):
        raise ReplyFormatError("'utterance' is missing or not a string")
    text = _ROLE_PREFIX.sub("", value.strip()).strip().strip('"').strip()
    if not text:
        raise ReplyFormatError("'utterance' is empty")
    return trim_at_cap(text, max_chars)


def spoken_text(data: dict[str, Any], max_chars: int, question: bool = False) -> str:
    """The reply's words: its utterance, and on a question move its question after it. A reply without the
    question field (a backend that ignores the schema) is its utterance alone; the reply checks then look
    for the question."""
    asked = data.get("question") if question else None
    if not isinstance(asked, str) or not asked.strip():
        return clean_utterance(data.get("utterance"), max_chars)
    said = data.get("utterance")
    first = clean_utterance(said, max_chars) if isinstance(said, str) and said.strip(' "') else ""
    question = re.sub(r"\?{2,}", "?", clean_utterance(asked, QUESTION_MAX_CHARS))
    if normalise_title(question) in normalise_title(first):  # the utterance asked it already
        return first
    return f"{first} {question}".strip()


def trim_at_cap(text: str, limit: int = UTTERANCE_MAX_CHARS) -> str:
    """The schema's maxLength closes a long string wherever it reaches the cap, often mid-sentence
    (`synth filter` found most such utterances 'cut off'). Such a text ends at its last full sentence; one
    without any (a single long sentence) trails off at its last clause or word with "…": the cap is a target
    for the model's length, never a reason to lose the reply."""
    if len(text) < limit - CAP_SLACK_CHARS or text[-1] in _TERMINAL:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    if ends:
        return text[: ends[-1]].strip()
    clause = max(text.rfind(", "), text.rfind("; "), text.rfind(" - "))
    cut = text[:clause] if clause > limit // 2 else text[: text.rfind(" ")] if " " in text else text
    words = cut.split()
    while len(words) > 1 and words[-1].lower().strip(",;:-") in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(",;:- ") + "…"


def parse_seeker(text: str, *, decides: bool, max_chars: int = UTTERANCE_MAX_CHARS, question: bool = False) -> SeekerReply:
    """Read a seeker reply; the end marker is made to agree with the accept decision."""
    data = extract_json(text)
    utterance = spoken_text(data, max_chars, question).replace(END_MARKER, "").strip()
    if not utterance:
        raise ReplyFormatError("'utterance' holds only the end marker")
    if not decides:
        return SeekerReply(utterance, None)
    accept = data.get("accept")
    if not isinstance(accept, bool):
        raise ReplyFormatError("'accept' is missing or not true/false")
    return SeekerReply(f"{utterance} {END_MARKER}" if accept else utterance, accept)


def normalise_title(title: str) -> str:
    """Lower-case words only, year suffix dropped: 'The Matrix (1999)' -> 'the matrix'."""
    return " ".join(ascii_words(_YEAR_SUFFIX.sub("", title)))


def match_candidate(name: str, candidates: list[Item], short_titles: ShortTitleRule = "whole") -> Item | None:
    """The candidate `name` refers to: exact display string, else the same normalised title, else (under a
    domain's `short_titles` rule, synth.short_titles) the same normalised short title."""
    for item in candidates:
        if name == item.display:
            return item
    wanted = normalise_title(name)
    matches = [item for item in candidates if normalise_title(item.title) == wanted]
    if not matches:
        matches = [item for item in candidates if normalise_title(short_title(item.title, short_titles) or "") == wanted]
    return matches[0] if len(matches) == 1 else None


def parse_recommender(
    text: str, candidates: list[Item] | None, *, may_pass: bool = False, max_chars: int = UTTERANCE_MAX_CHARS,
    question: bool = False, short_titles: ShortTitleRule = "whole",
) -> RecommenderReply:
    """Read a recommender reply; on recommendation turns the item must be one of `candidates` (or "none",
    where it `may_pass`), named whole or, under the domain's `short_titles` rule, by its short title."""
    data = extract_json(text)
    utterance = spoken_text(data, max_chars, question)
    think = data.get("think")
    think = think.strip() if isinstance(think, str) else ""
    name = data.get("item")
    if not candidates or (may_pass and names_no_item(name)):
        return RecommenderReply(think, utterance, None)
    item = match_candidate(name, candidates, short_titles) if isinstance(name, str) else None
    if item is None:
        spoken = f" {normalise_title(utterance)} "
        named = [
            c for c in candidates
            if any(f" {normalise_title(title)} " in spoken for title in spoken_titles(c.title, short_titles))
        ]
        if len(named) != 1:
            raise ReplyFormatError(f"'item' {name!r} is not one of the candidates")
        item = named[0]
    return RecommenderReply(think, utterance, item.id)
