"""Dialogue-state checks: replies that make no sense in their place in the dialogue, whatever their sentences.
A reference to a title or a suggestion the other side never made, a speaker talking as the other role, a
recommendation whose text never names its movie, a recommender suggesting a movie that is not among its
candidates, a seeker reciting its own review of the movie it secretly hopes for, a turn planned as a question
that asks nothing, a goodbye before anything was recommended (or, once something was, before the dialogue
ends), and a seeker saying it will watch a movie it does not accept.
(Facts that contradict the catalog are in synth.analysis.defects.facts.)"""

from __future__ import annotations

import re

from synth.analysis.defects.detectors import (
    RECITE_WORDS,
    Defect,
    ReplyContext,
    mentions,
    sentences,
    shared_run,
    stance,
    titles_with_years,
)
from synth.short_titles import ShortTitleRule

# What the items are called and what one does with them, in every built-in domain (synth.domain): the checks
# read "I'll read it" in a books dialogue as they read "I'll watch it" in a movies one.
_ITEM = r"(?:movie|film|book|novel|product|restaurant|place)"
_ITEMS = r"(?:movies?|films?|books?|novels?|products?|restaurants?|places?)"
_USE = r"(?:watch|see|read|buy|order|eat at|visit)"
# "the movie you mentioned", "thanks for the suggestions", "your recommendation"
_REFERENCE = re.compile(
    r"\byou(?:'ve| have)?\s+(?:just\s+|already\s+)?(?:mentioned|suggested|recommended|brought up|pointed out|told me about)\b"
    r"|\byour\s+(?:suggestions?|recommendations?|picks?)\b"
    r"|\b(?:thanks|thank you)(?:\s+(?:so|very)\s+much)?\s+for\s+(?:the|your|all the|these|those|all your)\s+"
    r"(?:\w+\s+)?(?:suggestions?|recommendations?|ideas?|tips?|picks?|options?)\b",
    re.IGNORECASE,
)
# a seeker asking for a suggestion yet to come: "I'd love to hear your recommendations", "I'd appreciate your
# suggestions", "what's your pick?" (but "I appreciate your suggestions" thanks for some)
_ASKS_FOR = re.compile(
    r"\b(?:hear|get|have|know|see|want|need)\s+(?:\w+\s+)?your\s+(?:suggestions?|recommendations?|picks?)\b"
    r"|\b(?:'d|would)\s+(?:really\s+|greatly\s+)?(?:welcome|appreciate|love)\s+(?:\w+\s+)?your\s+(?:suggestions?|recommendations?|picks?)\b"
    r"|\bwhat(?:'s| is| are|'re| would be)\s+your\s+(?:suggestions?|recommendations?|picks?)\b",
    re.IGNORECASE,
)
# the recommender telling the seeker what it said: "you mentioned Heat", "you said you loved Alien"
_RECALL = re.compile(r"\byou(?:'ve| have)?\s+(?:mentioned|said|told me|brought up)\b", re.IGNORECASE)
# "I'm glad you enjoyed it" to a seeker who said no such thing (or has not seen the movie yet)
_GLAD_YOU_ENJOYED = re.compile(r"\b(?:glad|happy)\s+(?:that\s+)?you\s+(?:enjoyed|liked|loved)\b", re.IGNORECASE)
_NOT_SEEN = re.compile(
    r"\b(?:haven't|have not|never)\s+(?:seen|watched|read|bought|tried|been to|eaten at)\b"
    r"|\b(?:I'll|I will|I'm going to|can't wait to)\s+(?:watch|see|check|give|read|buy|order|visit)\b"
    r"|\[?EOD\]?",
    re.IGNORECASE,
)
_AS_SEEKER = re.compile(  # a recommender talking like the one who wants a movie
    r"\bI(?:'m| am)\s+(?:really\s+|just\s+)?(?:looking for|in the mood for|hoping for|searching for|craving)\b"
    r"|\bI(?:'d| would)\s+(?:really\s+)?(?:like|love)\s+(?:to " + _USE + r"\b|something\b|a " + _ITEM + r"\b)"
    r"|\bI\s+(?:want|need)\s+(?:to (?:watch|read|buy|order|eat at|visit)|something|a " + _ITEM + r")\b"
    r"|\bI(?:'m| am)\s+(?:so\s+|really\s+)?(?:excited|looking forward)\s+to\s+(?:watch|see|seeing|watching|read|reading)\b"
    r"|\bI(?:'ll| will) keep looking\b|\bshould I " + _USE + r"\b"
    r"|\bI can(?:'t| ?not) wait to (?:watch|see|read|try|buy|order|eat|visit)\b"
    r"|\bI(?:'m| am) (?:thinking of|planning (?:on|to)) (?:watching|seeing|reading|buying|ordering|trying|watch|see|read)\b"
    r"|\bI(?:'ll| will) wait for (?:the|your) next (?:suggestion|recommendation)\b"
    r"|\b(?:do|can|could) you have (?:any )?(?:other |more )?(?:recommendations|suggestions)\b"
    r"|\bwhat (?:other )?(?:recommendations|suggestions) do you have\b"
    r"|\bis there (?:a|any) " + _ITEM + r" you(?:'d| would)? (?:recommend|suggest)\b|\bwhat else is (?:good|worth)\b"
    r"|\bI appreciate your (?:help|recommendations?|suggestions?|advice)\b|\bI(?:'m| am) not interested in (?:that|this|it)\b"
    r"|\bwhat (?:other|else) " + _ITEMS + r" (?:would|do|can|could) you (?:recommend|suggest)\b"
    r"|\b(?:can|could) you (?:recommend|suggest)\b|\byou could (?:recommend|suggest)\b"
    r"|\b(?:thanks|thank you)(?:\s+(?:so|very)\s+much)?\s+for\s+(?:the|your|all the|these)\s+(?:\w+\s+)?(?:suggestions?|recommendations?)\b"
    r"|\bI(?:'ll| will)\s+(?:definitely\s+|surely\s+)?(?:watch it|read it|buy it|order it|check (?:it|that) out"
    r"|give (?:it|that) a (?:try|shot|watch|read)|add it to my)\b"
    r"|\bmy (?:own )?reviews?\b"
    r"|\bmy (?:own )?(?:tastes?|preferences)\b",  # the GoRecDial expert's "aligns well with my tastes"
    re.IGNORECASE,
)
_AS_RECOMMENDER = re.compile(  # a seeker talking like the one who suggests
    r"\byour (?:taste|preferences)\b|\bI(?: would|'d)? (?:recommend|suggest)\b|\byou might (?:like|enjoy|love)\b"
    r"|\b(?:glad|happy)\s+(?:that\s+)?you\s+(?:liked|enjoyed|loved|like|enjoy|love)\b|\bI hope you(?:'ll| will)? (?:enjoy|like|love)\b"
    r"|\byou should (?:watch|see|try|check out|read|buy)\b|\blet me know (?:if|what|how) you\b|\byou(?:'ll| will) (?:enjoy|like|love)\b"
    r"|\bhow (?:can|may) I (?:help|assist) you\b"
    r"|\bwhat (?:kind|type|sort|genres?)s? of " + _ITEMS + r" do you (?:like|enjoy|love|prefer|usually|watch|read)\b"
    r"|\bwhat (?:genres?|kinds? of " + _ITEMS + r") do you (?:like|enjoy|love|prefer)\b",
    re.IGNORECASE,
)
_FAREWELL_WORDS = (  # a goodbye proper, that only the dialogue's last turns may say
    r"\b(?:good\s?bye|bye(?:-bye)?|good\s?night|see you|take care|talk (?:to you )?(?:soon|later))\b"
    r"|\bhave a (?:good|great|nice|lovely|wonderful) (?:night|evening|day|weekend|one)\b"
    r"|\benjoy (?:the|your) (?:movie|film|book|meal|evening|night)\b"
)
_FAREWELL = re.compile(_FAREWELL_WORDS, re.IGNORECASE)
_GOODBYE = re.compile(  # a goodbye, or thanks for the help, which only fit once something was recommended
    _FAREWELL_WORDS
    + r"|\b(?:thanks|thank you)(?:\s+(?:so|very)\s+much)?\s+for\s+(?:your|the|all your|all the)\s+(?:help|time|chat)\b"
    r"|\b(?:you've been|you're|you are) (?:a |such a )?(?:great|big|huge|real) help\b",
    re.IGNORECASE,
)
_WILL_WATCH = re.compile(
    r"\b(?:I'll|I will|I'm going to|I am going to|gonna|can't wait to|look(?:ing)? forward to)\s+(?:definitely\s+|surely\s+)?"
    r"(?:watch|see|seeing|watching|read|reading|buy|buying|order|ordering"
    r"|check(?:ing)?\s+(?:it|that)\s+out|giv(?:e|ing)\s+(?:it|that)\s+a\s+(?:try|shot|watch|read)|add(?:ing)?\s+it"
    r"|(?:have|take) a look at)\b"
    r"|\bEOD\b",
    re.IGNORECASE,
)
# a recommender suggesting a movie: "I suggest Frozen (2013)", "how about 'The Dark Knight Rises'?"
_SUGGESTS = re.compile(
    r"\b(?i:I(?:'d| would)? (?:suggest|recommend)|how about|what about|have you (?:seen|watched|tried|read)|you might (?:like|enjoy|love)"
    r"|(?:try|consider)(?: watching| reading)?|check out)\s+(?:watching\s+|reading\s+)?['\"“]?(?P<title>[A-Z0-9][^.!?;'\"”]{0,60}?(?:\(\d{4}\)|['\"”]))",
)
QUESTION_ACTS = frozenset({"REQ", "CLQ", "REC-E", "INQ", "ASK"})  # planned moves that ask the other side something


