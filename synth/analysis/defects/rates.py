"""Defect rates of a set of dialogues: each reply detector's share of the utterances it applies to, and two
measures only a set can show (the same opening question in several dialogues, rejections that start alike)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from synth.analysis.defects.detectors import check_reply, words
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
    Measure("third_person", "speaks of a participant in the third person (or a seeker as the recommender)", "utterances"),
    Measure("contradicts_review", "contradicts its own review", "seeker utterances"),
    Measure("names_target", "seeker names its hidden target", "seeker utterances"),
    Measure("borrows_description", "describes an item with another's description", "recommender utterances"),
    Measure("copies_example", "copies its prompt's example", "utterances"),
)
# measures that need the persona or the items shown, per role: counted only on utterances that know them
_NEEDS_KNOWN = {"contradicts_review": "seeker", "names_target": "seeker", "borrows_description": "recommender",
                "copies_example": None}


@dataclass(frozen=True)
class Rate:
    hits: int
    of: int

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
    """Every measure of DEFECTS over the dialogues' utterances; a measure that needs the persona or the items
    shown counts only utterances that know them (synth records), so a human set has none (`of` 0)."""
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    openings: list[str | None] = []
    starts: list[str | None] = []
    for utterances in dialogues:
        openings.append(opening_question(utterances))
        for spoken in utterances:
            found = {d.name for d in check_reply(spoken.text, spoken.context, spoken.named)}
            for measure in DEFECTS[2:]:
                if measure.name in _NEEDS_KNOWN and (not spoken.known or _NEEDS_KNOWN[measure.name] not in (None, spoken.role)):
                    continue
                totals[measure.name] += 1
                hits[measure.name] += measure.name in found
            if spoken.rejection:
                starts.append(" ".join(words(spoken.text)[:START_WORDS]))
    rates = {name: Rate(hits[name], totals[name]) for name in totals}
    return {"same_opening": shared(openings), "shared_rejection_start": shared(starts)} | {
        m.name: rates.get(m.name, Rate(0, 0)) for m in DEFECTS[2:]
    }
