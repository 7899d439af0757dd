"""The content of each turn, decided before any model writes it: seeded, deterministic, from the seeker's state
(seeker turns), the ledger of what was said (both sides), the catalog's facts and the planned move.

Each decision gives a `Decided`: the record's TurnContent (its points in plain words, for the wording prompt),
the template sentence that says the same where no model reply does, and what the game needs from it (the item
offered, the seeker's decision, the ledger's update)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from synth.content.facts import critic_of, genre_word, joined, kind_of, people_of, plot_of, with_article
from synth.content.phrases import (
    ACCEPTS,
    ASK_KEYS,
    ASK_TOPICS,
    CLOSES,
    ERA_WANTS,
    FITS,
    GENRE_WANTS,
    IS,
    MOOD_WANTS,
    NO_PREFERENCE,
    NODS,
    NOT_QUITE,
    NOT_WANTED,
    OFFER_OPENINGS,
    OFFER_SEEN_OPENINGS,
    PLAIN_WORDS,
    SEEN_DECLINES,
    SEEN_KEYS,
    TOPIC_KEYS,
)
from synth.content.state import ATTRIBUTES, Ledger, Opinion, SeekerState
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

    def record(self, ledger: Ledger) -> None:
        """Write what this turn said into the conversation's ledger."""
        move = self.content.move
        if move == "ask" and self.asks_about:
            ledger.asked.append(self.asks_about)
        for attribute, values in self.told.items():  # a decline's reason adds to what was told before
            ledger.told[attribute] = tuple(dict.fromkeys((*ledger.told.get(attribute, ()), *values)))
        if self.example:
            ledger.examples.append(self.example)
        if move == "inquire":
            ledger.question = self.asks_about
        elif move == "answer":
            ledger.question = None


def asked_in(text: str) -> str | None:
    """The attribute a free question asks about (the GoRecDial expert's): the first whose ASK_KEYS word a sentence
    with a question mark says; None when no question, or none of them."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if sentence.endswith("?"):
            lower = sentence.lower()
            found = next((a for a in ATTRIBUTES if any(re.search(rf"\b{k}", lower) for k in ASK_KEYS[a])), None)
            if found:
                return found
    return None


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


def choose_offer(candidates: Sequence[Item], ledger: Ledger) -> Item:
    """The candidate whose facts match most of what the seeker said; the retriever's order breaks ties."""
    return max(candidates, key=lambda item: (len(matches(item, ledger)), -candidates.index(item)))


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
                       rng.choice(CLOSES).format(title=closing.title, when=domain.when), item=closing, may_name=(closing.display,))
    if about is not None:
        return _answer(about, ledger.question or "plot", domain)
    if candidates:
        return _offer(choose_offer(candidates, ledger), acts, ledger, domain, rng)
    open_topics = [a for a in ATTRIBUTES if a not in ledger.told and a not in ledger.asked]
    attribute = (open_topics[0] if not ledger.asked else rng.choice(open_topics[:2])) if open_topics else "more"
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
    genres = [g.lower() for g in item.genres]
    matched_genres = [g for g in genres if g in found]
    others = [value for value in found if value not in matched_genres]
    why = kind_of(matched_genres or genres, domain) + "".join(
        f" {value}" if value.startswith("from") else f", {value}" for value in others)
    asks_seen = "REC-E" in acts
    unmet = _unmet(item, ledger, domain)
    points = [f"ask them whether they have {domain.seen} {item.display}" if asks_seen else f"suggest {item.display}",
              rng.choice(FITS if found and not unmet else IS).format(why=why)]
    opening = rng.choice(OFFER_SEEN_OPENINGS if asks_seen else OFFER_OPENINGS).format(seen=domain.seen, title=item.title)
    template = f"{opening} It's {why}."
    if unmet:  # it is not what they asked for: say so rather than pretend it fits (not that none exists: the
        # next offer may be one)
        points.append(f"say plainly that it is not {with_article(unmet)}, but suggest it all the same")
        template = f"{opening} It isn't {with_article(unmet)}, but it's {why}."
    if "EXP-I" in acts and (plot := plot_of(item)):
        points.append(f"say what it is about: {plot}")
        template += f" {plot}."
    liked = ledger.examples[-1] if "EXP-S" in acts and ledger.examples else None
    if liked:
        points.append(f"say it may please someone who loved {liked}")
        template += f" If you loved {_title_of(liked)}, you may like this one too."
    return Decided(TurnContent(move="offer", points=points, titles=[item.display], people=people_of(item)), template,
                   item=item, question=asks_seen, may_name=(item.display, *([liked] if liked else [])),
                   say_any=tuple(found or genres), unmet=unmet)


