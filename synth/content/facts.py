"""What the catalog says of an item, in the words a content's points and templates use: what it is about (where
its description tells a story), a critic's words, its people, its kind ("a comedy and romance movie")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from synth.domain import Domain
from synth.records import Item

FACT_CHARS = 140  # characters of an item's description given as a fact at most
# catalog genres as a person says them ("a family movie", not "a children movie"; MovieLens's "Film-Noir")
GENRE_WORDS = {"children": "family", "film-noir": "film noir", "animation": "animated", "imax": "IMAX"}


def plot_of(item: Item) -> str:
    """What the item is about: its description's first sentence (FACT_CHARS at most); '' where the description
    tells no story (none, or MovieLens's, which opens with the genres list: "Drama, Thriller. A critic: ...")."""
    text = " ".join(item.description.split())
    first = text.split(". ")[0].rstrip(".")
    if not first or first.lower() == ", ".join(g.lower() for g in item.genres):
        return ""
    if len(first) <= FACT_CHARS:
        return first
    clause = first.find(", ", FACT_CHARS // 2, FACT_CHARS)  # the first clause that ends past half the room
    return first[:clause] if clause > 0 else first[:FACT_CHARS].rsplit(" ", 1)[0]


def critic_of(item: Item) -> str:
    """A critic's quote the description holds (Rotten Tomatoes', on `movielens+rt`), if short; else ''."""
    found = re.search(r'A critic: "([^"]{10,120})"', item.description)
    return found.group(1) if found else ""


def people_of(item: Item) -> list[str]:
    """The item's directors, then its cast."""
    return [*item.directors, *item.cast]


def joined(values: Sequence[str], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (or `word` for 'and')."""
    values = list(values)
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + f" {word} " + values[-1]


def genre_word(genre: str) -> str:
    """A catalog genre as a person says it before a noun: 'family' for Children, 'film noir' for Film-Noir."""
    return GENRE_WORDS.get(genre.lower(), genre)


def kind_of(genres: Sequence[str], domain: Domain, word: str = "and") -> str:
    """'a comedy and romance movie' ('an action movie', 'a family movie'); the domain's noun alone without genres."""
    if not genres:
        return domain.a_noun
    return with_article(f"{joined([genre_word(g) for g in genres], word)} {domain.noun}")


def with_article(phrase: str) -> str:
    """'a horror movie', 'an action movie'."""
    return f"{'an' if phrase[0] in 'aeiou' else 'a'} {phrase}"