def accepts_in_words(text: str, context: ReplyContext) -> Defect | None:
    """A seeker saying it will watch a movie (or ending the dialogue) on a turn that does not accept its target."""
    if context.role != "seeker" or context.accepting:
        return None
    found = _WILL_WATCH.search(text)
    return None if found is None else Defect("accepts_in_words", f'"{found.group(0)}" without accepting its movie')


def unsaid_reference(text: str, context: ReplyContext) -> Defect | None:
    """Speaks of a suggestion nobody made ("thanks for the suggestions" before any), of a title the other side
    never said as if it had ("the movie you mentioned, Double Indemnity"), or is glad the seeker enjoyed a movie
    it said nothing good about or has not seen."""
    said = (*context.other_earlier, context.other_last)
    for sentence in sentences(text):
        if _REFERENCE.search(sentence) or _RECALL.search(sentence):
            if context.role == "seeker" and not context.mentioned and _REFERENCE.search(sentence) \
                    and not _ASKS_FOR.search(sentence):
                return Defect("unsaid_reference", f'speaks of suggestions before any: "{sentence[:100]}"')
            rule = context.short_titles
            for title in titles_with_years(sentence) + [t for t in context.titles if mentions(sentence, t, rule)]:
                if not any(mentions(other, title, rule) for other in said) and title not in context.mentioned:
                    return Defect("unsaid_reference", f"{title} was never mentioned by the other side")
        if context.role == "recommender" and _GLAD_YOU_ENJOYED.search(sentence):
            if stance(context.other_last) <= 0 or _NOT_SEEN.search(context.other_last):
                return Defect("unsaid_reference", f'"{sentence[:80]}", though they said no such thing')
    return None


