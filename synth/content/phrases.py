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
NO_PREFERENCE_KEYS = ("particular", "preference", "in mind", "whatever", "anything", "not sure", "open", "don't mind",
                      "picky", "matter", "anyone")
NO_PREFERENCE = {"genre": "genre", "mood": "mood", "era": "decade", "example": "favorite"}
# no one in particular to see, nothing to avoid: the words must say it of people, of what to skip (round 13's readers:
# "I don't have a particular movie in mind" for the first, "I'd rather not watch anything" for the second)
NOBODY_KEYS = ("no one", "nobody", "anyone", "anybody", "someone")
NOTHING_AVOIDED_KEYS = ("nothing", "no", "not really", "open")
TOPIC_KEYS = {"plot": ("about", "plot", "story", "what"), "people": ("who", "star", "cast", "actor", "direct"),
              "opinion": ("good", "worth", "think", "critics", "like")}
ASK_TOPICS = {  # attribute -> ways (point, template) of the recommender's question about it; the turn's seed picks one
    "genre": (("ask which genre of {noun} they are in the mood for", "What kind of {noun} are you in the mood for?"),
              ("ask what sort of {plural} they usually go for", "What sort of {plural} do you usually go for?"),
              ("ask which kind of {noun} they feel like {when}", "Which kind of {noun} do you feel like {when}?"),
              ("ask what kind of {plural} they like", "What kind of {plural} do you like?"),
              ("ask whether they have a genre in mind", "Any genre in mind?"),
              ("ask what kind of {plural} they enjoy", "What kind of {plural} do you enjoy?"),
              ("ask which genres they like", "What genres do you like?"),
              ("ask whether they have a favorite genre", "Do you have a favorite genre?"),
              ("ask what type of {noun} sounds good {when}", "What type of {noun} sounds good {when}?")),
    "mood": (("ask what mood or feel they want the {noun} to have", "What sort of mood are you after {when}?"),
             ("ask whether they want something light or something heavier", "Something light, or something heavier?"),
             ("ask what feel they are hoping for", "What kind of feel are you hoping for?"),
             ("ask whether they want something fun or something serious", "Something fun, or more serious?"),
             ("ask whether they are in the mood for something light or something dark",
              "Are you in the mood for something light or something dark?"),
             ("ask what vibe they are going for", "What kind of vibe are you going for?"),
             ("ask whether they have a mood in mind {when}", "Any particular mood {when}?")),
    "era": (("ask whether they want an older {noun} or a recent one", "Do you want something older, or more recent?"),
            ("ask whether a classic or something new suits them better", "A classic, or something new?"),
            ("ask whether the year matters to them", "Any preference on how old it is?"),
            ("ask whether they like older {plural} or newer ones", "Do you like older {plural} or newer ones?"),
            ("ask whether old or new matters to them", "Old or new, does it matter?"),
            ("ask whether there is an era they like best", "Any era you like best?"),
            ("ask whether they prefer a classic or a recent one", "Classic or recent?")),
    "example": (("ask them for one {noun} they loved", "What's one {noun} you really loved?"),
                ("ask for a favorite {noun} of theirs", "Got a favorite {noun}?"),
                ("ask which {noun} they enjoyed lately", "Enjoyed any {plural} lately?"),
                ("ask for a {noun} they liked a lot", "What's a {noun} you liked a lot?"),
                ("ask for their favorite {noun}", "What's your favorite {noun}?"),
                ("ask them to name a {noun} they really liked", "Tell me a {noun} you really liked."),
                ("ask which {plural} they have loved", "Which {plural} have you loved?")),
    "more": (("ask whether there is anything else they want in it", "Anything else you'd like in it?"),
             ("ask whether there is anything else they are hoping for", "Anything else you're hoping for?"),
             ("ask whether there is anything more you should know", "Anything more I should know?")),
    "avoid": (("ask whether there is anything they would rather avoid", "Anything you'd rather avoid?"),
              ("ask whether there is anything they would rather skip", "Anything you'd rather skip?"),
              ("ask whether there is a kind they would rather avoid", "Any kind of {noun} you'd rather avoid?")),
    "people": (("ask whether they have a favorite actor or director", "Any actor or director you especially like?"),
               ("ask whether anyone in particular should be in it", "Anyone you'd like to see in it?"),
               ("ask whether there is an actor they always enjoy", "Is there an actor you always enjoy?")),
}
# the recommender's few words on what it was just told (no "Nice.": it may follow a no)
NODS = ("Got it.", "Okay.", "Good to know.", "Alright.", "I see.", "Sure.", "Ah, okay.", "Makes sense.", "Fair enough.",
        "Understood.", "Okay, cool.", "Right.")
