"""A planned move in plain words, as the turn prompts show it: "ask whether they have seen one of the
candidates, then say why it fits their taste. Aim for about 9 words." """

from __future__ import annotations

from collections.abc import Sequence

from synth.analysis.acts.taxonomy import Role
from synth.domain import Domain, load_domain
from synth.records import Item, TurnPlan
from synth.replies import UTTERANCE_MAX_CHARS

# In the order the parts of one message are said; "{item}" is the suggestion being talked about, "{noun}",
# "{a_noun}", "{plural}", "{verb}", "{seen}" and "{when}" the domain's words (synth.domain).
RECOMMENDER_MOVES = {
    "RESP": "react briefly to what they just said",
    "R-ANS": "answer their question about {item} with a fact from what you know of it",
    "REQ": "ask them one question about what they like",
    "CLQ": "ask them to tell you more about what they just said",
    "REC-S": "suggest one of the candidates by its title",
    "REC-E": 'ask "Have you seen ...?" about one of the candidates',
    "EXP-I": "say in a few words what it is about",
    "EXP-P": "say why it suits their taste",
    "EXP-S": "compare it with {a_noun} mentioned earlier",
}
SEEKER_MOVES = {
    "IQU": "say what kind of {noun} you want to {verb} {when}",
    "ANS": "answer their question",
    "PRO": "tell them something you like or dislike in {plural}, from your reviews",
    "ASK": "ask what they think of {a_noun}",
    "SEE": "say whether you have {seen} {item}",
    "INQ": "ask one question about {item}, such as what it is about or who is in it, and do not say yet whether you want it",
    "ACC": "say you will {verb} {item}",
    "REJ": "say you don't want {item}, and why",
    "NRE": "answer about {item} without committing",
    "CRI-F": "say which part of {item} is not for you",
    "CRI-A": "say what you would want more of",
    "CRI-C": "compare {item} with {a_noun} you know",
    "CON": "ask them for another suggestion",
    "REF": "change or narrow down what you asked for",
    "STO": "ask for something completely different",
}
MOVES: dict[Role, dict[str, str]] = {"recommender": RECOMMENDER_MOVES, "seeker": SEEKER_MOVES}
# Small talk (OTH) fits the dialogue's stage: thanks and goodbyes only once something was recommended.
GREETING = "add a friendly word (a greeting or a short reaction; nothing was recommended yet, so no thanks or goodbye)"
UNSEEN = "say you have not {seen} {item} yet"
SMALL_TALK = "add a friendly word (a short reaction, thanks or goodbye, whatever fits)"


def instruction(
    role: Role, plan: TurnPlan, *, item: str = "it", leave_out: tuple[str, ...] = (), recommended: bool = True,
    unseen: bool = False, domain: Domain | None = None,
) -> str:
    """The move in words, small talk (OTH) last: 'In about 8 words, suggest ... and say why it suits their
    taste.' `leave_out` drops acts another part of the prompt already asks for (e.g. GoRecDial's decision);
    `recommended`: something was recommended already (small talk may thank or say goodbye); `unseen`: the
    seeker has not seen the suggestion (the target it accepts as new to it); `domain`: whose words (movies by
    default)."""
    moves = {**MOVES[role], **({"SEE": UNSEEN} if unseen else {})}
    words = domain_words(domain or load_domain())
    parts = [text.format(item=item, **words) for code, text in moves.items() if code in plan.acts and code not in leave_out]
    if "OTH" in plan.acts or not parts:
        parts.append(SMALL_TALK if recommended else GREETING)
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"In about {plan.words} words, {said}."


def domain_words(domain: Domain) -> dict[str, str]:
    """The domain's words that move texts name: noun, a_noun, plural, verb, seen, when."""
    return {
        "noun": domain.noun, "a_noun": domain.a_noun, "plural": domain.plural, "verb": domain.verb,
        "seen": domain.seen, "when": domain.when,
    }


CHARS_PER_WORD = 12  # the cap leaves about twice the planned length (people average under 6 characters a word)
MIN_CHARS = 120


def utterance_limit(plan: TurnPlan | None, named: Sequence[Item] = ()) -> int:
    """The reply's length cap in characters: the schema's usual cap without a plan; with one, room for about
    twice the planned words (120 characters at least) plus the longest title the turn may name, so that a
    small model that ignores "in about N words" still writes a turn of about a person's length."""
    if plan is None:
        return UTTERANCE_MAX_CHARS
    title = max((len(item.display) for item in named), default=0)
    return min(UTTERANCE_MAX_CHARS, max(MIN_CHARS, CHARS_PER_WORD * plan.words) + title)
