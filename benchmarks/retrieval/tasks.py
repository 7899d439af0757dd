"""Retrieval cases from dialogues: the query is the dialogue before a recommender turn that mentions an
item for the first time, the target is that item, and items mentioned earlier leave the pool."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from synth.data.dialogues import Dialogue
from synth.data.redial import MENTION
from synth.data.title_match import TitleMatcher
from synth.records import DialogueRecord


@dataclass(frozen=True)
class RetrievalCase:
    dialogue_id: str
    query: str
    target: str  # a catalog id
    exclude: frozenset[str]  # catalog ids mentioned before this turn: not candidates


@dataclass
class CaseReport:
    dialogues: int = 0
    mentions: int = 0  # first mentions by the recommender
    unmapped: int = 0  # of those, items the catalog has no match for
    unmapped_examples: list[str] = field(default_factory=list)

    @property
    def mapped_share(self) -> float:
        return 1 - self.unmapped / self.mentions if self.mentions else 0.0


def redial_cases(dialogues: Iterable[Dialogue], matcher: TitleMatcher) -> tuple[list[RetrievalCase], CaseReport]:
    """Cases from ReDial-style dialogues: "@123" mentions become titles in the query text."""
    cases: list[RetrievalCase] = []
    report = CaseReport()
    for dialogue in dialogues:
        report.dialogues += 1
        catalog_id = {movie: matcher.match(name) for movie, name in dialogue.items.items()}
        titles = {movie: re.sub(r"\s*\(\d{4}\)\s*$", "", name).strip() for movie, name in dialogue.items.items()}
        context: list[str] = []
        seen: set[str] = set()
        for turn in dialogue.turns:
            if turn.role == "recommender" and context:
                for movie in dict.fromkeys(turn.items):
                    if movie in seen:
                        continue
                    report.mentions += 1
                    target = catalog_id.get(movie)
                    if target is None:
                        report.unmapped += 1
                        if len(report.unmapped_examples) < 5:
                            report.unmapped_examples.append(dialogue.items.get(movie, movie))
                        continue
                    exclude = frozenset(catalog_id[m] for m in seen if catalog_id.get(m))
                    cases.append(RetrievalCase(dialogue.id, " ".join(context), target, exclude - {target}))
            seen.update(turn.items)
            context.append(MENTION.sub(lambda m, titles=titles: titles.get(m.group(1), ""), turn.text))
    return cases, report


def synth_cases(records: Iterable[DialogueRecord]) -> tuple[list[RetrievalCase], CaseReport]:
    """Cases from generated PEARL-mode records, with the generator's own query (scripted opening left out)
    and pool (the seeker's general-taste items and earlier recommendations excluded)."""
    cases: list[RetrievalCase] = []
    report = CaseReport()
    for record in records:
        if record.persona is None:
            continue
        report.dialogues += 1
        excluded = {r.item for r in record.persona.general}
        turns = record.turns[record.scripted_turns :]
        for index, turn in enumerate(turns):
            item = turn.recommended_item
            if turn.role != "recommender" or item is None or item in excluded:
                continue
            report.mentions += 1
            query = " ".join(t.text for t in turns[:index])
            if query:
                cases.append(RetrievalCase(record.id, query, item, frozenset(excluded)))
            excluded.add(item)
    return cases, report
