"""What the catalog says of an item, in the words a content's points and templates use: what it is about (where
its description tells a story), a critic's words, its people, its kind ("a comedy and romance movie")."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from synth.domain import Domain
from synth.records import Item

FACT_CHARS = 140  # characters of an item's description given as a fact, where it can be cut
MAX_FACT_CHARS = 200  # ... and where it cannot
CRITIC_WORDS = 5  # a critic's quote shorter than this says too little to give as what a critic thought
# catalog genres as a person says them ("a family movie", not "a children movie"; MovieLens's "Film-Noir")
# genres another genre may come before, as in 'a crime drama' or 'a horror comedy' (not 'a comedy romance')
COMPOUND_HEADS = frozenset({"drama", "comedy", "thriller", "western"})
GENRE_WORDS = {"children": "family", "film-noir": "film noir", "animation": "animated"}
# catalog genres that say how an item was shown, not what it is: nobody asks for "an IMAX movie" (MovieLens's IMAX)
NOT_KINDS = frozenset({"imax"})
SILENT_H = ("honest", "hour", "honor", "honour", "heir")  # 'an honest drama'


def plot_of(item: Item) -> str:
    """What the item is about: its description's first sentence (FACT_CHARS at most); '' where the description
    tells no story (none, or MovieLens's, which opens with the genres list: "Drama, Thriller. A critic: ..."), or
    one too long to give whole."""
    text = " ".join(item.description.split())
    first = text.split(". ")[0].rstrip(".")
    if not first or first.lower() == ", ".join(g.lower() for g in item.genres):
        return ""
    if len(first) <= FACT_CHARS:
        return first
    # the story before its appositive ("..., a sharp satirical horror-thriller for ..."); a cut at any other comma
    # leaves half a phrase ("haunted by a calm" of "a calm, murderous computer"), so a sentence without one is
    # given whole where it fits MAX_FACT_CHARS, else not at all
    appositive = [m.start() for m in re.finditer(r", an? ", first) if FACT_CHARS // 3 <= m.start() <= FACT_CHARS]
    if appositive:
        return first[:appositive[-1]]
    return first if len(first) <= MAX_FACT_CHARS else ""


def critic_of(item: Item) -> str:
    """A critic's quote the description holds (Rotten Tomatoes', on `movielens+rt`), if short but not too short,
    and not in the first person; else ''."""
    found = re.search(r'A critic: "([^"]{10,120})"', item.description)
    if not found or len(found.group(1).split()) < CRITIC_WORDS or re.match(r"I\b", found.group(1)):
        return ""  # "I loved it." tells nothing of the movie, and said again it is the recommender's own verdict
    return found.group(1)


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


def kinds(genres: Sequence[str]) -> list[str]:
    """The genres that say what an item is, lower case (not MovieLens's IMAX)."""
    return [g.lower() for g in genres if g.lower() not in NOT_KINDS]


def kind_of(genres: Sequence[str], domain: Domain, word: str = "and") -> str:
    """'a comedy and romance movie' ('an action movie', 'a family movie'); the domain's noun alone without genres."""
    genres = kinds(genres)
    if not genres:
        return domain.a_noun
    return with_article(f"{joined([genre_word(g) for g in genres], word)} {domain.noun}")


def kinds_of(genres: Sequence[str], domain: Domain, word: str = "and") -> str:
    """The genres as kinds of items, plural: 'comedies or horror movies' ('dramas', 'action movies')."""
    genres = kinds(genres)
    if not genres:
        return domain.plural
    return joined([domain.genre_nouns.get(g.lower()) or f"{genre_word(g)} {domain.plural}" for g in genres], word)


def kind_said(genres: Sequence[str], domain: Domain, rng: random.Random, word: str = "and") -> str:
    """One way of saying `kind_of`, the seed's pick: 'a comedy and romance movie', 'a comedy' (a genre said as a
    noun of its own, domain.genre_nouns), 'a mix of comedy and romance', 'part comedy, part romance', 'a crime
    drama' (genres said as nouns: not 'a mix of animated and family')."""
    genres = kinds(genres)
    said = [kind_of(genres, domain, word)]
    if len(genres) == 1 and genres[0].lower() in domain.genre_nouns:
        said.append(with_article(genres[0].lower()))
    if len(genres) > 1 and word == "and" and not any(g.lower() in GENRE_WORDS for g in genres):  # nouns only
        said.append(f"a mix of {joined([g.lower() for g in genres])}")
        if len(genres) == 2:
            said.append(f"part {genres[0].lower()}, part {genres[1].lower()}")
            if genres[1].lower() in COMPOUND_HEADS and genres[1].lower() in domain.genre_nouns:  # 'a crime drama'
                said.append(with_article(f"{genres[0].lower()} {genres[1].lower()}"))
    return rng.choice(said)


def with_article(phrase: str) -> str:
    """'a horror movie', 'an action movie', 'an honest drama'."""
    return f"{'an' if phrase[0] in 'aeiou' or phrase.lower().startswith(SILENT_H) else 'a'} {phrase}"
