"""Item text and the word tokenizer shared by the lexical retrievers."""

from __future__ import annotations

import re

from synth.records import Item

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Function words that carry no preference; kept short on purpose (negations such as "not" stay).
STOPWORDS = frozenset(
    "a an and are as at be but by for from has have he her his i i'm in is it it's its me my of on or our "
    "she so that the their them they this to was we were what which who will with you your".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def item_text(item: Item) -> str:
    """What a retriever knows of an item: title, year, genres and description."""
    year = str(item.year) if item.year else ""
    return " ".join(part for part in (item.title, year, " ".join(item.genres), item.description) if part)
