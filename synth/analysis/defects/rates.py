"""Defect rates of a set of dialogues: each reply detector's share of the utterances it applies to (and of the
dialogues with at least one), and two measures only a set can show (the same opening question in several
dialogues, rejections that start alike)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from synth.analysis.defects.checks import check_reply
from synth.analysis.defects.detectors import words
from synth.analysis.defects.views import Spoken

START_WORDS = 6  # rejections that share their first six words start alike
_QUESTION = re.compile(r"[^.!?]*\?")


@dataclass(frozen=True)
class Measure:
    name: str
    label: str
    unit: str  # what the rate is a share of


DEFECTS: tuple[Measure, ...] = (
    Measure("same_opening", "same opening question as another dialogue", "dialogues with one"),
    Measure("shared_rejection_start", "rejection starting with the same 6 words as another", "rejections"),
    Measure("copies_other", "copies 8+ words of the other speaker", "utterances"),
    Measure("repeats_itself", "60%+ of its 3-grams repeat its own earlier utterance", "utterances"),
    Measure("third_person", "speaks of a participant in the third person", "utterances"),
    Measure("contradicts_review", "contradicts its own review", "seeker utterances"),
    Measure("names_target", "seeker names its hidden target", "seeker utterances"),
    Measure("borrows_description", "describes an item with another's description", "recommender utterances"),
    Measure("copies_example", "copies its prompt's example", "utterances"),
    Measure("echoes_instructions", "says its instructions or the reply format", "utterances"),
    Measure("unsaid_reference", "refers to a title or suggestion the other side never made", "utterances"),
    Measure("speaks_as_other", "speaks as the other role", "utterances"),
    Measure("unnamed_recommendation", "recommends without naming the item", "recommendations"),
    Measure("recites_target", "seeker repeats 5+ words of its hidden target's review", "seeker utterances before the target"),
    Measure("unasked_question", "planned question that asks nothing", "turns planned as questions"),
    Measure("early_goodbye", "thanks or goodbye before any recommendation", "utterances before a recommendation"),
    Measure("premature_goodbye", "goodbye after a recommendation while the dialogue goes on", "utterances after a recommendation, before the end"),
    Measure("contradicts_catalog", "contradicts the catalog (year, genre, credits)", "utterances"),
    Measure("accepts_in_words", "seeker says it will take an item it does not accept", "seeker utterances not accepting"),
    Measure("suggests_unlisted", "recommender suggests an item not among its candidates", "recommender utterances"),
    Measure("other_domain", "calls an item by another domain's word", "utterances"),
)
# dialogue-state measures: the coherence of a dialogue (issue #43's defects)
STATE_DEFECTS = ("unsaid_reference", "speaks_as_other", "unnamed_recommendation", "recites_target", "unasked_question",
                 "early_goodbye", "premature_goodbye", "contradicts_catalog", "accepts_in_words", "suggests_unlisted",
                 "other_domain")
# measures that need the persona, the plan or the items shown, per role (None: either): counted only on
# utterances that know them (synth records)
_NEEDS_KNOWN = {"contradicts_review": "seeker", "names_target": "seeker", "borrows_description": "recommender",
                "copies_example": None, "unsaid_reference": None, "early_goodbye": None, "premature_goodbye": None,
                "contradicts_catalog": None,
                "accepts_in_words": "seeker", "suggests_unlisted": "recommender", "other_domain": None}


def applies(name: str, spoken: Spoken) -> bool:
    """Whether the measure `name` counts this utterance at all (the denominator of its rate)."""
    if name in _NEEDS_KNOWN and (not spoken.known or _NEEDS_KNOWN[name] not in (None, spoken.role)):
        return False
    context = spoken.context
    if name == "unnamed_recommendation":
        return spoken.recommends is not None
    if name == "recites_target":
        return spoken.role == "seeker" and bool(context.target_draw)
    if name == "unasked_question":
        return context.question
    if name == "early_goodbye":
        return not context.mentioned and spoken.recommends is None
    if name == "premature_goodbye":
        return bool(context.mentioned or spoken.recommends) and not (context.accepting or context.closing)
    if name == "accepts_in_words":
        return not context.accepting
    return True


@dataclass(frozen=True)
class Rate:
    hits: int
    of: int
    dialogues: int = 0  # dialogues with at least one hit
    of_dialogues: int = 0  # dialogues with at least one utterance the measure applies to

    @property
    def rate(self) -> float | None:
        return self.hits / self.of if self.of else None


def opening_question(utterances: Sequence[Spoken]) -> str | None:
    """The recommender's first question about the seeker's taste: the first question of its first utterance
    that asks one and names no item, in lower-case words."""
    for spoken in utterances:
        if spoken.role == "recommender" and spoken.named is None and "?" in spoken.text:
            question = _QUESTION.search(spoken.text)
            return " ".join(words(question.group(0))) if question else None
    return None


def shared(keys: Sequence[str | None]) -> Rate:
    """How many of the present keys occur more than once, of the present keys."""
    present = [k for k in keys if k]
    counts = Counter(present)
    return Rate(sum(counts[k] > 1 for k in present), len(present))


def defect_rates(dialogues: Iterable[Sequence[Spoken]]) -> dict[str, Rate]:
    """Every measure of DEFECTS over the dialogues' utterances; a measure counts only the utterances it applies
    to (`applies`), so a human set has none of the measures that need a persona or a plan (`of` 0)."""
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    hit_dialogues: Counter[str] = Counter()
    applied_dialogues: Counter[str] = Counter()
    openings: list[str | None] = []
    starts: list[str | None] = []
    for utterances in dialogues:
        openings.append(opening_question(utterances))
        hit_here: set[str] = set()
        applied_here: set[str] = set()
        for spoken in utterances:
            found = {d.name for d in check_reply(spoken.text, spoken.context, spoken.named, spoken.recommends)}
            for measure in DEFECTS[2:]:
                if not applies(measure.name, spoken):
                    continue
                totals[measure.name] += 1
                hits[measure.name] += measure.name in found
                applied_here.add(measure.name)
                if measure.name in found:
                    hit_here.add(measure.name)
            if spoken.rejection:
                starts.append(" ".join(words(spoken.text)[:START_WORDS]))
        hit_dialogues.update(hit_here)
        applied_dialogues.update(applied_here)
    rates = {name: Rate(hits[name], totals[name], hit_dialogues[name], applied_dialogues[name]) for name in totals}
    return {"same_opening": shared(openings), "shared_rejection_start": shared(starts)} | {
        m.name: rates.get(m.name, Rate(0, 0)) for m in DEFECTS[2:]
    }


def dialogues_with_any(dialogues: Iterable[Sequence[Spoken]], names: Sequence[str] = STATE_DEFECTS) -> Rate:
    """How many dialogues hold at least one of the defects `names`, of the dialogues."""
    found = total = 0
    for utterances in dialogues:
        total += 1
        found += any(
            d.name in names and applies(d.name, spoken)
            for spoken in utterances
            for d in check_reply(spoken.text, spoken.context, spoken.named, spoken.recommends)
        )
    return Rate(found, total, found, total)
