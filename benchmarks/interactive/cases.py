"""Evaluation cases: a seeker with one hidden target, what it liked before, and an optional warm start.

From a human test set, each target the set records becomes a case (synth.data.reference_targets: ReDial's
movies the recommender suggested and the seeker liked; INSPIRED's first movie the recommender brought up in a
dialogue not labelled a rejection), with the human dialogue before the target's first mention as its warm
start and the movies the seeker itself mentioned there as its taste. From a synth run, each record's persona
and target. A target must be an item of the catalog (the MovieLens space of `synth benchmark`), so that the
seeker knows its genres and era; the others are counted, not played."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from synth.analysis.stats.corpus import utterance_text
from synth.benchmarks.crs.items import ItemSpace, MappingReport
from synth.data.dialogues import Dialogue
from synth.data.reference_targets import dialogue_targets
from synth.records import DialogueRecord, Persona, Review

LIKED = 1.0  # the score of a movie the seeker liked (a human case has no ratings: its questionnaire or mentions)
HISTORY, WANTS, LIKE = 8, 3, 4.0  # target-free: ratings shown as taste, movies held out, a "liked" rating


@dataclass(frozen=True)
class WarmTurn:
    """One turn of the human dialogue before the target's first mention."""

    role: str  # "seeker" | "recommender"
    text: str
    items: tuple[str, ...] = ()  # catalog ids it mentions


@dataclass(frozen=True)
class EvalCase:
    """One conversation to play: `id` is stable (source dialogue and target), `persona` what the seeker knows."""

    id: str
    persona: Persona
    warm_start: tuple[WarmTurn, ...] = ()
    source: str = ""  # the dialogue or record it comes from
    wants: tuple[str, ...] = ()  # target-free: the held-out movies the seeker liked (any of them is a success)

    @property
    def target(self) -> str:
        """The hidden target (target-free: the first of the wants)."""
        return self.wants[0] if self.wants else self.persona.target.item

    @property
    def goals(self) -> tuple[str, ...]:
        """What counts as a success: the target, or any of the wants."""
        return self.wants or (self.target,)

    @property
    def mentioned(self) -> tuple[str, ...]:
        """Items the warm start already names: never a hit when recommended again."""
        return tuple(dict.fromkeys(i for turn in self.warm_start for i in turn.items))


@dataclass
class CaseReport:
    """How many targets the test set holds and why some are not played."""

    dialogues: int = 0
    targets: int = 0
    not_in_catalog: int = 0
    cases: int = 0
    mapping: MappingReport = field(default_factory=MappingReport)

    def as_dict(self) -> dict[str, object]:
        return {"dialogues": self.dialogues, "targets": self.targets, "not_in_catalog": self.not_in_catalog,
                "cases": self.cases, "item_mapping": self.mapping.as_dict()}


def human_cases(dialogues: Iterable[Dialogue], kind: str, space: ItemSpace, report: CaseReport,
                warm_start: bool = True) -> list[EvalCase]:
    """One case per target of each dialogue (`kind`: 'redial' or 'inspired'); `warm_start` False plays every
    case from the seeker's first message instead."""
    cases = []
    for dialogue in dialogues:
        report.dialogues += 1
        turns = [WarmTurn(t.role, utterance_text(dialogue, t),
                          tuple(space.resolve(dialogue.items.get(i, i), report.mapping)
                                for i in dict.fromkeys(t.items)))
                 for t in dialogue.turns]
        opinions = seeker_opinions(dialogue, space)
        for name in dialogue_targets(dialogue, kind):
            report.targets += 1
            target = space.find(name)
            if target is None or target.startswith("title:") or not space.items[target].genres:
                report.not_in_catalog += 1
                continue
            first = next((index for index, turn in enumerate(turns) if target in turn.items), len(turns))
            before = tuple(turns[:first]) if warm_start else ()
            said = dict.fromkeys(i for turn in before if turn.role == "seeker" for i in turn.items if i != target)
            user = str(dialogue.seeker_id or dialogue.id)
            persona = Persona(
                user_id=user,
                general=[Review(user=user, item=i, rating=opinions.get(i, LIKED), text="", score=opinions.get(i, LIKED))
                         for i in said],
                target=Review(user=user, item=target, rating=LIKED, text="", score=LIKED),
            )
            cases.append(EvalCase(f"{dialogue.id}:{target}", persona, before, dialogue.id))
    report.cases += len(cases)
    return cases