# ways of saying why an offer fits, what it is ('{why}'), where it matches what was said or not
FITS = ("say it fits because it is {why}", "say it is {why}, just what they asked for", "say it matches: {why}")
IS = ("say it is {why}", "mention that it is {why}", "describe it briefly as {why}")
# words too plain to show that an answer said what a movie is about
PLAIN_WORDS = frozenset({"about", "after", "their", "there", "where", "which", "while", "would", "could", "other",
                         "these", "those", "being", "story", "movie", "film", "films", "movies", "young", "years"})

# ways of saying a template sentence, so that dialogues do not all say the same: the turn's seed picks one (of
# each part, where a sentence is put together from parts), and str.format fills the named fields
OFFER_OPENINGS = ("How about {title}?", "I recommend {title}.", "I would recommend {title}.", "You might like {title}.",
                  "Maybe {title}?", "Try {title}.", "What about {title}?", "I'd suggest {title}.", "Here's one: {title}.",
                  "Consider {title}.", "You should check out {title}.", "Have a look at {title}.",
                  "I think you'd like {title}.", "{title} comes to mind.", "{title} might be the one.",
                  "Oh, {title} could work.", "Give {title} a try.", "Let me suggest {title}.")
OFFER_SEEN_OPENINGS = ("Have you {seen} {title}?", "Ever {seen} {title}?", "Do you know {title}?",
                       "Have you {seen} {title} yet?", "{Seen} {title}?", "Have you ever {seen} {title}?",
                       "Do you know {title} at all?", "Have you {seen} {title} before?")
OFFER_BODIES = ("It's {why}.", "It's {why}, right up your alley.", "{Why}, just what you asked for.",
                "That one's {why}.", "It's {why}, and a good one.", "It's {why}. I think you'd enjoy it.",
                "It's {why}, which sounds like your thing.", "It should hit the spot: {why}.",
                "{Why}, which is what you wanted.", "It's {why}, so it should suit you.",
                "It's {why}, and really good.", "It's {why}. It's a great one.", "I think it's a good one: {why}.")
UNMET_BODIES = ("It isn't {unmet}, but it's {why}.", "Not {unmet}, I know, but it's {why}.",
                "It's not {unmet}, I'm afraid, but it's {why} and worth a look.", "It's not {unmet}, but it is {why}.",
                "It isn't {unmet}, though it's {why}, so it might still work.")
# (round 15's readers stopped at "It's {why} rather than {unmet}, but worth a look" and "It's {why}; not {unmet}, but
# it might still work": both read as if what it is not were the reason to watch it)
ACCEPT_OPENERS = ("Yes!", "Oh, nice.", "Ooh.", "That sounds good.", "Sounds great!", "Oh, I like that.", "",
                  "Oh, perfect.", "That's great!", "Nice!", "Oh yes!", "Awesome!", "Great idea!")
ACCEPT_BODIES = ("It sounds like just the {why} I wanted.", "{A_why}, that's exactly what I was after.",
                 "{A_why} is just right.", "{A_why} is what I was hoping for.",
                 "That's just the kind of {why} I wanted.", "{A_why} sounds perfect.",
                 "Just the {why} I was looking for.", "{A_why} is exactly my thing.")
