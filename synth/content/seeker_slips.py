"""A seeker's slips in a worded reply (synth.content.verification runs them on every seeker turn): a viewing of a
suggestion it has not seen (claimed or judged) or the denial of one it has, a welcome for a movie it turns down,
the recommender's nod or question said back, an apology or a yes or no where it tells its taste, an answer to an
offer nobody made, thanks missing from its yes or
"again" with none before, an "I agree" for a yes, its choice put off, a question where it only tells or accepts;
and the patterns of a seeker speaking as the recommender, which the verification's other-side check reads."""

from __future__ import annotations

import re

from synth.analysis.defects import Defect, ReplyContext
from synth.content.decide import Decided

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# an apology where nothing calls for one, as the seeker tells its taste ("I'm sorry, but I haven't had a particular
# mood in mind")
_SORRY = re.compile(r"\b(?:I'm|I am) (?:so |very )?sorry\b|^\W*sorry\b", re.IGNORECASE)
# a yes or a no for an answer to a question that asks what, which or how ("Not really, no particular mood." to "What
# sort of mood are you after tonight?"); "No one in particular" and "No particular mood" answer it
_YES_OR_NO = re.compile(r"(?:^|[.!?]\s+)\W*(?:not really|nope|nah|yes|yeah|yep)\b|(?:^|[.!?]\s+)\W*no\s*[,.!]",
                        re.IGNORECASE)  # opening any sentence: "I loved Diva. Not really, no particular mood."
_YES_NO_QUESTION = re.compile(r"^\W*(?:do|does|did|are|is|was|were|have|has|would|could|can|will|any|anything|got)\b"
                              r"(?![^?]*\bor\b)", re.IGNORECASE)
# a seeker telling of a viewing: "I've seen it", "I watched it last year", "I loved it" (of a movie it has not seen)
_VIEWED = re.compile(
    r"\bI(?:'ve| have)?\s+(?:already\s+|just\s+)?(?:seen|watched|read|tried|been to)\b"
    r"|\bI\s+(?:loved|enjoyed|liked|adored)\s+(?:it|that|this)\b|\b(?:watch|see)(?:ed|ing)? it again\b"
    r"|\bI (?:really )?enjoy(?:ed)? watching it\b"
    r"|\b(?:that|which) I(?:'ve)?\s+(?:really\s+)?(?:enjoyed|loved|liked|love|enjoy)\b",
    re.IGNORECASE,
)
# a seeker saying what only the recommender has or lacks: "I don't have a horror movie from the 1970s", "any copy"
# ("I don't have Unforgiven"); but "I don't have a particular mood in mind", the content's own words
SEEKER_LACKS = re.compile(r"\bI (?:don't|do not) have\b(?! (?:a |any )?(?:particular|preference|strong))", re.IGNORECASE)
# a seeker recommending to the recommender: "I'd recommend", "I don't recommend X", "you'll love it", "have you seen",
# "I can help pick a movie" (the recommender's greeting said back), "Check it out."
RECOMMENDS = re.compile(r"\bI(?:'d| would)?\s+(?:love to |like to )?(?:don't |do not |not )?(?:recommend|suggest)\b"
                        r"|\bI (?:can't|cannot|can|could|won't|wouldn't|would not) (?:really )?(?:recommend|suggest)\b"
                        r"|\b(?:a good|the right) (?:choice|pick) for you\b|\bI'll (?:look|search) for\b"
                        r"|\bwhat (?:else )?to (?:suggest|recommend)\b|\bhelp (?:you )?(?:find|pick|choose)\b|\bI can help\b"
                        r"|\bhave you (?:seen|watched)\b|(?:^|[.!?]\s+)(?:check it out|give it a (?:try|go|shot|watch))\b"
                        r"|\bwill (?:captivate|delight|thrill|amaze|keep) you\b|\byou(?:'ll| will| would)\s+(?:love|enjoy)\b",
                        re.IGNORECASE)
