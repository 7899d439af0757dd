"""Item mentions in dialogue text: the items a dialogue can name, and where its text names them ("The Matrix",
"the matrix (1999)", "“Matrix”"), so that exports tag them the way the field's readers expect and statistics
count them the same way."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from synth.records import DialogueRecord, Item
from synth.replies import END_MARKER
from synth.short_titles import ShortTitleRule, short_title
from synth.tokens import word_runs

_END_MARKER = re.compile(rf"\s*\[?\b{re.escape(END_MARKER.strip('[]'))}\b\]?")  # "[EOD]", and "EOD" as models write it
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")  # markdown bold / italics around words
_SPACE = re.compile(r"[ \t]+")
_ARTICLES = {"the", "a", "an"}
_ALIAS = re.compile(r"\s+\((?:a\.k\.a\. )?[^()]*\)$")  # MovieLens: "Amelie (Fabuleux destin d'Amélie Poulain, Le)"
_EDGES = re.compile(r"^(\W*).*?(\W*)$", re.DOTALL)
_YEAR = r"(?:\s*[(\[]\s*\d{4}\s*[)\]])"
_OPEN_QUOTE, _CLOSE_QUOTE = "[\"“'‘]", "[\"”'’]"
MIN_BARE_CHARS = 3  # a title shorter than this ("Up" is 2) is tagged only with its year
CASELESS_CHARS = 6  # a one-word title shorter than this is tagged only as written ("Heat", not "heat")


def clean_text(text: str) -> str:
    """An utterance without synth's markup: the end marker (with or without its brackets) and markdown emphasis
    go, spaces are tidied."""
    text = _EMPHASIS.sub("", _END_MARKER.sub("", text))
    return _SPACE.sub(" ", text).strip()


def known_items(record: DialogueRecord) -> list[str]:
    """Items a dialogue can name: the target, the persona's, every candidate and recommendation (repeats kept)."""
    items = [record.target_item.id]
    if record.persona:
        items += [review.item for review in record.persona.general]
    for turn in record.turns:
        items += [c.item_id for c in turn.candidates or []] + ([turn.recommended_item] if turn.recommended_item else [])
    if record.gorecdial:
        items += [i.id for i in record.gorecdial.seeker_items + record.gorecdial.candidates]
    return items


def dialogue_items(record: DialogueRecord, catalog: dict[str, Item]) -> list[Item]:
    """The catalog items a dialogue can name, each once, in `known_items` order (ids the catalog lacks left out)."""
    return [catalog[item] for item in dict.fromkeys(known_items(record)) if item in catalog]


@dataclass(frozen=True)
class Mention:
    """`text[start:end]` names `item` (with its year and quotes when the text gives them)."""

    start: int
    end: int
    item: str


class TitleTagger:
    """Finds the titles of a dialogue's items in its text with one regular expression, longest title first.

    A title matches in any case with words separated by any punctuation ("Spider Man" for "Spider-Man"), its
    leading article optional, a following "(1999)" and surrounding quotes taken into the mention; a one-word
    title shorter than CASELESS_CHARS only as written, and one shorter than MIN_BARE_CHARS only with its year.
    Under a domain's `short_titles` rule a long title is also found by its short form (synth.short_titles),
    unless two of the items share that form."""

    def __init__(self, items: Iterable[Item], short_titles: ShortTitleRule = "whole"):
        items = list(items)
        patterns: dict[str, str] = {}
        for item in items:
            for pattern in _title_patterns(item):
                patterns.setdefault(pattern, item.id)
        for item in _short_forms(items, short_titles):
            for pattern in _title_patterns(item):
                patterns.setdefault(pattern, item.id)
        ordered = sorted(patterns, key=len, reverse=True)
        self._items = [patterns[pattern] for pattern in ordered]
        alternatives = "|".join(rf"(?P<i{n}>{pattern})" for n, pattern in enumerate(ordered))
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)") if ordered else None

    def find(self, text: str) -> list[Mention]:
        """Every mention in `text`, in order."""
        if self._pattern is None:
            return []
        return [
            Mention(match.start(), match.end(), self._items[int(match.lastgroup[1:])])  # type: ignore[index]
            for match in self._pattern.finditer(text)
        ]

    def tag(self, text: str, render: Callable[[str], str]) -> tuple[str, list[Mention]]:
        """`text` with each mention replaced by `render(item id)`, and the mentions (spans in `text`), in order."""
        pieces, last = [], 0
        mentions = self.find(text)
        for mention in mentions:
            pieces += [text[last : mention.start], render(mention.item)]
            last = mention.end
        return "".join(pieces) + text[last:], mentions


def _short_forms(items: list[Item], rule: ShortTitleRule) -> list[Item]:
    """Each item under its short title, where it has one that no other item's short title shares."""
    shorts = {item.id: short_title(item.title, rule) for item in items}
    counts = Counter(short.lower() for short in shorts.values() if short)
    return [
        item.model_copy(update={"title": short})
        for item in items
        if (short := shorts[item.id]) and counts[short.lower()] == 1
    ]


def _title_patterns(item: Item) -> list[str]:
    bare = _ALIAS.sub("", item.title)
    main = bare.split(":")[0]  # "Kill Bill" for "Kill Bill: Vol. 1", when the main title has two words or more
    titles = dict.fromkeys([item.title, bare] + ([main] if main != bare and len(word_runs(main)) >= 2 else []))
    patterns = []
    for title in titles:
        words = word_runs(title)
        if not words:
            continue
        body = r"[\W_]+".join(re.escape(word) for word in words)
        if words[0].lower() in _ARTICLES and len(words) > 1 and len("".join(words[1:])) >= CASELESS_CHARS:
            article = re.escape(words[0])
            body = rf"(?:{article}[\W_]+)?" + r"[\W_]+".join(re.escape(word) for word in words[1:])
        edges = _EDGES.match(title)  # punctuation around the words belongs to the title: "When Harry Met Sally..."
        lead, tail = (re.escape(part.strip()) for part in edges.groups()) if edges else ("", "")
        body = (f"(?:{lead})?" if lead else "") + body + (f"(?:{tail})?" if tail else "")
        short = len(words) == 1 and len(words[0]) < CASELESS_CHARS
        year = _YEAR if len("".join(words)) >= MIN_BARE_CHARS else rf"\s*\(\s*{item.year}\s*\)" if item.year else None
        if year is None:
            continue
        optional = "?" if year == _YEAR else ""
        core = f"(?:{body})" if short else f"(?i:{body})"
        plain = f"{core}(?:{year}){optional}"
        patterns.append(f"{_OPEN_QUOTE}{plain}{_CLOSE_QUOTE}|{plain}")
    return patterns
