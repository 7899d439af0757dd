"""The seeker's decided content (synth.content.decide has the recommender's): from its state and the ledger,
what it tells when asked, how it answers a suggestion (a question about it, a yes to its target naming what
matched, a no with the reason its state gives), and the template sentence that says each."""

from __future__ import annotations

import random
from collections.abc import Sequence

from synth.content.decide import Decided
from synth.content.facts import (
    critic_of,
    genre_word,
    joined,
    kind_of,
    kind_said,
    kinds,
    kinds_of,
    people_of,
    plot_of,
    with_article,
)
from synth.content.phrases import (
    ACCEPT_ANYWAY,
    ACCEPT_BODIES,
    ACCEPT_CLOSERS,
    ACCEPT_OPENERS,
    ANOTHER,
    DISLIKED,
    ELSE,
    ERA_WANTS,
    EXAMPLES,
    GENRE_WANTS,
    GREETINGS,
    MOOD_WANTS,
    MORE_OF,
    NO_PREFERENCE,
    NO_PREFERENCE_KEYS,
    NO_PREFERENCES,
    NOBODY,
    NOBODY_KEYS,
    NOT_QUITE,
    NOT_WANTED,
    NOTHING_AVOIDED,
    NOTHING_AVOIDED_KEYS,
    NOTHING_MORE,
    SEEN_DECLINES,
    SEEN_KEYS,
    THANKS,
    TOPIC_KEYS,
    decade_forms,
    in_own_words,
    one_of,
    say_one,
)
from synth.content.state import ATTRIBUTES, Ledger, Opinion, SeekerState
from synth.domain import Domain
from synth.records import Item, TurnContent
from synth.target_hints import era_of

GREETING_SHARE = 0.7  # of first replies that say hello back (most of ReDial's seekers do)


def seeker_content(
    acts: Sequence[str] | None, state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random, *,
    recommended: Item | None = None, inquire: bool = False, greet: bool = False,
) -> Decided:
    """The seeker's turn: with no suggestion to answer, it tells what it wants (what it was asked, else what it
    has not told; it may say hello first where it `greet`s: its first words after the recommender's greeting);
    asked to `inquire`, it asks one question about `recommended`; else it reacts to it (acts: the planned IARD
    codes; None, an unplanned course's: ('PRO',) without a suggestion, else ('REJ', 'CON'))."""
    if acts is None:
        acts = ("PRO",) if recommended is None else ("REJ", "CON")
    if recommended is None:
        decided = _reveal(acts, state, ledger, domain, rng)
        if greet and rng.random() < GREETING_SHARE:
            decided.content.points.insert(0, "say hello")
            decided.template = f"{rng.choice(GREETINGS)} {decided.template}"
        return decided
    if inquire and (topic := _question_topic(recommended, ledger.said_of.get(recommended.id, ()), rng)):
        point, template = {
            "people": (f"ask who is in {recommended.title}", f"Who's in {recommended.title}?"),
            "plot": (f"ask what {recommended.title} is about", f"What's {recommended.title} about?"),
            "opinion": (f"ask whether {recommended.title} is any good", f"Is {recommended.title} any good?"),
        }[topic]
        return Decided(TurnContent(move="inquire", points=[point, "do not say yet whether you want it"],
                                   titles=[recommended.display]), template, item=recommended, question=True,
                       may_name=(recommended.display,), asks_about=topic, say_any=TOPIC_KEYS[topic])
    if recommended.id == state.target_id:
        return _accept(recommended, state, ledger, domain, rng)
    return _decline(acts, recommended, state, ledger, domain, rng)


