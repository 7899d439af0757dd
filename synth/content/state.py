"""The seeker's state, from the data, and the ledger of what the conversation has said so far."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from synth.content.facts import kinds
from synth.records import Item, Persona, Review, verdict
from synth.target_hints import era_of, mood_words, target_hints

ATTRIBUTES = ("genre", "mood", "era", "example")  # what a seeker can be asked about and tell, in asking order
OWN_WORDS = 90  # characters of a review quoted as the seeker's own words at most
_TURNS = re.compile(r"\b(?:but|though|although|despite|however)\b", re.IGNORECASE)  # a mixed verdict's turn


@dataclass(frozen=True)
class Opinion:
    """The seeker's own opinion of one item it has seen: whether it liked it, its verdict in words
    ("loved it"), and a few of its own words (own_words; '' if none)."""

    item: Item
    liked: bool
    verdict: str
    words: str = ""


def opinion_of(review: Review, item: Item) -> Opinion:
    """A review as the seeker's opinion: liked at 0.55 and above (verdict 'liked it' or 'loved it')."""
    said = verdict(review)
    liked = said in ("loved it", "liked it")
    return Opinion(item=item, liked=liked, verdict=said, words=own_words(review, item, mixed=not liked))


def own_words(review: Review, item: Item, *, mixed: bool = True) -> str:
    """A few of the seeker's own words about `item`: the shortest sentence of its review that fits OWN_WORDS
    characters and is no aside in brackets ('Jefferies (James Stewart)'), else the review's mood words ('gripping,
    dark'), else its tags; '' if none. Without `mixed`, no sentence that turns with a 'but': "Empty at the core but
    superficially diverting" does not say why one loved it."""
    text = " ".join(re.sub(r"\[([^\]]*)\]", r"\1", review.text).split())  # a critic's editorial "[Julia Roberts]"
    fitting = [s.strip().rstrip(".") for s in re.split(r"(?<=[.!?])\s+", text)
               if 12 <= len(s.strip()) <= OWN_WORDS and "(" not in s and (mixed or not _TURNS.search(s))]
    if fitting:
        return min(fitting, key=len)
    moods = mood_words(text, {w.lower() for w in item.title.split()}) if text else ()
    return ", ".join(moods) if moods else ", ".join(review.tags[:3])


@dataclass(frozen=True)
class Wants:
    """What the seeker hopes for: its hidden target's genres (lower case), era ('from the 1990s') and mood
    words from its own review or tags; never the title."""

    genres: tuple[str, ...]
    era: str
    moods: tuple[str, ...]

    def values(self, attribute: str) -> tuple[str, ...]:
        """The wanted values of one attribute ('example' has none here: it is a seen item)."""
        return {"genre": self.genres, "mood": self.moods, "era": (self.era,) if self.era else ()}.get(attribute, ())


@dataclass(frozen=True)
class SeekerState:
    """One seeker, decided from its data before the dialogue starts. `opinion` looks up the seeker's own
    rating of any item (its review index); `liked` are the seen items it may name as examples, closest to what
    it wants first; `dislikes` the genres of the items it disliked that it does not want now."""

    wants: Wants
    liked: tuple[Opinion, ...]
    dislikes: tuple[str, ...]
    target_id: str | None  # the item it accepts: PEARL's hidden target, GoRecDial's correct candidate
    opinion: Callable[[str], Opinion | None] = field(repr=False, compare=False)

    def knows(self, attribute: str) -> bool:
        """Whether the seeker has anything to say about `attribute`."""
        return bool(self.liked) if attribute == "example" else bool(self.wants.values(attribute))


