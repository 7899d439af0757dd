"""The words of decided contents: the ways the recommender asks about a taste and says why an offer fits (the
turn's seed picks one, so that dialogues do not all say the same), and the words that show a reply said a
question's attribute or topic (verification reads them)."""

ASK_KEYS = {  # words one of which a question about the attribute says
    "genre": ("genre", "kind", "type", "sort"), "mood": ("mood", "feel", "vibe", "tone", "something"),
    "era": ("old", "older", "recent", "new", "newer", "classic", "decade", "era", "year"),
    "example": ("loved", "love", "favorite", "favourite", "liked", "enjoyed"),
    "more": ("else", "anything", "more", "other"),
}
SEEN_KEYS = ("seen", "watched", "saw")
NO_PREFERENCE = {"genre": "genre", "mood": "mood", "era": "decade", "example": "favorite"}
TOPIC_KEYS = {"plot": ("about", "plot", "story", "what"), "people": ("who", "star", "cast", "actor", "direct"),
              "opinion": ("good", "worth", "think", "critics", "like")}
ASK_TOPICS = {  # attribute -> ways (point, template) of the recommender's question about it; the turn's seed picks one
    "genre": (("ask which genre of {noun} they are in the mood for", "What kind of {noun} are you in the mood for?"),
              ("ask what sort of {plural} they usually go for", "What sort of {plural} do you usually go for?"),
              ("ask which kind of {noun} they feel like {when}", "Which kind of {noun} do you feel like {when}?")),
    "mood": (("ask what mood or feel they want the {noun} to have", "What sort of mood are you after {when}?"),
             ("ask whether they want something light or something heavier", "Something light, or something heavier?"),
             ("ask what feel they are hoping for", "What kind of feel are you hoping for?")),
    "era": (("ask whether they want an older {noun} or a recent one", "Do you want something older, or more recent?"),
            ("ask whether a classic or something new suits them better", "A classic, or something new?"),
            ("ask whether the year matters to them", "Any preference on how old it is?")),
    "example": (("ask them for one {noun} they loved", "What's one {noun} you really loved?"),
                ("ask for a favorite {noun} of theirs", "Got a favorite {noun}?"),
                ("ask which {noun} they enjoyed lately", "Enjoyed any {plural} lately?")),
    "more": (("ask whether there is anything else they want in it", "Anything else you'd like in it?"),
             ("ask whether there is anything they would rather avoid", "Anything you'd rather avoid?")),
}
NODS = ("Got it.", "Okay.", "Good to know.", "Alright.")  # the recommender's few words on what it was just told
# ways of saying why an offer fits, what it is ('{why}'), where it matches what was said or not
FITS = ("say it fits because it is {why}", "say it is {why}, just what they asked for", "say it matches: {why}")
IS = ("say it is {why}", "mention that it is {why}", "describe it briefly as {why}")
# words too plain to show that an answer said what a movie is about
PLAIN_WORDS = frozenset({"about", "after", "their", "there", "where", "which", "while", "would", "could", "other",
                         "these", "those", "being", "story", "movie", "film", "films", "movies", "young", "years"})

# ways of saying a template sentence, so that dialogues do not all say the same; the turn's seed picks one, and
# str.format fills the named fields
OFFER_OPENINGS = ("How about {title}?", "You might like {title}.", "Maybe {title}?", "Try {title}.")
OFFER_SEEN_OPENINGS = ("Have you {seen} {title}?", "Ever {seen} {title}?", "Do you know {title}?")
ACCEPTS = ("Yes! {title} sounds like just the {why} I wanted. I'll {verb} it.",
           "That's the one: {a_why}. I'll {verb} {title} {when}.",
           "Oh, {title} sounds great, {a_why} is just what I was after. I'll {verb} it.",
           "I'll go with {title}. {A_why} is exactly what I wanted.")
CLOSES = ("Great choice. Enjoy {title} {when}!", "Enjoy {title} {when}!", "Have fun with {title}!",
          "Glad I could help. Enjoy {title}!")
GENRE_WANTS = ("I'm in the mood for {kind}.", "I'd like {kind} {when}.", "I feel like {kind} {when}.")
MOOD_WANTS = ("Something {moods} would be perfect.", "I'd like something {moods}.", "Ideally something {moods}.")
ERA_WANTS = ("Ideally one {era}.", "Preferably one {era}.", "One {era} would be nice.")
SEEN_DECLINES = ("I've already {seen} {title}, and I {verdict}.", "Oh, I've {seen} {title} already. I {verdict}.")
NOT_WANTED = ("Not {title}, I think: I'm after {wanted}.", "Hmm, I'd rather have {wanted} than {title}.",
              "{title} doesn't sound like {wanted}, which is what I'm after.")
NOT_QUITE = ("{title} isn't quite it: {reason}.", "Hmm, not {title}: {reason}.", "I don't think {title} is it: {reason}.")