def _title_of(display: str) -> str:
    """A title as shown with its year ('Heat (1995)') as a person says it ('Heat')."""
    return re.sub(r" \(\d{4}\)$", "", display)


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
        template = (f"It's {kind_of([g.lower() for g in item.genres], domain)}: {plot[0].lower()}{plot[1:]}." if plot
                    else f'A critic called it "{critic}"' + ("" if critic[-1] in ".!?" else "."))
        keys = tuple(dict.fromkeys(w for w in re.findall(r"[a-z]{5,}", (plot or critic).lower()) if w not in PLAIN_WORDS))
    else:
        kind = kind_of([g.lower() for g in item.genres], domain) + (f" from {item.year}" if item.year else "")
        fact, template, keys = f"it is {kind}", f"It's {kind}.", tuple(g.lower() for g in item.genres)
    return Decided(TurnContent(move="answer", points=[f"answer their question about {item.display}: {fact}"],
                               people=people), template, item=item, may_name=(item.display,), say_any=keys)


# --- the seeker's side: its state and the ledger ------------------------------------------------------------


def seeker_content(
    acts: Sequence[str] | None, state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random, *,
    recommended: Item | None = None, inquire: bool = False,
) -> Decided:
    """The seeker's turn: with no suggestion to answer, it tells what it wants (what it was asked, else what it
    has not told); asked to `inquire`, it asks one question about `recommended`; else it reacts to it (acts: the
    planned IARD codes; None, an unplanned course's: ('PRO',) without a suggestion, else ('REJ', 'CON'))."""
    if acts is None:
        acts = ("PRO",) if recommended is None else ("REJ", "CON")
    if recommended is None:
        return _reveal(acts, state, ledger, domain, rng)
    if inquire and (topic := _question_topic(recommended, rng)):
        point, template = {
            "people": (f"ask who is in {recommended.title}", f"Who's in {recommended.title}?"),
            "plot": (f"ask what {recommended.title} is about", f"What's {recommended.title} about?"),
            "opinion": (f"ask whether {recommended.title} is any good", f"Is {recommended.title} any good?"),
        }[topic]
        return Decided(TurnContent(move="inquire", points=[point, "do not say yet whether you want it"],
                                   titles=[recommended.display]), template, item=recommended, question=True,
                       may_name=(recommended.display,), asks_about=topic, say_any=TOPIC_KEYS[topic])
    if recommended.id == state.target_id:
        return _accept(recommended, state, domain, rng)
    return _decline(acts, recommended, state, ledger, domain, rng)


