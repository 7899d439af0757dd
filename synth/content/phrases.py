"""The words of decided contents: the ways the recommender asks about a taste and says why an offer fits, the
parts each template sentence is put together from (the turn's seed picks one of each, so that dialogues do not
all say the same), and the words that show a reply said a question's attribute or topic (verification reads
them)."""

import random
import re
from collections.abc import Sequence

from synth.content.facts import joined

ASK_KEYS = {  # words one of which a question about the attribute says
    "genre": ("genre", "kind", "type", "sort"), "mood": ("mood", "feel", "vibe", "tone", "something"),
    "era": ("old", "older", "recent", "new", "newer", "classic", "decade", "era", "year"),
    "example": ("loved", "love", "favorite", "favourite", "liked", "enjoyed"),
    "more": ("else", "anything", "more", "other"),
    "avoid": ("avoid", "skip", "rather not", "stay away"),
    "people": ("actor", "actors", "director", "anyone", "star", "cast"),
}
SEEN_KEYS = ("seen", "watched", "saw")
QUOTED_WORDS = 8  # a liked movie's own words quoted in the seeker's example at most
FOLLOW_UPS = ("avoid", "people", "more")  # what the recommender asks, in this order, once it has asked of every attribute
NO_PREFERENCE_KEYS = ("particular", "preference", "in mind", "whatever", "anything", "not sure", "open", "don't mind")
NO_PREFERENCE = {"genre": "genre", "mood": "mood", "era": "decade", "example": "favorite"}
TOPIC_KEYS = {"plot": ("about", "plot", "story", "what"), "people": ("who", "star", "cast", "actor", "direct"),
              "opinion": ("good", "worth", "think", "critics", "like")}
ASK_TOPICS = {  # attribute -> ways (point, template) of the recommender's question about it; the turn's seed picks one
    "genre": (("ask which genre of {noun} they are in the mood for", "What kind of {noun} are you in the mood for?"),
              ("ask what sort of {plural} they usually go for", "What sort of {plural} do you usually go for?"),
              ("ask which kind of {noun} they feel like {when}", "Which kind of {noun} do you feel like {when}?"),
              ("ask what kind of {plural} they like", "What kind of {plural} do you like?"),
              ("ask whether they have a genre in mind", "Any genre in mind?")),
    "mood": (("ask what mood or feel they want the {noun} to have", "What sort of mood are you after {when}?"),
             ("ask whether they want something light or something heavier", "Something light, or something heavier?"),
             ("ask what feel they are hoping for", "What kind of feel are you hoping for?"),
             ("ask whether they want something fun or something serious", "Something fun, or more serious?")),
    "era": (("ask whether they want an older {noun} or a recent one", "Do you want something older, or more recent?"),
            ("ask whether a classic or something new suits them better", "A classic, or something new?"),
            ("ask whether the year matters to them", "Any preference on how old it is?"),
            ("ask whether they like older {plural} or newer ones", "Do you like older {plural} or newer ones?")),
    "example": (("ask them for one {noun} they loved", "What's one {noun} you really loved?"),
                ("ask for a favorite {noun} of theirs", "Got a favorite {noun}?"),
                ("ask which {noun} they enjoyed lately", "Enjoyed any {plural} lately?"),
                ("ask for a {noun} they liked a lot", "What's a {noun} you liked a lot?")),
    "more": (("ask whether there is anything else they want in it", "Anything else you'd like in it?"),
             ("ask whether there is anything else they are hoping for", "Anything else you're hoping for?")),
    "avoid": (("ask whether there is anything they would rather avoid", "Anything you'd rather avoid?"),
              ("ask whether there is anything they would rather skip", "Anything you'd rather skip?")),
    "people": (("ask whether they have a favorite actor or director", "Any actor or director you especially like?"),
               ("ask whether anyone in particular should be in it", "Anyone you'd like to see in it?")),
}
# the recommender's few words on what it was just told (no "Nice.": it may follow a no)
NODS = ("Got it.", "Okay.", "Good to know.", "Alright.", "I see.")
# ways of saying why an offer fits, what it is ('{why}'), where it matches what was said or not
FITS = ("say it fits because it is {why}", "say it is {why}, just what they asked for", "say it matches: {why}")
IS = ("say it is {why}", "mention that it is {why}", "describe it briefly as {why}")
# words too plain to show that an answer said what a movie is about
PLAIN_WORDS = frozenset({"about", "after", "their", "there", "where", "which", "while", "would", "could", "other",
                         "these", "those", "being", "story", "movie", "film", "films", "movies", "young", "years"})

# ways of saying a template sentence, so that dialogues do not all say the same: the turn's seed picks one (of
# each part, where a sentence is put together from parts), and str.format fills the named fields
OFFER_OPENINGS = ("How about {title}?", "You might like {title}.", "Maybe {title}?", "Try {title}.",
                  "What about {title}?", "I'd suggest {title}.", "Here's one: {title}.", "Consider {title}.")