def seeker_opinions(dialogue: Dialogue, space: ItemSpace) -> dict[str, float]:
    """ReDial's questionnaire: the seeker's opinion of each movie of the dialogue it said it liked (1.0) or
    disliked (0.0); other sets have none (a movie the seeker mentions counts as liked)."""
    form = dialogue.meta.get("initiatorQuestions") or dialogue.meta.get("respondentQuestions") or {}
    found = {space.find(dialogue.items[movie]): float(answers["liked"])
             for movie, answers in form.items() if movie in dialogue.items and answers.get("liked") in (0, 1)}
    return {item: liked for item, liked in found.items() if item is not None}


def run_cases(records: Iterable[DialogueRecord], space: ItemSpace, report: CaseReport) -> list[EvalCase]:
    """One case per PEARL record of a synth run whose target is in the catalog: its persona and target, no warm
    start (a run of another catalog, the demo's say, counts its targets as not in the catalog)."""
    cases = []
    for record in records:
        report.dialogues += 1
        if record.persona is None:
            continue
        report.targets += 1
        if record.target_item.id not in space.items:
            report.not_in_catalog += 1
            continue
        cases.append(EvalCase(f"{record.id}:{record.target_item.id}", record.persona, (), record.id))
    report.cases += len(cases)
    return cases


def target_free_cases(ratings: pd.DataFrame, space: ItemSpace, report: CaseReport, *, history: int = HISTORY,
                      wants: int = WANTS, like: float = LIKE, seed: int = 0) -> list[EvalCase]:
    """PEPPER's setting: no single hidden target. Each MovieLens user with enough liked movies in the catalog
    holds out `wants` of them (seeded); up to `history` of its other ratings, best first, are the taste its
    seeker talks from. A recommendation of any held-out movie is a success, and Preference Coverage counts how
    many of them the CRS's rankings reached."""
    known = {i for i, item in space.items.items() if item.genres and not i.startswith("title:")}
    cases = []
    for user, rows in ratings.groupby("user", sort=True):
        report.dialogues += 1
        rows = rows[rows["item"].astype(str).isin(known)]
        liked = sorted(rows.loc[rows["rating"] >= like, "item"].astype(str))
        if len(liked) < wants + 2:
            continue
        report.targets += 1
        held = tuple(random.Random(f"wants-{seed}-{user}").sample(liked, wants))
        rest = rows[~rows["item"].astype(str).isin(held)].sort_values(["rating", "item"], ascending=[False, True])
        general = [Review(user=str(user), item=str(r.item), rating=float(r.rating), text="",
                          score=(r.rating - 0.5) / 4.5, scale=[0.5, 5.0]) for r in rest.head(history).itertuples()]
        target = Review(user=str(user), item=held[0], rating=5.0, text="", score=1.0, scale=[0.5, 5.0])
        cases.append(EvalCase(f"user-{user}:free", Persona(user_id=str(user), general=general, target=target), (),
                              f"user-{user}", held))
    report.cases += len(cases)
    return cases


def sample_cases(cases: Sequence[EvalCase], n: int | None, seed: int) -> list[EvalCase]:
    """A seeded sample of `n` cases in their order (all when `n` is None or larger), at most one per source
    dialogue first, so that a few long dialogues do not fill the sample."""
    if n is None or n >= len(cases):
        return list(cases)
    rng = random.Random(f"cases-{seed}")
    order = list(range(len(cases)))
    rng.shuffle(order)
    firsts: dict[str, int] = {}
    for index in order:
        firsts.setdefault(cases[index].source, index)
    chosen = list(firsts.values())[:n]
    chosen += [i for i in order if i not in set(chosen)][: n - len(chosen)]
    return [cases[i] for i in sorted(chosen)]
