"""Whether a worded reply says its decided content and nothing the content does not hold: each title the content names
and one of its key words; no other title of the dialogue, no person, date or genre the content does not give, no
viewing of a movie the seeker has not seen (nor a denied one of a movie it has, nor one the recommender tells it of
unasked), no taking of the seen movie it named, neither side's words in the other's mouth, no question where the
seeker only tells, accepts or turns down, the content's question asked, no statement said as a question, no welcome
for a movie it turns down and no putting off of its choice, nothing a reader finds out of place (a greeting mid-talk,
praise for a choice nobody made, "they" for the other side, company nobody mentioned, markup or another script, a
plot the content does not give, a movie called something else, the recommender asking about its own pick, saying it
has none of something or glad the seeker likes a movie it only now offers, the seeker's "as I said"), no text the
length cap cut. The reply checks every turn runs (synth.analysis.defects: the other role's words, copies, facts
against the catalog, ...) come on top, in the simulators."""

from __future__ import annotations

import re

from synth.analysis.defects import Defect, ReplyContext
from synth.analysis.defects.detectors import mentions
from synth.analysis.defects.facts import PERSON_NAME
from synth.content.decide import Decided
from synth.content.phrases import decade_forms
from synth.content.seeker_slips import (
    RECOMMENDS,
    SEEKER_LACKS,
    SENTENCE_END,
    TAKES_EXAMPLE,
    seeker_slips,
    shared_run,
)
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
_YEAR_OR_DECADE = re.compile(r"(?<![\w(])(?:19|20)\d0s\b|(?<![\w(])'\d0s\b|(?<![\w(])(?:19|20)\d\d\b(?!\))")
# a speaker taking the other's place: a seeker telling what "you wanted" ("You'd like a drama movie, not In & Out")
# or asking "Do you want it?", "Need another movie?", a recommender what "I wanted", "just what I asked for" or
# "I'm in!"; a recommender speaking of its own viewing or taste ("I haven't seen it", "I've seen Heat", "which I
# really enjoy")
_OTHER_WANTS = {
    "seeker": re.compile(r"\byou(?:'re| are| were)?\s+(?:wanted|looking for|hoping for|hoped for|asked for|after)\b"
                         r"|\byou said you\b|\bdo you want (?:it|this|that|to watch)\b"
                         r"|\byou(?:'d| would) (?:like|prefer) (?:a|an|one|something)\b|\byou(?:'d| would) rather (?:watch|see|have)\b"
                         r"|\b(?:need|want) another (?:movie|one|suggestion|book)\b", re.IGNORECASE),
    "recommender": re.compile(r"\bI(?:'m| am| was)?\s+(?:also\s+)?(?:wanted|looking for|hoping for|hoped for|asked for)\b"
                              r"|\bI(?:'ve| have)?(?:n't| not| never)?\s+(?:seen|watched|heard of)\b|\bI haven't (?:seen|watched|heard of)\b"
                              r"|\bI(?:'ll| will|'m going to| am going to)\s+(?:watch|see)\b|\blook(?:ing)? forward to (?:watching|seeing)\b"
                              r"|\bI(?:'d| would) (?:like|love)\b(?! to)|\bI saw\b|\bany (?:other )?(?:movie )?recommendations\b"
                              r"|\blet's (?:watch|go)\b|\b(?:watch it|go) together\b|\bopen to suggestions\b"
                              r"|\bI(?:'m| am) (?:so |really )?(?:excited|eager) to\b|\bcan't wait to (?:watch|see|check)\b"
                              r"|\bI (?:loved|liked|enjoyed) (?:it|that|this)\b|\bI remember\b|\bwhat I was thinking\b"
                              r"|\bI (?:love|enjoy|loved|enjoyed) (?:watching|seeing)\b|\bI'm in\b"
                              r"|\b(?:which|that) I (?:really )?(?:enjoy|love|like)\b",
                              re.IGNORECASE),
}
# what is out of place in any turn: a greeting after one's first message, praise for a choice nobody made (but in the
# recommender's goodbye), the other side spoken of as "they", company nobody mentioned, markup or doubled marks
_GREETING = re.compile(r"^\W*(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))\b", re.IGNORECASE)
_PRAISE = re.compile(r"\b(?:great|good|excellent|nice|perfect|wonderful|fantastic) (?:choice|pick|suggestion|idea|start)\b",
                     re.IGNORECASE)