def speaks_as_other(text: str, context: ReplyContext) -> Defect | None:
    """A recommender talking as the one who wants a movie, or a seeker as the one who suggests."""
    pattern = _AS_SEEKER if context.role == "recommender" else _AS_RECOMMENDER
    found = pattern.search(text)
    other = "seeker" if context.role == "recommender" else "recommender"
    return None if found is None else Defect("speaks_as_other", f'speaks as the {other}: "{found.group(0)}"')


def without_other_role(text: str, role: str) -> str:
    """A reply that speaks as the other role in some of its sentences, repaired: those sentences dropped ("I'm
    not interested in that one. How about Heat (1995)?" keeps its question), the repair of the last resort once
    re-samples did not mend it. A reply whose every sentence speaks as the other role is returned as it is."""
    pattern = _AS_SEEKER if role == "recommender" else _AS_RECOMMENDER
    kept = [sentence for sentence in sentences(text) if not pattern.search(sentence)]
    return " ".join(sentence.strip() for sentence in kept) if kept else text


def unnamed_recommendation(text: str, recommends: str | None, short_titles: ShortTitleRule = "whole") -> Defect | None:
    """A recommendation whose words never name the item it recommends (whole, or by its short title under the
    domain's `short_titles` rule)."""
    if recommends is None or mentions(text, recommends, short_titles):
        return None
    return Defect("unnamed_recommendation", f"recommends {recommends} without naming it")