def _reveal(acts: Sequence[str], state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random) -> Decided:
    """Tell the attribute just asked about (else the first one untold, two at the opening), with a liked
    example where the move speaks of its taste (PRO)."""
    untold = ledger.untold(state)
    asked = ledger.asked[-1] if ledger.asked and ledger.asked[-1] in ATTRIBUTES else None
    points: list[str] = []
    sentences: list[str] = []
    told: dict[str, tuple[str, ...]] = {}
    if asked is not None and asked not in ledger.told and not state.knows(asked):  # nothing to tell: no preference
        told[asked] = ()
        points.append(f"say you have no particular {NO_PREFERENCE[asked]} in mind")
        sentences.append(f"No particular {NO_PREFERENCE[asked]} in mind.")
    attributes = [asked] if asked in untold else untold[:2] if not ledger.told else untold[:1]
    if "PRO" in acts and "example" not in attributes and "example" in untold:
        attributes.append("example")
    example = None
    for attribute in attributes:
        if attribute == "example":
            liked = next(o for o in state.liked if o.item.display not in ledger.examples)
            example = liked.item.display
            points.append(_example_point(liked))
            sentences.append(f"I {_verb(liked)} {liked.item.title}" + (f': "{liked.words}"' if liked.words else "."))
            told["example"] = (liked.item.display,)
            continue
        values = state.wants.values(attribute)[:2]
        told[attribute] = values
        point, sentence = _want(attribute, values, domain, rng)
        points.append(point)
        sentences.append(sentence)
    if not points:  # everything told: nothing more to want
        points, sentences = ["say that's all, nothing else in particular"], ["No, that's about it."]
    if "CRI-A" not in acts and state.dislikes and "PRO" in acts and rng.random() < 0.5:
        points.append(f"say you don't like {genre_word(state.dislikes[0])} {domain.plural}")
        sentences.append(f"Nothing {genre_word(state.dislikes[0])}, though.")
    titles = [example] if example else []
    keys = tuple(key for attribute, values in told.items() if attribute != "example" for value in values
                 for key in value_keys(value))
    return Decided(TurnContent(move="reveal", points=points, titles=titles), " ".join(sentences), told=told,
                   example=example, may_name=tuple(titles), say_any=keys)


def _verb(opinion: Opinion) -> str:
    """'loved' or 'liked': a liked item's verdict without its 'it'."""
    return opinion.verdict.replace(" it", "")


def _example_point(liked: Opinion) -> str:
    said = f' (in your words: "{liked.words}")' if liked.words else ""
    return f"say you {_verb(liked)} {liked.item.display}{said}"


def value_keys(value: str) -> tuple[str, ...]:
    """The words that say a told value: an era as its decade ('from the 1990s' -> '1990s', '90s'), a recent one
    as 'recent' or 'new', anything else as itself."""
    if value.startswith("from the "):
        decade = value.removeprefix("from the ")
        return (decade, decade[2:], f"'{decade[2:]}")
    if value == "a recent one":
        return ("recent", "new", "newer", "latest")
    return (value,)


def _want(attribute: str, values: Sequence[str], domain: Domain, rng: random.Random) -> tuple[str, str]:
    """(point, sentence) saying the seeker wants `values` of `attribute`."""
    if attribute == "genre":
        kind = kind_of(values, domain, "or")
        return f"say you want {kind}", rng.choice(GENRE_WANTS).format(kind=kind, when=domain.when)
    if attribute == "mood":
        return f"say you want something {joined(values)}", rng.choice(MOOD_WANTS).format(moods=joined(values))
    return f"say you would like one {values[0]}", rng.choice(ERA_WANTS).format(era=values[0])


def _question_topic(item: Item, rng: random.Random) -> str | None:
    """What the seeker asks about an offer, one the catalog's facts answer and the offer has not told (its kind
    it has): who is in it or what it is about, else whether it is any good (a critic's words); None where the
    catalog holds none of these."""
    plot = bool(plot_of(item))
    if people_of(item) and (rng.random() < 0.5 or not plot):
        return "people"
    return "plot" if plot else "opinion" if critic_of(item) else None