def _reveal(acts: Sequence[str], state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random) -> Decided:
    """Tell the attribute just asked about (else the first one untold, two at the opening), with a liked
    example where the move speaks of its taste (PRO)."""
    if ledger.asked and ledger.asked[-1] == "avoid" and "avoid" not in ledger.told:
        return _avoid(state, domain, rng)
    if ledger.asked and ledger.asked[-1] == "people" and "people" not in ledger.told:  # its state names nobody
        return Decided(TurnContent(move="reveal", points=["say there is no one in particular you want in it"]),
                       rng.choice(NOBODY), told={"people": ()}, say_any=NOBODY_KEYS)
    untold = ledger.untold(state)
    asked = ledger.asked[-1] if ledger.asked and ledger.asked[-1] in ATTRIBUTES else None
    points: list[str] = []
    sentences: list[str] = []
    told: dict[str, tuple[str, ...]] = {}
    if asked is not None and asked not in ledger.told and not state.knows(asked):  # nothing to tell: no preference
        told[asked] = ()
        points.append(f"say you have no particular {NO_PREFERENCE[asked]} in mind")
        sentences.append(say_one(rng, NO_PREFERENCES, it=NO_PREFERENCE[asked]))
    attributes = [asked] if asked in untold else untold[:2] if not ledger.told else untold[:1]
    if "PRO" in acts and "example" not in attributes and "example" in untold:
        attributes.append("example")
    example = None
    for attribute in attributes:
        if attribute == "example":
            liked = next(o for o in state.liked if o.item.display not in ledger.examples)
            example = liked.item.display
            points.append(_example_point(liked))
            sentences.append(say_one(rng, EXAMPLES, verdict=_verb(liked), title=liked.item.title,
                                      said=in_own_words(liked.words)))
            told["example"] = (liked.item.display,)
            continue
        values = state.wants.values(attribute)[:2]
        told[attribute] = values
        point, sentence = _want(attribute, values, domain, rng)
        points.append(point)
        sentences.append(sentence)
    if not points:  # everything told: nothing more to want
        points, sentences = ["say that's all, nothing else in particular"], [rng.choice(NOTHING_MORE)]
    if "CRI-A" not in acts and state.dislikes and "PRO" in acts and "avoid" not in ledger.told and rng.random() < 0.5:
        points.append(f"say you don't like {genre_word(state.dislikes[0])} {domain.plural}")
        sentences.append(f"Nothing {genre_word(state.dislikes[0])}, though.")
        told["avoid"] = state.dislikes[:1]
    titles = [example] if example else []
    keys = tuple(key for attribute, values in told.items() if attribute != "example" for value in values
                 for key in value_keys(value))
    if asked is not None and told.get(asked) == ():  # its one news is having none: the words must say so
        keys = NO_PREFERENCE_KEYS
    return Decided(TurnContent(move="reveal", points=points, titles=titles), " ".join(sentences), told=told,
                   example=example, may_name=tuple(titles), say_any=keys)


def _avoid(state: SeekerState, domain: Domain, rng: random.Random) -> Decided:
    """The answer to what it would rather avoid: the genre it dislikes most, else nothing in particular."""
    if not state.dislikes:
        return Decided(TurnContent(move="reveal", points=["say there is nothing in particular you want to avoid"]),
                       rng.choice(NOTHING_AVOIDED), told={"avoid": ()}, say_any=NOTHING_AVOIDED_KEYS)
    disliked = genre_word(state.dislikes[0])
    return Decided(TurnContent(move="reveal", points=[f"say you would rather avoid {disliked} {domain.plural}"]),
                   f"I'd rather avoid {disliked} {domain.plural}.", told={"avoid": state.dislikes[:1]},
                   say_any=state.dislikes[:1])


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
        return decade_forms(value.removeprefix("from the "))
    if value == "a recent one":
        return ("recent", "new", "newer", "latest")
    return (value,)


def _want(attribute: str, values: Sequence[str], domain: Domain, rng: random.Random) -> tuple[str, str]:
    """(point, sentence) saying the seeker wants `values` of `attribute`."""
    if attribute == "genre":
        kind = kind_of(values, domain, "or")
        return f"say you want {kind}", say_one(rng, GENRE_WANTS, kind=kind, kind_bare=kind.split(" ", 1)[1],
                                               kinds=kinds_of(values, domain), when=domain.when, verb=domain.verb)
    if attribute == "mood":
        return f"say you want something {joined(values)}", say_one(rng, MOOD_WANTS, moods=joined(values),
                                                                    plural=domain.plural)
    one = one_of(values[0], rng)
    return f"say you would like {one}", say_one(rng, ERA_WANTS, one=one)


def _question_topic(item: Item, said: Sequence[str], rng: random.Random) -> str | None:
    """What the seeker asks about an offer, one the catalog's facts answer and the offer has not `said` (its kind
    it has): who is in it or what it is about, else whether it is any good (a critic's words); None where the
    catalog holds none of these, or the offer said them all."""
    plot = bool(plot_of(item)) and "plot" not in said
    if people_of(item) and "people" not in said and (rng.random() < 0.5 or not plot):
        return "people"
    return "plot" if plot else "opinion" if critic_of(item) and "opinion" not in said else None


