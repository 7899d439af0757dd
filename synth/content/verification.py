"""Whether a worded reply says its decided content and nothing the content does not hold: each title the content
names and one of its key words; no other title of the dialogue, no person, date or genre the content does not give,
no viewing of a movie the seeker has not seen, no taking of the seen movie it named, neither side's words in the
other's mouth, no text the length cap cut. The reply checks every turn runs (synth.analysis.defects: the other role's
words, copies, facts against the catalog, ...) come on top, in the simulators."""

from __future__ import annotations

import re

from synth.analysis.defects import Defect, ReplyContext
from synth.analysis.defects.detectors import mentions
from synth.analysis.defects.facts import PERSON_NAME
from synth.content.decide import Decided
from synth.data.title_match import normalise

# other words that say a genre or a mood: a reply may say "a romantic comedy" for romance and comedy
SYNONYMS = {
    "sci-fi": ("science fiction", "scifi", "sci fi", "science-fiction"), "comedy": ("comedies", "funny", "comedic", "laugh"),
    "romance": ("romantic", "love story"), "documentary": ("documentaries", "doc"), "animation": ("animated", "cartoon"),
    "children": ("kids", "family", "kid"), "film-noir": ("noir",), "horror": ("scary",), "thriller": ("thrilling", "suspense"),
    "mystery": ("mysterious", "mysteries"), "crime": ("criminal", "heist", "gangster", "cop"), "drama": ("dramatic",),
    "musical": ("music", "songs"), "war": ("wartime",), "action": ("action-packed",), "fantasy": ("fantastical",),
}
CUT_MARGIN = 2  # an utterance within this many characters of its cap was closed by the cap, not by the model
# a seeker telling of a viewing: "I've seen it", "I watched it last year", "I loved it" (of a movie it has not seen)
_VIEWED = re.compile(
    r"\bI(?:'ve| have)?\s+(?:already\s+|just\s+)?(?:seen|watched|read|tried|been to)\b"
    r"|\bI\s+(?:loved|enjoyed|liked|adored)\s+(?:it|that|this)\b|\bwatch(?:ed|ing)? it again\b",
    re.IGNORECASE,
)
_YEAR_OR_DECADE = re.compile(r"(?<![\w(])(?:19|20)\d0s\b|(?<![\w(])'\d0s\b|(?<![\w(])(?:19|20)\d\d\b(?!\))")
# a speaker taking the other's place: a seeker telling what "you wanted", a recommender what "I wanted"; a
# recommender speaking of its own viewing of what it offers ("I haven't seen it", "I've seen Heat")
_OTHER_WANTS = {
    "seeker": re.compile(r"\byou(?:'re| are| were)?\s+(?:wanted|looking for|hoping for|hoped for|asked for|after)\b", re.IGNORECASE),
    "recommender": re.compile(r"\bI(?:'m| am| was)?\s+(?:wanted|looking for|hoping for|hoped for)\b"
                              r"|\bI(?:'ve| have)?(?:n't| not| never)?\s+(?:seen|watched)\b|\bI haven't (?:seen|watched)\b",
                              re.IGNORECASE),
}
# a seeker saying it will watch a movie it named as one it has seen and liked
_TAKES_EXAMPLE = re.compile(r"\b(?:I'll|I will|I'm going to|I am going to)\s+(?:just\s+)?(?:stick with|go with|watch|see|"
                            r"rewatch|re-watch|read|reread)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def cut_by_cap(raw: str, cap: int) -> Defect | None:
    """An utterance as long as its cap: the schema closed it, probably mid-sentence; it is re-sampled, never kept."""
    return Defect("cut_by_cap", raw[-30:]) if len(raw) >= cap - CUT_MARGIN else None


def verify(text: str, decided: Decided, context: ReplyContext) -> list[Defect]:
    """What `text` gets wrong against `decided`: a title of the content it does not name, none of its key words,
    another title of the dialogue it names, a person neither the content nor its facts name, a viewing the
    seeker never had, a year or decade the content does not give."""
    content = decided.content
    found = [Defect("leaves_out_title", title) for title in content.titles if not mentions(text, title, context.short_titles)]
    if decided.say_any and not says_any(text, decided.say_any):
        found.append(Defect("leaves_out_content", " / ".join(decided.say_any)))
    allowed = {*content.titles, *decided.may_name}
    found += [
        Defect("names_another_title", item.display) for item in context.items
        if item.display not in allowed and mentions(text, item.display, context.short_titles)
    ]
    found += [Defect("names_a_person", name) for name in _unknown_names(text, decided, context)]
    if context.role == "seeker" and content.move in ("accept", "inquire") and decided.item is not None:
        viewed = _VIEWED.search(text)  # "I haven't seen it" is no match: the pattern wants "I('ve) seen"
        if viewed:
            found.append(Defect("claims_a_viewing", viewed.group(0)))
    other = _OTHER_WANTS[context.role].search(text)
    if other:
        found.append(Defect("takes_the_other_side", other.group(0)))
    if content.move == "reveal" and decided.example and (takes := _TAKES_EXAMPLE.search(text)):
        found.append(Defect("takes_the_example", takes.group(0)))
    if content.move in ("offer", "answer") and decided.item is not None:
        found += [Defect("gives_another_genre", genre) for genre in _other_genres(text, decided, context)]
    given = " ".join([*content.points, *content.titles, decided.template])
    found += [Defect("states_an_unknown_date", date) for date in _YEAR_OR_DECADE.findall(text) if date.strip("'") not in given]
    return found


def says_any(text: str, keys: tuple[str, ...]) -> bool:
    """Whether `text` says one of `keys` (or a SYNONYMS word of one), as a word of its own, plural allowed."""
    lower = text.lower()
    return any(_says_word(lower, form) for key in keys for form in (key.lower(), *SYNONYMS.get(key.lower(), ())))


def _says_word(lower: str, word: str) -> bool:
    """Whether the lower-case `lower` says `word` as a word of its own, plural allowed."""
    return re.search(rf"(?<!\w){re.escape(word)}(?:s|es)?(?!\w)", lower) is not None


def _other_genres(text: str, decided: Decided, context: ReplyContext) -> list[str]:
    """Genres the words give the item that it does not have and the content does not name (a drama called a
    thriller): a genre of the dialogue's items or of SYNONYMS, said by its own name (not "music" or "funny",
    which describe more than a genre)."""
    assert decided.item is not None
    own = {g.lower() for g in decided.item.genres}
    points = " ".join(decided.content.points).lower()
    vocabulary = {g.lower() for item in context.items for g in item.genres} | set(SYNONYMS)
    lower = text.lower()
    return sorted(g for g in vocabulary if g not in own and g not in points and _says_word(lower, g))


def _unknown_names(text: str, decided: Decided, context: ReplyContext) -> list[str]:
    """Capitalised names in `text` that are no title of the dialogue and appear nowhere in the content (its
    points and people): a cast or a place the model made up."""
    given = normalise(" ".join([*decided.content.points, *decided.content.people, decided.template]))
    titles = [normalise(item.title) for item in context.items]
    names = []
    for match in (m for sentence in _SENTENCE_END.split(text) for m in PERSON_NAME.finditer(sentence)):
        name = normalise(match.group(0))
        if name in given or any(name in title or title in name for title in titles):
            continue
        names.append(match.group(0))
    return names