def naming_recommendation(text: str, recommends: str, short_titles: ShortTitleRule = "whole") -> str:
    """A recommendation that never names its item, repaired: the title put before its words ("How about Heat
    (1995)? It's a tense crime drama ..."), the repair of the last resort once re-samples did not name it."""
    if mentions(text, recommends, short_titles):
        return text
    return f"How about {recommends}? {text}".strip()


def recites_target(text: str, context: ReplyContext) -> Defect | None:
    """A seeker repeating RECITE_WORDS words in a row of what it knows of its hidden target (its own review),
    which gives the target away."""
    if context.role != "seeker" or not context.target_draw:
        return None
    run = shared_run(text, context.target_draw, RECITE_WORDS, context.titles)
    return None if run is None else Defect("recites_target", f'repeats "{run}" from its review of its hidden target')


def suggests_unlisted(text: str, context: ReplyContext, named: str | None = None) -> Defect | None:
    """A recommender suggesting a movie (a "Title (Year)" or a quoted title after "I suggest", "how about",
    "have you seen", ...) that is neither the item it recommends or answers about (`named`) nor one shown to
    it, suggested before or said by the seeker: a suggestion the dialogue's state does not hold, which the
    seeker then answers."""
    if context.role != "recommender":
        return None
    known = (*context.titles, *([named] if named else []))
    said = (*context.other_earlier, context.other_last)
    for found in _SUGGESTS.finditer(text):
        title = found.group("title").strip(" '\"”")
        if any(mentions(title, k) or mentions(k, title) for k in known) or any(mentions(other, title) for other in said):
            continue
        return Defect("suggests_unlisted", f'suggests "{title}", which is not among its candidates')
    return None


def unasked_question(text: str, context: ReplyContext, recommends: str | None = None) -> Defect | None:
    """A turn planned as a question (asking for the seeker's taste, about a suggestion, ...) with no question;
    `context.question` None: a turn that must ask unless it recommends."""
    asks = context.question if context.question is not None else recommends is None
    if not asks or "?" in text:
        return None
    return Defect("unasked_question", "its move is a question, but it asks nothing")


def early_goodbye(text: str, context: ReplyContext, recommends: str | None = None) -> Defect | None:
    """Thanks for the help, or a goodbye, before anything was recommended."""
    if context.mentioned or recommends is not None:
        return None
    found = _GOODBYE.search(text)
    return None if found is None else Defect("early_goodbye", f'"{found.group(0)}" before any recommendation')


def premature_goodbye(text: str, context: ReplyContext, recommends: str | None = None) -> Defect | None:
    """A goodbye ("good night", "enjoy the movie") once something was recommended but while the dialogue goes
    on: only the seeker's acceptance and the recommender's closing words end it."""
    if not (context.mentioned or recommends) or context.accepting or context.closing:
        return None
    found = _FAREWELL.search(text)
    return None if found is None else Defect("premature_goodbye", f'"{found.group(0)}" while the dialogue goes on')


def other_domain(text: str, context: ReplyContext) -> Defect | None:
    """A reply that calls the run's items by another domain's words ("What do you think of the movie ...?" in a
    books run: a small model's habit from its own training). The words are the domain profile's
    `foreign_words`; movie runs have none."""
    for word in context.foreign_words:
        found = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)
        if found:
            return Defect("other_domain", f'calls an item a "{found.group(0)}"')
    return None