# a yes to a target of none of the genres it asked for (a GoRecDial seeker's target is drawn from its set, not from
# what it said): no "exactly what I was after"
ACCEPT_ANYWAY = ("Not what I asked for, but {a_why} sounds good.", "Hmm, {a_why}. Sure, why not.",
                 "It's not quite what I had in mind, but {a_why} works for me.", "I'm up for {a_why} after all.")
ACCEPT_CLOSERS = ("I'll {verb} {title} {when}.", "I'll go with {title}.",
                  "{title} it is, then.", "I'll give {title} a go {when}.", "I'll check out {title}.",
                  "I'm going to {verb} {title}.", "I'll definitely {verb} {title}.",
                  "I think I'll {verb} {title}.",
                  "I'll put {title} on {when}.", "I'll check {title} out, it sounds good.")
THANKS = ("Thanks!", "Thank you!", "Thanks so much!", "Thanks for the help!", "Thank you, that helps.",
          "Thanks a lot!")
# a goodbye after the seeker's yes, which thanked them (THANKS)
CLOSES = ("Great choice. Enjoy {title} {when}!", "No problem! Enjoy {title}, bye!", "Bye! I think you'll like it.",
          "Enjoy {title} {when}!", "Have fun with {title}!", "Glad I could help. Enjoy {title}!",
          "Enjoy! I hope you like {title}.", "Happy to help, enjoy {title}!",
          "Enjoy {title}, and have a good night!", "You're welcome! Enjoy {title}.",
          "My pleasure. Enjoy {title} {when}!", "Anytime! I hope you love {title}.", "No problem, enjoy {title}!",
          "Have a great time with {title}!", "Bye, and enjoy {title}!", "You're welcome, have a good one!")
# a goodbye's words that wish the seeker well: one of them must be said ("Some Like It Hot!" alone is no goodbye)
CLOSE_KEYS = ("enjoy", "enjoyed", "hope", "fun", "have a", "good", "great", "bye", "welcome", "pleasure", "glad", "anytime",
              "happy")
# the seeker's hello where it speaks first after the recommender's greeting (none: it may also start right away)
GREETINGS = ("Hi!", "Hello!", "Hey!", "Hi there!", "Hello there!", "Hey, thanks!", "Hi, thanks for helping!")
GENRE_WANTS = ("I'm in the mood for {kind}.", "I'd like {kind} {when}.", "I feel like {kind}.",
               "I'm looking for a good {kind_bare}.", "I need a good {kind_bare}.", "I'd like to see a good {kind_bare}.",
               "I'm looking for {kind}.", "Could go for {kind} {when}.", "Mostly {kind}, I think.",
               "I like {kinds}.", "I'm into {kinds}.", "I love {kinds}, so maybe one of those.",
               "I'm hoping to find {kind}.", "I want to {verb} {kind} {when}.", "I'd love {kind}.",
               "{Kinds} are my favorite.", "I usually go for {kinds}.")
MOOD_WANTS = ("Something {moods} would be perfect.", "I'd like something {moods}.", "Ideally something {moods}.",
              "Something {moods}, if you can.", "I'm after something {moods}.", "Maybe something {moods}.",
              "I like my {plural} {moods}.", "I want it to be {moods}.",
              "Preferably something {moods}.")
ERA_WANTS = ("Ideally {one}.", "Preferably {one}.", "{One} would be nice.", "I'd go for {one}.",
             "{One}, if possible.", "{One} would be great.", "I'd love {one}.", "I'm thinking {one}.")
EXAMPLES = ("I {verdict} {title}{said}", "{title} is one I {verdict}{said}", "I really {verdict} {title}{said}",
            "One I {verdict} was {title}{said}", "For example, I {verdict} {title}{said}",
            "I saw {title} and {verdict} it{said}")  # no "I also loved X": it reads as a second example
SEEN_DECLINES = ("I've already {seen} {title}, and I {verdict}.", "Oh, I've {seen} {title} already. I {verdict}.",
                 "Seen {title} already, and I {verdict}.", "I've {seen} {title} already, I {verdict}.",
                 "Already {seen} {title}. I {verdict}.", "Oh, {title}! I've {seen} it, and I {verdict}.")