_THEY = re.compile(r"\bthey(?:'re|'ve|'d)?\s+(?:are\s+|were\s+)?(?:want|wanted|wants|looking|asking|asked|mentioned|said|"
                   r"chose|like|liked|love|loved|enjoy|enjoyed|prefer|need|hoping|seem|'d rather)\b"
                   r"|\b(?:do|does|would|are|did|will) they (?:have|want|like|prefer|need)\b|\bthe (?:seeker|user|other person)\b",
                   re.IGNORECASE)
_COMPANY = re.compile(r"\b(?:your|my) (?:friends?|family|kids|children|partner|wife|husband|girlfriend|boyfriend|date)\b"
                      r"|\bwith (?:friends|family)\b|\b(?:is|does|has) anyone\b|\beveryone\b|\byou (?:guys|all)\b",
                      re.IGNORECASE)
_PLOT = re.compile(r"\b(?:is |it's |all )?(?<!what )(?<!how )about (?:a|an|the|how|two|his|her|their|this)\b|\bstory of\b|\btells the story\b"
                   r"|\bfollows (?:a|an|the)\b|\bcent(?:er|re)s on\b", re.IGNORECASE)
# ("What about A Simple Plan?" offers a title: no plot)
# shorthand where a sentence was due: "Not from 1970s. Maybe worth looking. Has seen Shawshank Redemption?", "No to
# Se7en; want an action movie."; a sentence that stops at its colon ("I loved Down by Law:") or at a bare verb ("Not
# Kiss of Death: crime movie, dislike"); "? ?"; "It 's"; a whole reply in quotation marks
_GARBLED = re.compile(r"[{}\[\]<>|]|\?\s*\?|!!!|\w\s+'[st]\b|[?!][A-Za-z]|(?:^|[.!?;]\s+)(?:Has seen|Have seen|Not from|Maybe worth|Fits as|"
                      r"No to|Know)\b|;\s*(?:want|looking for)\b|\brather (?:skip|avoid|not (?:watch|see|read)) anything\b"
                      r"|\bmind (?:skipping|avoiding) anything\b|\b(?:have been|were) given\b|:\s*$|,\s*(?:dislike|like)\W*$"
                      r'|^\s*"[^"]+"\s*$')
# an offer claiming to fit what was asked, where the content says it does not
_FITS = re.compile(r"\bfits?\b|\bperfect(?:ly)?\b|\bmeets? your\b|\bmatch(?:es)? (?:your|what)\b|\bjust what you\b",
                   re.IGNORECASE)
# the recommender saying it has none of something ("I don't have a movie from the 1950s right now"): its next offer
# may be one
_NO_STOCK = re.compile(r"\bI (?:don't|do not|can't|cannot) (?:have|offer|find|suggest)\b|\bno (?:\w+ ){1,5}(?:here|available|"
                       r"right now|to offer)\b|\bnone (?:here|right now|available)\b", re.IGNORECASE)
# an offer that takes the seeker's liking for granted ("I'm glad you like Super Size Me!" of a movie it never named)
_ASSUMED_LIKING = re.compile(r"\b(?:glad|happy) (?:that )?you (?:like|liked|love|loved|enjoy|enjoyed)\b", re.IGNORECASE)
# a speaker telling it made or played in the movie ("I directed Raiders of the Lost Ark with Harrison Ford", the
# README's run of 2026-11-29)
_AS_MAKER = re.compile(r"\bI(?:'ve| have)? (?:directed|wrote|produced|filmed|starred in|acted in|played in)\b", re.IGNORECASE)
# a seeker saying it said what it never did ("I just said that's all")
_AS_I_SAID = re.compile(r"\bI (?:just |already )?(?:said|told you|mentioned)\b|\bas I said\b", re.IGNORECASE)
# an offer that is not what was asked, said as one: "It isn't X, but it's Y" (not "It's not X, so it's Y")
_BUT = re.compile(r"\b(?:but|though|although|rather than|instead|still|however)\b", re.IGNORECASE)
# a movie said to be something else than a movie ("The Truman Show is a show, not a movie"; but "not a movie from
# the 1970s", an offer's own words)
_NOT_ITS_KIND = re.compile(r"\bnot (?:a|an|really a) (?:movie|film|book)\b(?! (?:from|that)\b)|\b(?:is|it's) (?:a |an )?(?:tv |television )?"
                           r"(?:show|series)\b", re.IGNORECASE)