OFFER_SEEN_OPENINGS = ("Have you {seen} {title}?", "Ever {seen} {title}?", "Do you know {title}?",
                       "Have you {seen} {title} yet?", "{Seen} {title}?")
OFFER_BODIES = ("It's {why}.", "It's {why}, right up your alley.", "{Why}, just what you asked for.",
                "That one's {why}.", "It's {why}, and a good one.")
UNMET_BODIES = ("It isn't {unmet}, but it's {why}.", "Not {unmet}, I know, but it's {why}.",
                "It's {why} rather than {unmet}, but worth a look.")
ACCEPT_OPENERS = ("Yes!", "Oh, nice.", "Ooh.", "That sounds good.", "Sounds great!", "Oh, I like that.", "")
ACCEPT_BODIES = ("It sounds like just the {why} I wanted.", "{A_why}, that's exactly what I was after.",
                 "{A_why} is just right.", "{A_why} is what I was hoping for.",
                 "That's just the kind of {why} I wanted.")
ACCEPT_CLOSERS = ("I'll {verb} {title} {when}.", "I'll go with {title}.",
                  "{title} it is, then.", "I'll give {title} a go {when}.")
CLOSES = ("Great choice. Enjoy {title} {when}!", "Enjoy {title} {when}!", "Have fun with {title}!",
          "Glad I could help. Enjoy {title}!", "Enjoy! I hope you like {title}.", "Happy to help, enjoy {title}!",
          "Enjoy {title}, and have a good night!")
GENRE_WANTS = ("I'm in the mood for {kind}.", "I'd like {kind} {when}.", "I feel like {kind} {when}.",
               "I'm looking for {kind}.", "Could go for {kind} {when}.", "Mostly {kind}, I think.")
MOOD_WANTS = ("Something {moods} would be perfect.", "I'd like something {moods}.", "Ideally something {moods}.",
              "Something {moods}, if you can.", "I'm after something {moods}.")
ERA_WANTS = ("Ideally {one}.", "Preferably {one}.", "{One} would be nice.", "I'd go for {one}.",
             "{One}, if possible.")
EXAMPLES = ("I {verdict} {title}{said}", "{title} is one I {verdict}{said}", "I really {verdict} {title}{said}")
SEEN_DECLINES = ("I've already {seen} {title}, and I {verdict}.", "Oh, I've {seen} {title} already. I {verdict}.",
                 "Seen {title} already, and I {verdict}.")
NOT_WANTED = ("Not {title}, I think: I'm after {wanted}.", "Hmm, I'd rather have {wanted} than {title}.",
              "{title} doesn't sound like {wanted}, which is what I'm after.",
              "I'll pass on {title}. I really want {wanted}.")
NOT_QUITE = ("{title} isn't quite it: {reason}.", "Hmm, not {title}: {reason}.", "I don't think {title} is it: {reason}.",
             "I'll pass on {title}, {reason}.")
# a no for a genre the seeker dislikes, which the offer may not have named ("It's a comedy movie." of a comedy drama)
DISLIKED = ("Not {title}: it's {kind} as well, and I don't really like {plural}.",
            "{title} is {kind} as well, and I don't really like {plural}.",
            "I'll pass on {title}: it's {kind} too, and I don't really like {plural}.")
ANOTHER = ("Anything else?", "Got another one?", "What else have you got?", "Any other ideas?")


def say_one(rng: random.Random, *parts: Sequence[str], **fields: str) -> str:
    """One way of saying a sentence put together from `parts` (one of each, the seed's pick), fields filled;
    '{Why}' style fields, capitalised, come free with each lower-case one."""
    capitalised = {name[0].upper() + name[1:]: value[:1].upper() + value[1:] for name, value in fields.items()}
    return " ".join(filter(None, (rng.choice(part).format(**fields, **capitalised) for part in parts)))


def title_of(display: str) -> str:
    """A title as shown with its year ('Heat (1995)') as a person says it ('Heat')."""
    return re.sub(r" \(\d{4}\)$", "", display)


def in_own_words(words: str) -> str:
    """The end of 'I loved Heat': its own sentence quoted, its mood words said (', so tense and lean.'), or '.'."""
    parts = words.split(", ")
    if not words:
        return "."
    if all(len(part.split()) <= 2 for part in parts):
        return f", so {joined(parts)}."
    # a short sentence of its own quoted; a longer one, or one cut short, reads as a review pasted into the chat
    return f': "{words}"' if len(words.split()) <= QUOTED_WORDS and "..." not in words and "…" not in words else "."


def decade_forms(decade: str) -> tuple[str, ...]:
    """The ways a reply says a decade: '1990s', '90s', "'90s"."""
    return (decade, decade[2:], f"'{decade[2:]}")


def one_of(era: str) -> str:
    """An era as what the seeker would like: 'one from the 1990s', 'a recent one'."""
    return era if era.startswith("a ") else f"one {era}"
