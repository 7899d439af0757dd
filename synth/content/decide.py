"""The content of each turn, decided before any model writes it: seeded, deterministic, from the seeker's state
(seeker turns), the ledger of what was said (both sides), the catalog's facts and the planned move.

Each decision gives a `Decided`: the record's TurnContent (its points in plain words, for the wording prompt),
the template sentence that says the same where no model reply does, and what the game needs from it (the item
offered, the seeker's decision, the ledger's update). This module holds `Decided` and the recommender's
decisions; synth.content.seeker holds the seeker's."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from synth.content.facts import (
    critic_of,
    genre_word,
    joined,
    kind_of,
    kind_said,
    kinds,
    people_of,
    plot_of,
    with_article,
)
from synth.content.phrases import (
    ASK_KEYS,
    ASK_TOPICS,
    CLOSE_KEYS,
    CLOSES,
    CRITIC_SAYS,
    FITS,
    FOLLOW_UPS,
    IS,
    NODS,
    OFFER_BODIES,
    OFFER_OPENINGS,
    OFFER_SEEN_OPENINGS,
    PLAIN_WORDS,
    UNMET_BODIES,
    decade_forms,
    era_said,
    say_one,
    title_of,
)
from synth.content.state import ATTRIBUTES, Ledger
from synth.domain import Domain
from synth.records import Item, TurnContent
from synth.target_hints import era_of


@dataclass
class Decided:
    """One turn's decided content. `template` says it in words of its own; `item` is the item offered or spoken
    about; `accept` the seeker's decision (None: none due); `question` whether the turn asks something;
    `may_name` titles the words may name besides the content's own; `told` what the seeker tells (attribute ->
    values) and `example` the title of the liked item it names, for the ledger."""

    content: TurnContent
    template: str
    item: Item | None = None
    accept: bool | None = None
    question: bool = False
    may_name: tuple[str, ...] = ()
    told: dict[str, tuple[str, ...]] = field(default_factory=dict)
    example: str | None = None
    asks_about: str | None = None  # the recommender's question: the attribute; the seeker's: the topic
    say_any: tuple[str, ...] = ()  # the content's key words: the words must say one of them (synth.content.keys)
    seen: bool = False  # the seeker has seen `item` (its own opinion is in the content)
    unmet: str = ""  # an offer's: what the seeker asked for that the item is not ("horror movie from the 1970s")
    topics: tuple[str, ...] = ()  # an offer's: what it says of its item besides its kind ("people", "plot", "opinion")
    quote: str = ""  # a critic's words the content quotes: the words must quote them as they are

    def record(self, ledger: Ledger) -> None:
        """Write what this turn said into the conversation's ledger."""
        move = self.content.move
        if move == "ask" and self.asks_about:
            ledger.asked.append(self.asks_about)
        for attribute, values in self.told.items():  # a decline's reason adds to what was told before
            ledger.told[attribute] = tuple(dict.fromkeys((*ledger.told.get(attribute, ()), *values)))
        if self.example:
            ledger.examples.append(self.example)
        if self.topics and self.item is not None:
            ledger.said_of.setdefault(self.item.id, []).extend(self.topics)
        if move == "decline":
            ledger.pressed.update({attribute: values for attribute, values in self.told.items() if attribute != "avoid" and values})
        if move == "inquire":
            ledger.question = self.asks_about
        elif move == "answer":
            ledger.question = None


CREDITS_SHARE = 0.4  # of offers without a plot that say who stars in it (where the catalog lists a cast)
YEAR_SHARE = 0.3  # of offers matching the era asked that give the item's year rather than its decade


def content_rng(seed: int) -> random.Random:
    """The random draws of one turn's content (its turn seed): the same turn decides the same content."""
    return random.Random(f"content:{seed}")


def _words(domain: Domain) -> dict[str, str]:
    return {"noun": domain.noun, "a_noun": domain.a_noun, "plural": domain.plural, "verb": domain.verb,
            "seen": domain.seen, "when": domain.when}


# --- the recommender's side: it reads the ledger, never the seeker's state -------------------------------


def matches(item: Item, ledger: Ledger) -> list[str]:
    """What of `item` matches what the seeker said: its genres among the told ones, its era, mood words of its
    description among the told moods."""
    told = ledger.told_values()
    found = [g.lower() for g in item.genres if g.lower() in told]
    era = ledger.told.get("era", ())
    if item.year and era and era_of(item.year) in era:
        found.append(era_of(item.year))
    found += [m for m in ledger.told.get("mood", ()) if m in item.description.lower()]
    return found


