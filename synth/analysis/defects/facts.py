"""Facts that contradict the catalog: a movie given another year, a genre it does not have, or a person who is
not among its directors and cast, where the catalog holds them (a catalog without people can only be caught on
years and genres). A sentence is about the one item of the dialogue it names, or, naming none, about the item
the reply recommends or answers about."""

from __future__ import annotations

import re

from synth.analysis.defects.detectors import Defect, ReplyContext, mentions, sentences, title_words, words
from synth.data.title_match import normalise
from synth.records import Item
from synth.short_titles import ShortTitleRule

# Words that claim a genre -> the catalog genre they claim (MovieLens' names). Words people use loosely for
# many films (drama, thriller, crime, mystery, adventure) claim nothing here.
GENRE_WORDS = {
    "horror": "Horror", "comedy": "Comedy", "comedic": "Comedy", "romance": "Romance", "romantic": "Romance",
    "documentary": "Documentary", "animated": "Animation", "animation": "Animation", "cartoon": "Animation",
    "western": "Western", "musical": "Musical", "scifi": "Sci-Fi", "war": "War",
    "action": "Action", "fantasy": "Fantasy",
}
_CLAIM = re.compile(r"\b(?:is|it's|was|'s)\s+(?:a|an)\s+([^.;:!?]*)", re.IGNORECASE)  # "X is a romantic drama"
_CLAIM_END = re.compile(r"\b(?:that|which|who|with|about|where|from|in|for|by|set|starring|featuring)\b", re.IGNORECASE)
_YEAR_CLAIM = re.compile(r"\b(?:released in|came out in|made in|from)\s+((?:19|20)\d\d)\b", re.IGNORECASE)
PERSON_NAME = re.compile(r"\b[A-Z][a-z'’]+(?:[ -](?:[A-Z][a-z'’.]+|[A-Z]\.|de|del|van|von|da))*[ -][A-Z][a-z'’]+\b")
CUE_REACH = 60  # characters after "starring", "directed by", ... in which a name is taken for cast or crew
_ROLE_WORDS = re.compile(
    r"\b(?:starring|stars|starred|star|featuring|directed by|director|directors|actor|actors|actress|actresses|"
    r"cast|played by|plays|voiced by|narrated by|from director|characters?|leads?|hero|heroine)\b",
    re.IGNORECASE,
)


def people_of(item: Item) -> set[str]:
    """The item's directors and cast, normalised."""
    return {normalise(name) for name in (*item.directors, *item.cast)}


def _subject(sentence: str, items: tuple[Item, ...], named: Item | None, short_titles: ShortTitleRule) -> Item | None:
    """The one item the sentence names, else the reply's named item when it names none."""
    found = [item for item in items if mentions(sentence, item.display, short_titles)]
    if len(found) == 1:
        return found[0]
    return named if not found else None


def _year_defect(sentence: str, item: Item, items: tuple[Item, ...]) -> Defect | None:
    if item.year is None:
        return None
    for spoken in _titles_with_year(sentence, items):
        if spoken[0].id == item.id and spoken[1] != item.year:
            return Defect("contradicts_catalog", f"gives {item.title} the year {spoken[1]}, not {item.year}")
    claimed = _YEAR_CLAIM.search(sentence)
    if claimed and int(claimed.group(1)) != item.year and not re.search(rf"\(\s*{claimed.group(1)}\s*\)", sentence):
        return Defect("contradicts_catalog", f"says {item.title} is from {claimed.group(1)}, not {item.year}")
    return None


def _titles_with_year(sentence: str, items: tuple[Item, ...]) -> list[tuple[Item, int]]:
    """(item, year) for each "Title (Year)" of the sentence whose title is one of the items'."""
    found = []
    for match in re.finditer(r"\((\d{4})\)", sentence):
        before = words(sentence[: match.start()])
        for item in items:
            key = title_words(item.title)
            if key and tuple(before[-len(key):]) == key:
                found.append((item, int(match.group(1))))
    return found


def _genre_defect(sentence: str, item: Item) -> Defect | None:
    if not item.genres:
        return None
    own = set(item.genres)
    for claim in _CLAIM.finditer(sentence):
        phrase = _CLAIM_END.split(claim.group(1))[0]
        for word in words(phrase.lower().replace("science fiction", "scifi").replace("sci-fi", "scifi"))[:6]:
            genre = GENRE_WORDS.get(word)
            if genre is not None and genre not in own:
                return Defect("contradicts_catalog", f'calls {item.title} "{word}", not one of its genres ({", ".join(item.genres)})')
    return None


def _people_defect(sentence: str, item: Item, items: tuple[Item, ...]) -> Defect | None:
    """A person of another item of the dialogue, or any name right after "starring", "directed by", "the main
    characters are", ..., who is not among the item's own people (titles are not people)."""
    own = people_of(item)
    if not own:
        return None
    people = {name for other in items for name in people_of(other)}
    cue = _ROLE_WORDS.search(sentence)
    cued = range(cue.end(), cue.end() + CUE_REACH) if cue is not None else range(0)
    titles = [normalise(other.title) for other in items]
    for match in PERSON_NAME.finditer(sentence):
        name = normalise(match.group(0))
        if name in own or any(name in title for title in titles):
            continue
        if name in people or match.start() in cued:
            return Defect("contradicts_catalog", f"names {match.group(0)}, who is not among {item.title}'s directors and cast")
    return None


def contradicts_catalog(text: str, context: ReplyContext, named: str | None = None) -> Defect | None:
    """A sentence that gives an item of the dialogue a year, a genre or a person its catalog entry contradicts."""
    items = context.items
    if not items:
        return None
    named_item = next((item for item in items if named is not None and item.display == named), None)
    for sentence in sentences(text):
        item = _subject(sentence, items, named_item, context.short_titles)
        if item is None:
            continue
        found = _year_defect(sentence, item, items) or _genre_defect(sentence, item) or _people_defect(sentence, item, items)
        if found is not None:
            return found
    return None