NOT_WANTED = ("Not {title}, I think: I'm after {wanted}.", "Hmm, I'd rather have {wanted} than {title}.",
              "{title} doesn't sound like {wanted}, which is what I'm after.",
              "I'll pass on {title}. I really want {wanted}.", "I'd prefer {wanted}, not {title}.",
              "Not really feeling {title}. I want {wanted}.")
NOT_QUITE = ("{title} isn't quite it: {reason}.", "Hmm, not {title}: {reason}.", "I don't think {title} is it: {reason}.",
             "I'll pass on {title}, {reason}.", "I'm not sure {title} is it: {reason}.", "{title} isn't it for me: {reason}.",
             "Maybe not {title}. {Reason}.")
# a no for a genre the seeker dislikes, which the offer may not have named ("It's a comedy movie." of a comedy drama)
DISLIKED = ("Not {title}: it's {kind} as well, and I don't really like {plural}.",
            "{title} is {kind} as well, and I don't really like {plural}.",
            "I'll pass on {title}: it's {kind} too, and I don't really like {plural}.",
            "Hmm, {title} is {kind} too, and I'm not a fan of {plural}.",
            "I don't really like {plural}, and {title} is {kind} as well.")
NO_PREFERENCES = ("No particular {it} in mind.", "No {it} in particular.", "Hmm, no {it} in particular, I'm open.",
                  "Not really, no particular {it}.", "I'm not picky about that.", "Doesn't matter much to me.",
                  "Whatever you think is good.", "I'm open to anything, really.")
NOBODY = ("No one in particular, really.", "Nobody in particular.", "Not really, anyone is fine.",
          "Hmm, no one in particular.", "I'm open, anyone is fine.")
NOTHING_MORE = ("No, that's about it.", "No, that's all.", "Nope, that's it.", "That's everything, I think.",
                "Nothing else, really.")
NOTHING_AVOIDED = ("Nothing in particular.", "Not really, I'm open.", "No, nothing comes to mind.", "Not really, no.")
MORE_OF = ("I'd like something more like {kind}", "I was hoping for more of {kind}", "I'm really after {kind}",
           "I want {kind}, really")
CRITIC_SAYS = ('One critic wrote: "{critic}."', 'A critic said: "{critic}."', 'In one review: "{critic}."')
ELSE = ("I'm in the mood for something else", "it's just not for me", "it doesn't grab me",
        "I'd like something different", "it's not what I'm after {when}")
ANOTHER = ("Anything else?", "Got another one?", "What else have you got?", "Any other ideas?",
           "Any other suggestions?", "Do you have any others?", "What else would you suggest?", "Any more ideas?")


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


DECADE_WORDS = {"1920s": "twenties", "1930s": "thirties", "1940s": "forties", "1950s": "fifties", "1960s": "sixties",
                "1970s": "seventies", "1980s": "eighties", "1990s": "nineties"}


def decade_forms(decade: str) -> tuple[str, ...]:
    """The ways a reply says a decade: '1990s', '90s', "'90s", 'nineties' (the short ones for the 1900s only:
    '00s' says nothing)."""
    if not decade.startswith("19"):
        return (decade,)
    return (decade, decade[2:], f"'{decade[2:]}", *([DECADE_WORDS[decade]] if decade in DECADE_WORDS else []))


def era_said(era: str, rng: random.Random) -> str:
    """One way of saying an era, the seed's pick: 'from the 1990s', 'from the 90s', 'from the nineties'."""
    if not era.startswith("from the "):
        return era
    return f"from the {rng.choice(decade_forms(era.removeprefix('from the ')))}"


def one_of(era: str, rng: random.Random | None = None) -> str:
    """An era as what the seeker would like: 'one from the 1990s' (with `rng`, the seed's pick of 'one',
    'something' and 'anything', and of the decade's forms: 'something from the 90s'), 'a recent one'."""
    if era.startswith("a "):
        return era
    return f"{rng.choice(('one', 'something', 'anything'))} {era_said(era, rng)}" if rng else f"one {era}"
