"""Finding item titles in utterances: a fuzzy spotter for one known title (year optional; a long title also by
its short form where the domain's rule gives one), and the "Title (Year)" mentions of PEARL-style text where no
item ids exist."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from synth.data.movielens import split_title
from synth.data.title_match import normalise, title_key
from synth.short_titles import ShortTitleRule, short_title

_YEAR_MENTION = re.compile(r"\(\s*((?:18|19|20)\d{2})\s*\)")
_QUOTED_TAIL = re.compile(r"[\"“']([^\"“”']{1,80})[\"”']\s*$")
_CONNECTIVES = {
    "of",
    "the",
    "a",
    "an",
    "and",
    "in",
    "on",
    "to",
    "for",
    "with",
    "at",
    "from",
    "vs",
    "vs.",
    "&",
    "de",
    "la",
    "le",
    "or",
    "is",
}
_SENTENCE_END = (".", "!", "?", ";", ",")
FUZZY_MIN_CHARS = 10  # shorter titles must match word for word


def title_variants(title: str) -> list[str]:
    """The normalised ways a title may be written: whole, without a leading article, and the main title
    before a colon when that part alone is distinctive (two words or more)."""
    name = split_title(title)[0]
    variants = {normalise(name), title_key(name)}
    main = name.split(":")[0]
    if main != name and len(normalise(main).split()) >= 2:
        variants |= {normalise(main), title_key(main)}
    return sorted((v for v in variants if v), key=len, reverse=True)


class TitleSpotter:
    """Finds one title in free text: word for word after normalising (case, accents, punctuation, a
    leading article, the year left out or given), or, for titles of ten characters or more, with small
    misspellings (rapidfuzz ratio >= `threshold` over whole words). A one-word title must appear with
    its own capitalisation, so 'Heat' is found in 'I loved Heat' but not in 'the heat of summer'. Under a
    domain's `short_titles` rule a long title is also found by its short form (synth.short_titles)."""

    def __init__(self, title: str, threshold: float = 90.0, short_titles: ShortTitleRule = "whole"):
        self.title = split_title(title)[0]
        short = short_title(self.title, short_titles)
        variants = title_variants(title) + (title_variants(short) if short else [])
        self.variants = sorted(dict.fromkeys(variants), key=len, reverse=True)
        self.threshold = threshold
        self._one_word = len(normalise(self.title).split()) == 1
        self._exact = [re.compile(rf"(?:^| ){re.escape(v)}(?: |$)") for v in self.variants]
        self._cased = re.compile(rf"(?<![\w-]){re.escape(self.title)}(?![\w-])") if self._one_word else None

    def find(self, text: str) -> str | None:
        """The words of `text` that name the title (for evidence), or None."""
        if self._cased is not None:
            found = self._cased.search(text)
            return found.group(0) if found else None
        words = normalise(text)
        for pattern in self._exact:
            found = pattern.search(words)
            if found:
                return found.group(0).strip()
        return self._fuzzy(words)

    def _fuzzy(self, words: str) -> str | None:
        tokens = words.split()
        for variant in self.variants:
            if len(variant) < FUZZY_MIN_CHARS or fuzz.partial_ratio(variant, words) < self.threshold:
                continue  # partial_ratio (C++) rules most texts out before the word windows are tried
            size = len(variant.split())
            for width in (size, size - 1, size + 1):
                for start in range(max(0, len(tokens) - width) + 1):
                    window = " ".join(tokens[start : start + width])
                    if window and fuzz.ratio(variant, window) >= self.threshold:
                        return window
        return None


def title_mentions(text: str) -> list[tuple[str, int]]:
    """The "Title (Year)" mentions in `text`, in order, e.g. 'Then try Knives Out (2019)!' ->
    [('Knives Out', 2019)]. The title is the run of capitalised words (with short joining words such as
    'of' or 'the' inside it) right before the year, or the quoted words there."""
    mentions = []
    for match in _YEAR_MENTION.finditer(text):
        title = _title_before(text[: match.start()].rstrip())
        if title:
            mentions.append((title, int(match.group(1))))
    return mentions


def _title_before(text: str) -> str | None:
    quoted = _QUOTED_TAIL.search(text)
    if quoted:
        return quoted.group(1).strip() or None
    taken: list[str] = []
    for token in reversed(text.split()):
        bare = token.strip("\"“”'*()[]")
        if not bare:
            break
        if taken and bare.endswith(_SENTENCE_END):
            break
        titled = bare[0].isupper() or bare[0].isdigit()
        if not titled and not (taken and bare.lower() in _CONNECTIVES):
            break
        taken.append(bare.rstrip(",;"))
        if token[0] in "\"“'*(":  # an opening quote or bracket starts the title
            break
    while taken and taken[-1].lower() in _CONNECTIVES and not taken[-1][0].isupper():
        taken.pop()
    return " ".join(reversed(taken)) or None


def mention_key(title: str) -> str:
    """The key two mentions of one movie share: its normalised title without a leading article."""
    return title_key(split_title(title)[0])