def meets_what_was_pressed(item: Item, ledger: Ledger) -> bool:
    """Whether `item` has what the seeker's noes asked for (one of each attribute's values: a genre, the era, a
    mood word of its description)."""
    genres, lower = set(kinds(item.genres)), item.description.lower()
    return all(genres & set(values) if attribute == "genre" else
               bool(item.year) and era_of(item.year) in values if attribute == "era" else
               any(value in lower for value in values) for attribute, values in ledger.pressed.items())


def choose_offer(candidates: Sequence[Item], ledger: Ledger, rng: random.Random) -> Item:
    """The candidate of no genre the seeker said it would rather avoid, with what its noes asked for ("I was hoping
    for more of a drama": not another romantic comedy next), whose facts match most of what it said; a seeded draw
    breaks ties (the retriever's first pick for the same words would recur across dialogues)."""
    avoided = set(ledger.told.get("avoid", ()))

    def fit(item: Item) -> tuple[bool, bool, int]:
        return (not avoided & {g.lower() for g in item.genres}, meets_what_was_pressed(item, ledger),
                len(matches(item, ledger)))

    best = max(map(fit, candidates))
    return rng.choice([item for item in candidates if fit(item) == best])


def recommender_content(
    acts: Sequence[str] | None, ledger: Ledger, domain: Domain, rng: random.Random, *,
    candidates: Sequence[Item] = (), about: Item | None = None, closing: Item | None = None,
) -> Decided:
    """The recommender's turn: its goodbye after `closing` was accepted, an answer about `about`, an offer of one
    of `candidates`, or a question about a taste the seeker has not told (acts: the planned IARD codes; None, an
    unplanned course's: ('REC-S', 'EXP-P') with candidates, else ('REQ',))."""
    if acts is None:
        acts = ("REC-S", "EXP-P") if candidates else ("REQ",)
    words = _words(domain)
    react = "RESP" in acts or "OTH" in acts
    if closing is not None:
        return Decided(TurnContent(move="close", points=[f"say you are glad about {closing.display}",
                                                        f"wish a good time with it {domain.when}"]),
                       say_one(rng, CLOSES, title=closing.title, when=domain.when), item=closing, may_name=(closing.display,),
                       say_any=CLOSE_KEYS)
    if about is not None:
        return _answer(about, ledger.question or "plot", domain)
    if candidates:
        return _offer(choose_offer(candidates, ledger, rng), acts, ledger, domain, rng)
    open_topics = [a for a in ATTRIBUTES if a not in ledger.told and a not in ledger.asked]
    if open_topics:
        attribute = open_topics[0] if not ledger.asked else rng.choice(open_topics[:2])
    else:  # what it would rather avoid, then anything else: the same question twice reads as not listening
        attribute = next((a for a in FOLLOW_UPS if a not in ledger.asked and a not in ledger.told), "more")
    point, template = (text.format(**words) for text in rng.choice(ASK_TOPICS[attribute]))
    points = [point]
    if react and ledger.told:
        points.insert(0, "react in a few words to the last message")
        template = f"{rng.choice(NODS)} {template}"
    return Decided(TurnContent(move="ask", points=points), template, question=True, asks_about=attribute,
                   say_any=ASK_KEYS[attribute])


def _offer(item: Item, acts: Sequence[str], ledger: Ledger, domain: Domain, rng: random.Random) -> Decided:
    """An offer of `item`, with why it fits (the matches with what was said; else its genres) and, where the
    move explains it, what it is about."""
    found = matches(item, ledger)
    genres = kinds(item.genres)
    matched_genres = [g for g in genres if g in found]
    moods = [value for value in found if value not in matched_genres and not value.startswith("from")]
    eras = [_era_or_year(value, item, rng) for value in found if value.startswith("from")]
    why = _with_moods(" ".join([kind_said(matched_genres or genres, domain, rng), *eras]), moods)
    asks_seen = "REC-E" in acts
    unmet = _unmet(item, ledger, domain)
    points = [f"ask them whether they have {domain.seen} {item.display}" if asks_seen else f"suggest {item.display}",
              rng.choice(FITS if found and not unmet else IS).format(why=why)]
    openings = OFFER_SEEN_OPENINGS if asks_seen else OFFER_OPENINGS
    if unmet:  # it is not what they asked for: say so rather than pretend it fits (not that none exists: the
        # next offer may be one)
        points.append(f"say plainly that it is not {with_article(unmet)}, but suggest it all the same")
    template = say_one(rng, openings, UNMET_BODIES if unmet else OFFER_BODIES if found else OFFER_BODIES[:1],
                       title=item.title, seen=domain.seen, why=why, unmet=_unmet_said(unmet, rng))
    topics: tuple[str, ...] = ()
    quote = ""
    if "EXP-I" in acts and (plot := plot_of(item)):
        points.append(f"say what it is about: {plot}")
        template += f" {plot}."
        topics = ("plot",)
    elif "EXP-I" in acts and (critic := critic_of(item)):  # a catalog that tells no story may quote a critic
        points.append(f'say a critic called it "{critic}"')
        template += " " + rng.choice(CRITIC_SAYS).format(critic=critic.rstrip("."))
        topics = ("opinion",)
        quote = critic
    elif item.cast and rng.random() < CREDITS_SHARE:
        star = item.cast[0]
        points.append(f"say it stars {star}")
        template += " " + rng.choice((f"It stars {star}.", f"{star} is in it.", f"It has {star} in it."))
        topics = ("people",)
    liked = ledger.examples[-1] if "EXP-S" in acts and ledger.examples else None
    if liked:
        points.append(f"say it may please someone who loved {liked}")
        template += f" If you loved {title_of(liked)}, you may like this one too."
    return Decided(TurnContent(move="offer", points=points, titles=[item.display], people=people_of(item)), template,
                   item=item, question=asks_seen, may_name=(item.display, *([liked] if liked else [])),
                   say_any=tuple(found or genres), unmet=unmet, topics=topics, quote=quote)