def pearl_state(persona: Persona, catalog: Mapping[str, Item], lookup: Callable[[str], Review | None]) -> SeekerState:
    """A PEARL seeker's state: its target's hints (synth.target_hints) are what it wants; its general reviews
    what it has seen (and, through `lookup`, any other item it rated)."""
    target = catalog[persona.target.item]
    hints = target_hints(persona.target, target)
    wants = Wants(tuple(kinds(target.genres)), hints.era, hints.moods)
    general = {r.item: opinion_of(r, catalog[r.item]) for r in persona.general if r.item in catalog}

    def opinion(item_id: str) -> Opinion | None:
        if item_id == target.id:
            return None  # the target is new to the seeker whatever its ratings say: it is what it hopes to find
        if item_id in general:
            return general[item_id]
        review = lookup(item_id)
        return opinion_of(review, catalog[item_id]) if review is not None and item_id in catalog else None

    return SeekerState(wants, _examples(general.values(), wants), _dislikes(general.values(), wants), target.id, opinion)


def set_state(movies: Sequence[Item], target_id: str | None = None) -> SeekerState:
    """A GoRecDial seeker's state: its set of loved movies is its taste; it wants what they share most (their
    two most common genres) and has seen each of them; it knows no other opinion. `target_id`: the candidate
    the game's rule has it accept (the correct one)."""
    counts = Counter(g for item in movies for g in kinds(item.genres))
    genres = tuple(g for g, _ in counts.most_common(2))
    years = sorted(item.year for item in movies if item.year)
    era = era_of(years[len(years) // 2]) if years else ""
    seen = {item.id: Opinion(item=item, liked=True, verdict="loved it") for item in movies}
    wants = Wants(genres, era, ())
    return SeekerState(wants, _examples(seen.values(), wants), (), target_id, seen.get)


def _examples(seen: Iterable[Opinion], wants: Wants) -> tuple[Opinion, ...]:
    """The liked items, most genres shared with what the seeker wants first (stable otherwise)."""
    liked = [o for o in seen if o.liked]
    return tuple(sorted(liked, key=lambda o: -len({g.lower() for g in o.item.genres} & set(wants.genres))))


def _dislikes(seen: Iterable[Opinion], wants: Wants) -> tuple[str, ...]:
    """The genres of the items the seeker disliked, less those it wants now and those of items it liked (a seeker
    who loved a comedy does not say it would rather avoid comedies)."""
    seen = list(seen)
    liked = {g.lower() for o in seen if o.liked for g in o.item.genres}
    genres = [g for o in seen if o.verdict == "disliked it" for g in kinds(o.item.genres)]
    return tuple(dict.fromkeys(g for g in genres if g not in wants.genres and g not in liked))


@dataclass
class Ledger:
    """What the conversation has said so far, as decided contents: the attributes the recommender asked
    about and the seeker told (with the values told), the examples named and the question about an offer
    waiting for its answer. Both sides read it; it holds nothing unsaid."""

    asked: list[str] = field(default_factory=list)
    told: dict[str, tuple[str, ...]] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)  # the titles the seeker named as liked examples
    question: str | None = None  # the topic the seeker asked about the last offer ("plot", "people" or "opinion")
    # item id -> what an offer already said of it ("people", "plot", "opinion"): nothing the seeker need ask
    said_of: dict[str, list[str]] = field(default_factory=dict)
    # what the seeker's noes asked for, by attribute (the latest no's values): the next offer should have it
    pressed: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def untold(self, state: SeekerState | None = None) -> list[str]:
        """The attributes not yet told, in asking order (with a state: only those the seeker can tell)."""
        return [a for a in ATTRIBUTES if a not in self.told and (state is None or state.knows(a))]

    def asked_everything(self) -> bool:
        """Whether the recommender has asked all it asks (its last question is whether there is anything else):
        another question would repeat one."""
        return "more" in self.asked

    def wanted(self) -> str:
        """The genres and moods the seeker said it wants, in the order told: what the recommender searches for."""
        return " ".join(value for attribute in ("genre", "mood") for value in self.told.get(attribute, ()))

    def told_values(self) -> set[str]:
        """Every value the seeker told, lower case (genres, moods, era)."""
        return {value.lower() for attribute, values in self.told.items() if attribute != "avoid" for value in values}