# letters of a script no reply of an English dialogue holds ("Do you have any other推荐?")
_FOREIGN_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u3040-\u30ff\u3400-\u9fff"
                             r"\uac00-\ud7af\uff00-\uffef]+")
# the recommender telling the seeker it has seen a movie, where the seeker said of no viewing
_YOU_SAW = re.compile(r"\byou(?:'ve| have)(?: already)? (?:seen|watched|read)\b", re.IGNORECASE)
_SAW = re.compile(r"\b(?:seen|watched|saw|read)\b", re.IGNORECASE)
# moves where praise for a choice is out of place: the recommender's but its goodbye, the seeker's before any offer
PRAISE_OUT_OF_PLACE = {("recommender", "ask"), ("recommender", "offer"), ("recommender", "answer"), ("seeker", "reveal")}
# the recommender asking the seeker about its own suggestion ("What's it about?", "Any idea if it's a drama?"), or
# for more as it makes one ("What else are you looking for?")
_ASKS_ITS_PICK = re.compile(r"\babout\?|\bany idea\b|\bwhat else\b|\banything else\b|\bdo you have\b|\bdo you know (?:what|if|whether|about)\b|^\W*is (?:it|this|that) (?:a|an) "
                            r"|\bwhat (?:is|are|'s) .{0,60}\blike\b|\bdo you have a preference\b|\bwhat would you like\b",
                            re.IGNORECASE)
# a statement with a question mark ("It's a great one?", "It's a drama from the nineties, and really good?"); not a
# tag ("It's a comedy, isn't it?", "..., right?")
_TOLD_AS_ASKED = re.compile(r"(?:^|[.!?]\s+)(?:it's|it is|that's|that is|this is|he's|she's|the (?:film|movie|book|story))\b"
                            r"[^.!?]*(?<!right)(?<!n't it)(?<!n't they)(?<!, no)\?", re.IGNORECASE)


def cut_by_cap(raw: str, cap: int) -> Defect | None:
    """An utterance as long as its cap: the schema closed it, probably mid-sentence; it is re-sampled, never kept."""
    return Defect("cut_by_cap", raw[-30:]) if len(raw) >= cap - CUT_MARGIN else None