def _with_moods(kind: str, moods: Sequence[str]) -> str:
    """A kind said with the mood words it matched: 'a quiet, sad drama from the 50s', 'part sci-fi, part thriller
    from the 80s, and haunting'."""
    if not moods:
        return kind
    article, _, rest = kind.partition(" ")
    if article in ("a", "an") and not rest.startswith("mix of "):
        return with_article(f"{', '.join(moods)} {rest}")
    return f"{kind}, and {joined(moods)}"


def _era_or_year(era: str, item: Item, rng: random.Random) -> str:
    """An offer's era match said one way or another: 'from the 90s', or its year ('from 1995')."""
    return f"from {item.year}" if item.year and rng.random() < YEAR_SHARE else era_said(era, rng)


def _unmet_said(unmet: str, rng: random.Random) -> str:
    """What the offer is not, one way of saying it: 'a horror movie from the 70s'."""
    return re.sub(r"\d{4}s", lambda decade: rng.choice(decade_forms(decade.group())), with_article(unmet)) if unmet else ""


def _unmet(item: Item, ledger: Ledger, domain: Domain) -> str:
    """What the seeker asked for that `item` is not, as one kind ('horror movie from the 1970s', 'movie from the
    1970s'); '' if nothing. A genre counts only when the item has none of the genres told."""
    told = ledger.told.get("genre", ())
    genre = told[0] if told and not {g.lower() for g in item.genres} & {g.lower() for g in told} else ""
    told_era = ledger.told.get("era", ())
    era = told_era[0] if told_era and item.year and era_of(item.year) not in told_era else ""
    if not genre and not era:
        return ""
    return " ".join(part for part in (genre_word(genre), domain.noun, era.replace("a recent one", "that is recent")) if part)


def _answer(item: Item, topic: str, domain: Domain) -> Decided:
    """The answer to the seeker's question about `item`: catalog facts only (people where the catalog lists
    them, else what it is about, else what a critic said of it, else its kind and year)."""
    people, plot, critic = people_of(item), plot_of(item), critic_of(item)
    if topic == "people" and people:
        credits = []
        if item.directors:
            credits.append(f"{domain.directors_label} {joined(item.directors[:1])}")
        if item.cast:
            credits.append(f"{domain.cast_label} {joined(item.cast[:2])}")
        fact = "it is " + ", ".join(credits)
        template, keys = f"It's {', '.join(credits)}.", tuple(people)
    elif plot or critic:  # keys: the words that carry it ("weatherman", "relives"; the critic's)
        fact = f"it is {plot}" if plot else f'a critic called it "{critic}"'
        template = (f"It's {kind_of(item.genres, domain)}: {plot[0].lower()}{plot[1:]}." if plot
                    else f'A critic called it "{critic}"' + ("" if critic[-1] in ".!?" else "."))
        keys = tuple(dict.fromkeys(w for w in re.findall(r"[a-z]{5,}", (plot or critic).lower()) if w not in PLAIN_WORDS))
    else:
        kind = kind_of(item.genres, domain) + (f" from {item.year}" if item.year else "")
        fact, template, keys = f"it is {kind}", f"It's {kind}.", tuple(kinds(item.genres))
    quoted = critic if fact.startswith("a critic") else ""
    return Decided(TurnContent(move="answer", points=[f"answer their question about {item.display}: {fact}"],
                               people=people), template, item=item, may_name=(item.display,), say_any=keys, quote=quoted)