# a seeker judging a movie it has not seen ("I didn't enjoy it", "not my favorite"), or denying one it has
_JUDGED = re.compile(r"\bnot my favou?rite\b|\bwasn't (?:a fan|for me)\b|\bdidn't (?:enjoy|like|love|care for)\b"
                     r"|\bI (?:don't|do not) (?:really )?(?:enjoy|like|love) (?:it|that one|this one)\b", re.IGNORECASE)
_DENIED = re.compile(r"\b(?:haven't|have not|never|didn't|did not) (?:seen|watched|see|watch|read)\b", re.IGNORECASE)
# a seeker welcoming a movie it turns down or only asks about ("sounds like exactly what I'm looking for",
# round 14's "Kiss of Death is a good choice for me!", a no the reader took for a yes)
_WELCOMES = re.compile(r"\bperfect(?:ly)?\b|\b(?:exactly|just) what I\b|\bwhat I'm looking for\b|\bsounds (?:great|amazing|"
                       r"wonderful|fantastic)\b|\bgood (?:choice|pick) for me\b|\bworks for me\b"
                       r"|\bI'll (?:take|go with) (?:it|that|this)\b", re.IGNORECASE)
# a seeker telling its taste as if answering an offer nobody made ("Oh, Moonlight sounds perfect")
_SOUNDS_GOOD = re.compile(r"\bsounds? (?:perfect|great|amazing|wonderful|fantastic|good)\b", re.IGNORECASE)
# a seeker agreeing or giving thanks where it only tells its taste ("I agree. Thanks for the suggestion.")
_AGREES = re.compile(r"\bI agree\b|\bthanks? (?:you )?for (?:the|your|that) (?:suggestions?|recommendations?|idea)\b",
                     re.IGNORECASE)
# ... and in a no, only the agreeing ("I agree that Kiss of Death is a crime movie": nobody said so); thanks are fine
_I_AGREE = re.compile(r"\bI agree\b", re.IGNORECASE)
# a liked example said with its liking ("Fun, exciting Mystery, Alaska movie." names it and says nothing of it)
_LIKING = re.compile(r"\b(?:lov\w*|lik\w*|enjoy\w*|favou?rite|ador\w*|fan of|great|best|amazing|wonderful)\b", re.IGNORECASE)
# the recommender's nod on what it was told, echoed by the seeker as it answers ("Got it. I loved Moonlight.")
_NOD = re.compile(r"^\W*(?:got it|i see|good to know|alright|okay|understood|fair enough|makes sense)\b", re.IGNORECASE)
# a seeker putting off the choice it came for ("I'll think about it", "I'll let you know what I pick")
_PUTS_OFF = re.compile(r"\b(?:I'll|I will|let me) (?:think about|consider|mull)\b|\bthinking about it\b|\blet you know\b",
                       re.IGNORECASE)
# a seeker saying it will watch a movie it named as one it has seen and liked
TAKES_EXAMPLE = re.compile(r"\b(?:I'll|I will|I'm going to|I am going to)\s+(?:just\s+)?(?:stick with|go with|watch|see|"
                           r"rewatch|re-watch|read|reread)\b", re.IGNORECASE)
# "Thanks again!" from a seeker that has not thanked before
_THANKS_AGAIN = re.compile(r"\bthanks? (?:you )?again\b", re.IGNORECASE)
_THANKS = re.compile(r"\bthank", re.IGNORECASE)


