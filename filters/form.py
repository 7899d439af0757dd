"""Form: empty or cut-off utterances, role prefixes or format tags left in the text, garbage that is
not language, and dialogues with too few or too many turns."""

from __future__ import annotations

import re
import unicodedata
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue
from synth.replies import END_MARKER

_ROLE_PREFIX = re.compile(r"(?:^|[\s\"'(])(?:(?i:seeker|recommender)|User|Assistant|System|USER|ASSISTANT)\s*:")
_FORMAT_TAGS = re.compile(
    r"<\|[^|>]{0,40}\|>|</?s>|\[/?INST\]|</?think>|```|\{\{|\}\}|\"(?:utterance|think|item|accept)\"\s*:|^\s*[{\[]\s*\""
)
_TERMINAL = set(".!?…\"'”’)]*~") | {":)", ":D"}
_DANGLING = {
    "and",
    "the",
    "a",
    "an",
    "to",
    "of",
    "with",
    "but",
    "or",
    "that",
    "because",
    "is",
    "are",
    "for",
    "in",
    "my",
    "your",
}
_CHAR_RUN = re.compile(r"([^\s.])\1{5,}")
_WORD_LOOP = re.compile(r"\b(\w+)(?:\W+\1\b){3,}", re.IGNORECASE)
LONG_TOKEN_CHARS = 40
_SPACE = re.compile(r"\s+")
_NOT_LETTER = re.compile(r"[\W\d_]")
_YEAR = re.compile(r"\(\d{4}\)")  # "Heat (1995)" is a title, not noise


class Form(BaseModel):
    """Drops a dialogue with a malformed utterance or a turn count outside the limits."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "form"

    min_turns: int = Field(4, ge=1, description="fewest utterances, the seed exchange included")
    max_turns: int = Field(40, ge=1, description="most utterances")
    require_end_punctuation: bool = Field(
        True,
        description="an utterance not ending in . ! ? (or a quote, bracket, emoji) counts as cut off",
    )
    min_letter_share: float = Field(
        0.6,
        ge=0,
        le=1,
        description="below this share of letters, an utterance is garbage",
    )

    def check(self, dialogue: FilterDialogue) -> Verdict:
        count = len(dialogue.turns)
        if count < self.min_turns:
            return Verdict.drop(f"too few turns: {count} < {self.min_turns}")
        if count > self.max_turns:
            return Verdict.drop(f"too many turns: {count} > {self.max_turns}")
        last_seeker = max((i for i, t in enumerate(dialogue.turns) if t.role == "seeker"), default=-1)
        for index, turn in enumerate(dialogue.turns):
            problem = self.problem(
                turn.text,
                turn.role,
                may_end=index == last_seeker or bool(turn.accepted),
            )
            if problem:
                return Verdict.drop(f"{turn.role} turn {index}: {problem}", turn.text, index)
        return KEEP

    def problem(self, text: str, role: str, *, may_end: bool) -> str | None:
        """What is wrong with one utterance, or None."""
        if not text.strip():
            return "empty utterance"
        if END_MARKER in text and not (role == "seeker" and may_end and text.rstrip().endswith(END_MARKER)):
            return f"leftover end marker {END_MARKER}"
        body = text.replace(END_MARKER, "").strip()
        if not body:
            return "empty utterance"
        found = _ROLE_PREFIX.search(body)
        if found:
            return f"role prefix '{found.group(0).strip()}' inside the utterance"
        found = _FORMAT_TAGS.search(body)
        if found:
            return f"leftover format tag '{found.group(0).strip()}'"
        garbage = self._garbage(body)
        if garbage:
            return garbage
        return self._cut_off(body)

    def _garbage(self, text: str) -> str | None:
        visible = _SPACE.sub("", _YEAR.sub("", text))
        letters = len(visible) - len(_NOT_LETTER.findall(visible))
        if len(visible) >= 12 and letters / len(visible) < self.min_letter_share:
            return f"not language: {letters / len(visible):.0%} letters"
        for pattern, what in ((_CHAR_RUN, "a character repeated"), (_WORD_LOOP, "a word repeated")):
            found = pattern.search(text)
            if found:
                return f"not language: {what} ('{found.group(0)[:40]}')"
        longest = max(text.split(), key=len)
        if len(longest) >= LONG_TOKEN_CHARS:
            return f"not language: a {LONG_TOKEN_CHARS}+ character token ('{longest[:40]}')"
        return None

    def _cut_off(self, text: str) -> str | None:
        words = text.split()
        last_word = words[-1].lower() if words else ""
        if text[-1] in ",;:-–(" or last_word in _DANGLING:
            return f"cut off after '{words[-1]}'"
        if (
            self.require_end_punctuation
            and text[-1] not in _TERMINAL
            and not _is_symbol(text[-1])
            and text[-2:] not in _TERMINAL
        ):
            return f"cut off: ends without punctuation ('...{text[-30:]}')"
        return None


def _is_symbol(char: str) -> bool:
    """Emoji and other pictographs end a chat message as well as a full stop does."""
    return unicodedata.category(char) == "So"
