"""The short form of a long item title, which speakers say instead of the whole ("Meadowbrook Gentle Daily
Shampoo" for "Meadowbrook Gentle Daily Shampoo, Sulfate Free, 12 fl oz"). Each domain profile names its rule
(`Domain.short_titles`); the title matchers (exports' mention tagging, the filters' title spotter, the reply
checks, the recommender's item) find a title by its whole words or by this short form. Movies match whole."""

from __future__ import annotations

import re
from typing import Literal

from synth.tokens import words

ShortTitleRule = Literal["whole", "before_punctuation", "first_words"]
LONG_TITLE_WORDS = 4  # a title of more words than this is long and gets a short form
FIRST_WORDS = 4  # "first_words": at most this many words (a brand and the name's first words)
MIN_SHORT_WORDS = 2  # a short form of fewer words names nothing ("Meadowbrook")
_CUT = re.compile(r"\s*(?:[,;:(\[]|\s[-–—|/]\s)")  # the first comma, semicolon, colon, bracket, or spaced dash/slash/bar
_JOINING = {"a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "&"}


def short_title(title: str, rule: ShortTitleRule) -> str | None:
    """The short form of `title` under `rule`, or None (the rule is "whole", the title has at most
    LONG_TITLE_WORDS words, or no short form of two words or more is left).

    - "before_punctuation": the words before the title's first comma, semicolon, colon, bracket or spaced
      dash, slash or bar ("Harry Potter and the Sorcerer's Stone (Harry Potter, #1)" -> "Harry Potter and the
      Sorcerer's Stone");
    - "first_words": that, cut to its first FIRST_WORDS words, joining words at its end dropped ("AirLite Ionic
      Hair Dryer 1875W" -> "AirLite Ionic Hair Dryer")."""
    if rule == "whole" or _word_count(title) <= LONG_TITLE_WORDS:
        return None
    cut = _CUT.search(title)
    head = title[: cut.start()].strip() if cut and _word_count(title[: cut.start()]) >= MIN_SHORT_WORDS else title
    if rule == "first_words":
        first = head.split()[:FIRST_WORDS]
        while first and first[-1].lower() in _JOINING:
            first.pop()
        head = " ".join(first).rstrip(",;:-–—")
    return head if _word_count(head) >= MIN_SHORT_WORDS and head != title.strip() else None


def spoken_titles(title: str, rule: ShortTitleRule) -> list[str]:
    """The ways `title` may be said: whole, then its short form where `rule` gives one."""
    short = short_title(title, rule)
    return [title] if short is None else [title, short]


def _word_count(text: str) -> int:
    """How many words `text` has (a curly apostrophe joins words as a straight one does)."""
    return len(words(text.replace("’", "'")))