def _accept(item: Item, state: SeekerState, domain: Domain, rng: random.Random) -> Decided:
    """Yes to the target, naming what matched what it wants; it has never seen it."""
    genres = [g.lower() for g in item.genres if g.lower() in state.wants.genres] or [g.lower() for g in item.genres]
    why = kind_of(genres[:2], domain).split(" ", 1)[1]
    reason = rng.choice((f"say why it appeals to you: it is {why}", f"say it sounds like what you hoped for: {why}",
                         f"say what you like about it: {why}"))
    points = [f"say yes, you will {domain.verb} {item.display}", reason]
    a_why = with_article(why)
    template = rng.choice(ACCEPTS).format(title=item.title, why=why, a_why=a_why, A_why=a_why[0].upper() + a_why[1:],
                                          verb=domain.verb, when=domain.when)
    return Decided(TurnContent(move="accept", points=points, titles=[item.display]), template, item=item, accept=True, may_name=(item.display,), say_any=tuple(genres[:2]))


def _decline(
    acts: Sequence[str], item: Item, state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random
) -> Decided:
    """No to a suggestion that is not the target, with the reason its state gives: seen it (and its own
    opinion), a genre it dislikes, not the genre it wants, another era, else a mood it wants more of."""
    genres = [g.lower() for g in item.genres]
    seen = state.opinion(item.id)
    if seen is not None:
        said = f': "{seen.words}"' if seen.words else ""
        points = [f"say you have already {domain.seen} {item.display} and you {seen.verdict}{said}"]
        template = rng.choice(SEEN_DECLINES).format(seen=domain.seen, title=item.title, verdict=seen.verdict)
        keys: tuple[str, ...] = SEEN_KEYS
        told: dict[str, tuple[str, ...]] = {}
        if seen.liked:
            points.append(f"say you want something you have not {domain.seen}")
            template += f" Something I haven't {domain.seen} would be better."
    elif disliked := [g for g in genres if g in state.dislikes]:
        points = [f"say no to {item.display}: you don't like {genre_word(disliked[0])} {domain.plural}"]
        template = f"Hmm, {item.title} isn't for me: I don't really like {genre_word(disliked[0])} {domain.plural}."
        keys = (disliked[0],)
        told = {}
    elif state.wants.genres and not set(genres) & set(state.wants.genres):
        wanted = kind_of(state.wants.genres[:2], domain, "or")
        points = [f"say no to {item.display}: you want {wanted}, and it is not one"]
        template = rng.choice(NOT_WANTED).format(title=item.title, wanted=wanted)
        keys = state.wants.genres[:2]
        told = {"genre": keys}
    elif missing := [g for g in state.wants.genres if g not in genres]:
        points = [f"say no to {item.display}: you would like it to be more of {kind_of(missing[:1], domain)}"]
        template = _not_quite(item, f"I'd like something more like {kind_of(missing[:1], domain)}", rng)
        keys = (missing[0],)
        told = {"genre": keys}
    elif state.wants.era and item.year and era_of(item.year) != state.wants.era:
        points = [f"say no to {item.display}: you would rather have one {state.wants.era}"]
        template = _not_quite(item, f"I'd rather have one {state.wants.era}", rng)
        keys = value_keys(state.wants.era)
        told = {"era": (state.wants.era,)}
    else:
        more = next((m for m in state.wants.moods if m not in item.description.lower()), None)
        reason = f"you want something more {more}" if more else f"it is not quite what you are after {domain.when}"
        points = [f"say no to {item.display}: {reason}"]
        template = _not_quite(item, f"I want something more {more}" if more else f"not what I'm after {domain.when}", rng)
        keys = (more,) if more else ()
        told = {"mood": keys} if more else {}
    if any(code in acts for code in ("CON", "REF", "STO")):
        points.append("ask for another suggestion")
        template += " Anything else?"
    return Decided(TurnContent(move="decline", points=points, titles=[item.display]), template, item=item,
                   accept=False, may_name=(item.display,), say_any=keys, told=told, seen=seen is not None)


def _not_quite(item: Item, reason: str, rng: random.Random) -> str:
    """A decline's sentence for an offer that is near, but not it: `reason` says what is missing."""
    return rng.choice(NOT_QUITE).format(title=item.title, reason=reason)