def seeker_slips(text: str, decided: Decided, context: ReplyContext) -> list[Defect]:
    """A seeker's viewing of a suggestion it has not seen (claimed or judged), its denial of one it has, a
    question where it only tells, accepts or turns down, the question's choices said back, an apology or a yes or
    no where it tells its taste, a liked example named without its liking, thanks "again" never given."""
    found = []
    if decided.item is not None and decided.content.move in ("accept", "inquire", "decline"):
        if decided.seen and (denied := _DENIED.search(text)):
            found.append(Defect("denies_a_viewing", denied.group(0)))
        elif not decided.seen and (viewed := _VIEWED.search(text) or _JUDGED.search(text) or _judged(text, decided.item.title)):
            found.append(Defect("claims_a_viewing", viewed.group(0)))  # "I haven't seen it" is no match
    if decided.content.move in ("inquire", "decline") and (welcome := _WELCOMES.search(text)):
        found.append(Defect("welcomes_a_miss", welcome.group(0)))
    if decided.content.move == "reveal" and (nod := _NOD.search(text)):
        found.append(Defect("echoes_a_nod", nod.group(0)))
    if decided.content.move == "reveal" and (echo := _echoed_question(text, context.other_last)):
        found.append(Defect("echoes_the_question", echo))
    if decided.content.move == "reveal" and (sorry := _SORRY.search(text)):
        found.append(Defect("apologises", sorry.group(0)))
    if decided.content.move == "reveal" and (yes_or_no := _YES_OR_NO.search(text)) and _asks_no_yes_or_no(context.other_last):
        found.append(Defect("answers_yes_or_no", yes_or_no.group(0)))
    if decided.content.move == "reveal" and (welcome := _SOUNDS_GOOD.search(text) or _AGREES.search(text)):
        found.append(Defect("answers_no_offer", welcome.group(0)))
    if decided.content.move == "reveal" and decided.example and not _LIKING.search(text):
        found.append(Defect("leaves_out_content", "that you liked it"))
    if decided.content.move == "accept" and not _THANKS.search(text):
        found.append(Defect("leaves_out_content", "thanks"))  # the recommender's goodbye may say "You're welcome"
    if (decided.content.move == "accept" and (agrees := _AGREES.search(text))
            or decided.content.move == "decline" and (agrees := _I_AGREE.search(text))):
        found.append(Defect("agrees_to_nothing", agrees.group(0)))
    if (again := _THANKS_AGAIN.search(text)) and not any(_THANKS.search(said) for said in context.own_earlier):
        found.append(Defect("thanks_again", again.group(0)))
    if decided.content.move in ("inquire", "decline", "accept") and (off := _PUTS_OFF.search(text)):
        found.append(Defect("puts_off_the_choice", off.group(0)))
    # a question where it tells, accepts or turns down without asking ("What if we skip this movie?")
    telling = decided.content.move in ("reveal", "accept") or (decided.content.move == "decline" and "?" not in decided.template)
    if telling and "?" in text:
        found.append(Defect("asks_back", next(s for s in reversed(SENTENCE_END.split(text)) if "?" in s)[-40:]))
    return found


def _asks_no_yes_or_no(said: str) -> bool:
    """Whether `said` asks something and none of its questions is one a yes or a no answers."""
    questions = [q for q in SENTENCE_END.split(said.strip()) if q.endswith("?")]
    return bool(questions) and not any(_YES_NO_QUESTION.search(q) for q in questions)


ECHOED_WORDS = 4  # words of the recommender's question a seeker's answer says back in a row ("a classic or something")


def _echoed_question(text: str, asked: str) -> str | None:
    """Words of the question just asked said back in the answer ("A classic or something new from the 1990s" to "A
    classic, or something new?"): the answer should tell, not repeat the choice."""
    questions = " ".join(q for q in re.findall(r"[^.!?]*\?", asked))
    return shared_run(re.findall(r"[\w']+", text.lower()), questions, ECHOED_WORDS)


def shared_run(words: list[str], other: str, length: int) -> str | None:
    """The first `length` words in a row of `words` (lower case) that `other` says in a row too, or None."""
    said = " " + " ".join(re.findall(r"[\w']+", other.lower())) + " "
    runs = (" ".join(words[i:i + length]) for i in range(len(words) - length + 1))
    return next((run for run in runs if f" {run} " in said), None)



def _judged(text: str, title: str) -> re.Match[str] | None:
    """'I don't like <title>': a verdict on the movie itself, which only a viewing gives."""
    return re.search(rf"\bI (?:don't|didn't|do not|did not) (?:really )?(?:like|enjoy|love|care for) {re.escape(title)}",
                     text, re.IGNORECASE)