def _accept(item: Item, state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random) -> Decided:
    """Yes to the target, naming what matched what it wants (where no genre did, or it is not of the era the seeker
    told, a GoRecDial target drawn from its set, that it is not what it asked for); it has never seen it."""
    wanted = [g.lower() for g in item.genres if g.lower() in state.wants.genres]
    genres = wanted or kinds(item.genres)
    why = kind_of(genres[:3], domain).split(" ", 1)[1]  # every genre it wants the target has: the reason it
    # turned others down was one of them
    told_era = ledger.told.get("era", ())
    other_era = next((era for era in told_era if item.year and era_of(item.year) != era), None)
    fits = wanted and not other_era
    reason = rng.choice((f"say why it appeals to you: it is {why}", f"say it sounds like what you hoped for: {why}",
                         f"say what you like about it: {why}") if fits else
                        (f"say it is not what you asked for ({other_era}), but {why} sounds good to you" if other_era
                         else f"say it is not what you asked for, but {why} sounds good to you",))
    points = [f"say yes, you will {domain.verb} {item.display}", reason, "thank them"]
    template = say_one(rng, ACCEPT_OPENERS if fits else ("",), ACCEPT_BODIES if fits else ACCEPT_ANYWAY,
                       ACCEPT_CLOSERS, THANKS, title=item.title, why=why,
                       a_why=with_article(why), verb=domain.verb, when=domain.when)
    return Decided(TurnContent(move="accept", points=points, titles=[item.display]), template, item=item, accept=True, may_name=(item.display,), say_any=tuple(genres[:2]))


def _decline(
    acts: Sequence[str], item: Item, state: SeekerState, ledger: Ledger, domain: Domain, rng: random.Random
) -> Decided:
    """No to a suggestion that is not the target, with the reason its state gives: seen it (and its own
    opinion), a genre it dislikes, not the genre it wants, another era, else a mood it wants more of."""
    genres = kinds(item.genres)
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
        template = say_one(rng, DISLIKED, title=item.title, kind=kind_of(disliked[:1], domain),
                           plural=kinds_of(disliked[:1], domain))
        keys = (disliked[0],)
        told = {"avoid": (disliked[0],)}
    elif state.wants.genres and not set(genres) & set(state.wants.genres):
        wanted = kind_of(state.wants.genres[:2], domain, "or")
        points = [f"say no to {item.display}: you want {wanted}, and it is not one"]
        template = rng.choice(NOT_WANTED).format(title=item.title, wanted=wanted)
        keys = state.wants.genres[:2]
        told = {"genre": keys}
    elif missing := [g for g in state.wants.genres if g not in genres]:
        points = [f"say no to {item.display}: you would like it to be more of {kind_of(missing[:1], domain)}"]
        template = _not_quite(item, say_one(rng, MORE_OF, kind=kind_said(missing[:1], domain, rng)), rng)
        keys = (missing[0],)
        told = {"genre": keys}
    elif state.wants.era and item.year and era_of(item.year) != state.wants.era:
        points = [f"say no to {item.display}: you would rather have {one_of(state.wants.era)}"]
        template = _not_quite(item, f"I'd rather have {one_of(state.wants.era, rng)}", rng)
        keys = value_keys(state.wants.era)
        told = {"era": (state.wants.era,)}
    else:
        more = next((m for m in state.wants.moods if m not in item.description.lower()), None)
        reason = f"you want something more {more}" if more else f"it is not quite what you are after {domain.when}"
        points = [f"say no to {item.display}: {reason}"]
        template = _not_quite(item, f"I want something more {more}" if more else say_one(rng, ELSE, when=domain.when), rng)
        keys = (more,) if more else ()
        told = {"mood": keys} if more else {}
    if any(code in acts for code in ("CON", "REF", "STO")):
        points.append("ask for another suggestion")
        template += " " + rng.choice(ANOTHER)
    return Decided(TurnContent(move="decline", points=points, titles=[item.display]), template, item=item,
                   accept=False, may_name=(item.display,), say_any=keys, told=told, seen=seen is not None)


def _not_quite(item: Item, reason: str, rng: random.Random) -> str:
    """A decline's sentence for an offer that is near, but not it: `reason` says what is missing."""
    return say_one(rng, NOT_QUITE, title=item.title, reason=reason)