def verify(text: str, decided: Decided, context: ReplyContext) -> list[Defect]:
    """What `text` gets wrong against `decided`: a title of the content it does not name, none of its key words,
    another title of the dialogue it names, a person neither the content nor its facts name (or an actor of them
    called its maker), a critic's quote not given as it is, a viewing the seeker never had, a year or decade the
    content does not give."""
    content = decided.content
    found = [Defect("leaves_out_title", title) for title in content.titles if not mentions(text, title, context.short_titles)]
    if decided.say_any and not says_any(text, decided.say_any):
        found.append(Defect("leaves_out_content", " / ".join(decided.say_any)))
    allowed = {*content.titles, *decided.may_name}
    rest = _without_titles(text, allowed)  # "Battle for the Planet of the Apes" names no "Planet of the Apes"
    found += [
        Defect("names_another_title", item.display) for item in context.items
        if item.display not in allowed and mentions(rest, item.display, context.short_titles)
    ]
    found += [Defect("names_a_person", name) for name in _unknown_names(text, decided, context)]
    found += [Defect("misstates_a_role", name) for name in _cast_as_makers(text, decided)]
    if decided.quote and not _quotes(text, decided.quote):
        found.append(Defect("misquotes", decided.quote[:40]))
    if context.role == "seeker":
        found += seeker_slips(text, decided, context)
    elif (saw := _YOU_SAW.search(text)) and not any(_SAW.search(t) for t in (context.other_last, *context.other_earlier)):
        found.append(Defect("unsaid_viewing", saw.group(0)))
    other = _OTHER_WANTS[context.role].search(text) or (
        context.role == "seeker" and (RECOMMENDS.search(text) or SEEKER_LACKS.search(text)))
    if other:
        found.append(Defect("takes_the_other_side", other.group(0)))
    found += _out_of_place(text, decided, context)
    if content.move == "reveal" and decided.example and (takes := TAKES_EXAMPLE.search(text)):
        found.append(Defect("takes_the_example", takes.group(0)))
    if content.move == "offer" and decided.unmet and (fit := _FITS.search(text)):
        found.append(Defect("claims_a_fit", fit.group(0)))
    if content.move == "offer" and decided.unmet and not _BUT.search(text):
        found.append(Defect("misses_the_but", decided.unmet))
    if content.move == "offer" and decided.unmet and not all(says_any(text, keys) for keys in _key_words(decided.unmet)):
        found.append(Defect("leaves_out_content", decided.unmet))  # "Not a crime movie, but it's a crime movie."
    if decided.item is not None:
        found += [Defect("gives_another_genre", genre) for genre in _other_genres(text, decided, context)]
        if kind := _NOT_ITS_KIND.search(text):
            found.append(Defect("denies_its_kind", kind.group(0)))
    given = " ".join([*content.points, *content.titles, decided.template])
    found += [Defect("states_an_unknown_date", date) for date in _YEAR_OR_DECADE.findall(text) if date.strip("'") not in given]
    return found


def _without_titles(text: str, titles: set[str]) -> str:
    """`text` less the words of `titles` (each without its year, any case), so that a title inside one of them is
    not taken for a mention of its own."""
    for title in sorted(titles, key=len, reverse=True):
        name = re.sub(r"\s*\(\d{4}\)$", "", title)
        text = re.sub(rf"{re.escape(name)}(?:\s*\(\d{{4}}\))?", " ", text, flags=re.IGNORECASE)
    return text


def _out_of_place(text: str, decided: Decided, context: ReplyContext) -> list[Defect]:
    """What a reader finds out of place whatever the content: a greeting after the speaker's first message (the
    recommender's is its scripted greeting),
    praise for a choice nobody made, the other side spoken of as "they", company nobody mentioned, markup or
    doubled marks, a speaker who made or played in the movie, a plot the content does not give; the recommender asking the seeker about its own suggestion."""
    move, found = decided.content.move, []
    checks = [
        # the recommender's first line is always the scripted greeting (counted in no own_earlier)
        ("greets_again", _GREETING if context.own_earlier or context.role == "recommender" else None),
        ("praises_no_choice", _PRAISE if (context.role, move) in PRAISE_OUT_OF_PLACE else None),
        ("speaks_of_them", _THEY), ("invents_company", _COMPANY), ("garbled", _GARBLED), ("speaks_as_its_maker", _AS_MAKER),
        ("foreign_script", _FOREIGN_SCRIPT),
    ]
    for name, pattern in checks:
        if pattern is not None and (match := pattern.search(text)):
            found.append(Defect(name, match.group(0)))
    if move != "reveal" and decided.item is not None and not _plot_given(decided) and (plot := _PLOT.search(text)):
        found.append(Defect("invents_a_plot", plot.group(0)))
    if move == "offer" and (liking := _ASSUMED_LIKING.search(text)):
        found.append(Defect("assumes_a_liking", liking.group(0)))
    if context.role == "recommender" and (stock := _NO_STOCK.search(text)):
        found.append(Defect("claims_no_stock", stock.group(0)))
    if decided.question and "?" not in text:  # the question the content asks, said as a statement
        found.append(Defect("drops_the_question", decided.template[-40:]))
    if asked := _TOLD_AS_ASKED.search(text) or _plot_asked(text, decided):
        found.append(Defect("tells_as_a_question", asked.group(0)[-40:]))
    if context.role == "seeker" and (said := _AS_I_SAID.search(text)):
        found.append(Defect("claims_it_said", said.group(0)))
    if context.role == "recommender" and move in ("offer", "answer"):
        questions = [s for s in SENTENCE_END.split(text) if s.endswith("?")]
        found += [Defect("asks_about_its_pick", q[-40:]) for q in questions if _ASKS_ITS_PICK.search(q)]
    return found


def _plot_asked(text: str, decided: Decided) -> re.Match[str] | None:
    """A sentence of the item's own description said with a question mark ("... to find one paratrooper?"); not a real
    question that tells it ("Have you seen Heat, where a detective hunts a thief?")."""
    if decided.item is None or not decided.item.description:
        return None
    for question in re.finditer(r"[^.!?]*\?", text):
        words = re.findall(r"[\w']+", question.group(0).lower())
        if words and words[0] not in _ASKING_WORDS and shared_run(words, decided.item.description, 5):
            return question
    return None


_ASKING_WORDS = frozenset({"have", "has", "did", "do", "does", "would", "how", "what", "ever", "know", "want", "fancy",
                           "seen", "is", "are", "any", "or", "can", "could", "will"})


def _plot_given(decided: Decided) -> bool:
    """Whether the content says what its item is about (the start of its description is in a point)."""
    assert decided.item is not None
    start = " ".join(decided.item.description.split())[:20].lower()
    return bool(start) and any(start in point.lower() for point in decided.content.points)


_FILLER = frozenset({"a", "an", "the", "from", "that", "is", "movie", "film", "book", "one", "of"})


def _key_words(phrase: str) -> list[tuple[str, ...]]:
    """The words of `phrase` that carry it, each with its other forms ('horror'; '1970s', '70s' of 'horror movie
    from the 1970s')."""
    return [decade_forms(w) if re.fullmatch(r"\d{4}s", w) else (w,)
            for w in re.findall(r"[\w'-]+", phrase.lower()) if w not in _FILLER]


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


QUOTED_START = 5  # words of a critic's quote a reply must give as they are, from its first


def _quotes(text: str, quote: str) -> bool:
    """Whether `text` gives the quote's first words as they are, after a quotation mark (round 11's reader found
    reworded quotes garbled: "Howard's recent work is missing raw filmmaking excitement" of "Backdraft has some of the
    raw filmmaking excitement that has been missing from Howard's recent work"; round 14's, one without its marks:
    "A critic called It One of Wilder's funniest satires.")."""
    start = re.findall(r"[\w']+", quote)[:QUOTED_START]
    words = ("['’]".join(map(re.escape, word.split("'"))) for word in start)  # a curly apostrophe as good as a straight one
    return re.search("[\"“‘']\\s*" + r"\W+".join(words), text, re.IGNORECASE) is not None


_MAKER = r"(?:directed by|direction of|director|work of|film by|movie by|made by)\W+(?:\w+\W+){0,2}?"


def _cast_as_makers(text: str, decided: Decided) -> list[str]:
    """The item's actors (not its directors) the words call its maker ("it's the work of Keir Dullea")."""
    if decided.item is None:
        return []
    actors = [name for name in decided.item.cast if name not in decided.item.directors]
    return [name for name in actors if re.search(_MAKER + re.escape(name), text, re.IGNORECASE)]


def _unknown_names(text: str, decided: Decided, context: ReplyContext) -> list[str]:
    """Capitalised names in `text` that are no title of the dialogue and appear nowhere in the content (its
    points and people): a cast or a place the model made up."""
    given = normalise(" ".join([*decided.content.points, *decided.content.people, decided.template]))
    titles = [normalise(item.title) for item in context.items]
    names = []
    for match in (m for sentence in SENTENCE_END.split(text) for m in PERSON_NAME.finditer(sentence)):
        name = normalise(match.group(0))
        if name in given or any(name in title or title in name for title in titles):
            continue
        names.append(match.group(0))
    return names
