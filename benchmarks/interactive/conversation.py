"""One evaluation conversation: synth's seeker, who knows what it wants only as anonymised hints, talks with a
CRS for a number of CRS turns. After every CRS turn the goals' ranks in its ranking are kept (items already
mentioned never count); the conversation succeeds when the CRS recommends a goal, which the seeker then accepts
(its schema allows no other answer). Every seeker message passes the title check before the CRS sees it: a
message naming a goal is sampled again (the reply checks' `names_target`), and what still names one is
scrubbed of the sentences that do, and counted.

What the seeker is told (`mode`): `target`, its target's genres, era and mood words (synth.target_hints);
`attributes`, its genres and era only; `target-free`, no single target: the genres its held-out movies share."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from synth.analysis.defects import ReplyContext, target_draw
from synth.analysis.defects.detectors import sentences
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.interactive.cases import EvalCase
from synth.benchmarks.interactive.crs import Crs, Message
from synth.filters.titles import TitleSpotter
from synth.records import RECORD_SCHEMA_VERSION, DialogueRecord, Item, Outcome, Persona, ScoredItem, Turn
from synth.replies import ReplyFormatError
from synth.simulators import Line, Seeker, Usage

MODES = ("target", "attributes", "target-free")
SCRUBBED = "I'd like something else."  # a seeker message whose every sentence named a goal
WANTS_ID = "wants"  # target-free: the seeker's stand-in target, the genres its held-out movies share


@dataclass
class Conversation:
    """What one case's conversation measured, beside its dialogue record."""

    case: str
    crs: str
    ranks: list[int | None] = field(default_factory=list)  # the target's rank after each CRS turn (None: not ranked)
    recommended: list[str | None] = field(default_factory=list)  # the item each CRS turn recommended
    success_turn: int | None = None  # 1-based CRS turn whose recommendation was a goal
    leaks: int = 0  # seeker messages that still named a goal after their re-samples
    leaks_to_crs: int = 0  # of those, messages the scrub could not clean (must stay 0)
    no_item_turns: int = 0  # CRS turns that named no catalog item
    seconds: float = 0.0
    error: str | None = None
    goal_ranks: dict[str, list[int | None]] = field(default_factory=dict)  # target-free: each held-out movie's ranks

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def scrub(text: str, spotters: list[TitleSpotter]) -> str:
    """The message without the sentences that name a title (SCRUBBED when none is left)."""
    kept = [s for s in sentences(text) if not any(spotter.find(s) for spotter in spotters)]
    return " ".join(kept).strip() or SCRUBBED


def seeker_view(case: EvalCase, space: ItemSpace, mode: str) -> tuple[Persona, dict[str, Item]]:
    """The persona and catalog the seeker's prompt is built from, as much of the target as `mode` shows."""
    target = space.items[case.target]
    if mode == "target":
        return case.persona, space.items
    if mode == "attributes":  # no review, tags or description: no mood words
        review = case.persona.target.model_copy(update={"text": "", "tags": []})
        shown = target.model_copy(update={"description": None})
        return case.persona.model_copy(update={"target": review}), {**space.items, target.id: shown}
    genres = Counter(g for goal in case.goals for g in space.items[goal].genres)
    wants = Item(id=WANTS_ID, title="", genres=[g for g, _ in genres.most_common(3)])
    review = case.persona.target.model_copy(update={"item": WANTS_ID, "text": "", "tags": []})
    return case.persona.model_copy(update={"target": review}), {**space.items, WANTS_ID: wants}


async def converse(case: EvalCase, crs: Crs, seeker: Seeker, space: ItemSpace, *, turns: int, seed: int,
                   mode: str = "target") -> tuple[DialogueRecord, Conversation]:
    """Play `case` against `crs` for at most `turns` CRS turns."""
    started = time.monotonic()
    target = space.items[case.target]
    goals = set(case.goals)
    spotters = [TitleSpotter(space.items[goal].display) for goal in case.goals]
    usage = Usage()
    result = Conversation(case.id, crs.name)
    persona, catalog = seeker_view(case, space, mode)
    system = seeker.system_prompt(persona, catalog, several=mode == "target-free")
    stand_in = catalog[persona.target.item]
    liked = tuple(space.items[r.item].display for r in case.persona.general if r.item in space.items)
    messages = [Message(t.role, t.text, t.items) for t in case.warm_start]
    record_turns = [Turn(role=t.role, text=t.text) for t in case.warm_start]  # type: ignore[arg-type]
    mentioned = list(dict.fromkeys([*case.mentioned, *(r.item for r in case.persona.general)]))
    recommended_titles: list[str] = []

    async def seeker_says(recommended: str | None, step: int) -> Turn:
        item = space.items[recommended] if recommended else None
        accepting = recommended in goals
        context = ReplyContext(
            "seeker", other_last=messages[-1].text if messages else "",
            own_earlier=tuple(m.text for m in messages if m.role == "seeker"), liked=liked,
            hidden_target=None if mode == "target-free" else target.display,
            target_draw=None if mode == "target-free" else target_draw(persona.target, catalog[persona.target.item]),
            suggestion=item.display if item else None, mentioned=tuple(recommended_titles),
            other_earlier=tuple(m.text for m in messages if m.role == "recommender"), items=(target,),
            accepting=accepting,
        )
        lines = [Line(m.text, m.role == "seeker") for m in messages]
        reply = await seeker.reply(system, lines, target=item if accepting and item else stand_in, recommended=item,
                                   opinion=None, seed=seed + step, usage=usage, context=context, liked=liked)
        text = reply.utterance
        if not accepting and any(spotter.find(text) for spotter in spotters):
            result.leaks += 1
            text = scrub(text, spotters)
            result.leaks_to_crs += any(spotter.find(text) for spotter in spotters)
        messages.append(Message("seeker", text))
        return Turn(role="seeker", text=text, accepted=reply.accept, checks=reply.checks)

    outcome = Outcome(accepted_target=False, ended_by="turn_cap")
    try:
        if not messages or messages[-1].role != "seeker":
            record_turns.append(await seeker_says(None, 0))
        for step in range(1, turns + 1):
            reply = await crs.respond(case.id, messages, mentioned)
            rank = {i: r for r, i in enumerate(reply.ranking, 1)}
            result.ranks.append(rank.get(target.id))
            if case.wants:
                for goal in case.wants:
                    result.goal_ranks.setdefault(goal, []).append(rank.get(goal))
            result.recommended.append(reply.recommended)
            result.no_item_turns += reply.recommended is None
            messages.append(Message("recommender", reply.utterance, (reply.recommended,) if reply.recommended else ()))
            ranked = [ScoredItem(item_id=i, score=-r) for r, i in enumerate(reply.ranking[:10])]
            record_turns.append(Turn(role="recommender", text=reply.utterance, recommended_item=reply.recommended,
                                     candidates=ranked))
            if reply.recommended is not None:
                mentioned.append(reply.recommended)
                recommended_titles.append(space.items[reply.recommended].display)
            answer = await seeker_says(reply.recommended, step)
            record_turns.append(answer)
            if reply.recommended in goals:
                result.success_turn = step
                outcome = Outcome(accepted_target=bool(answer.accepted), turns_to_goal=len(record_turns),
                                  ended_by="accepted" if answer.accepted else "target_rejected",
                                  recommendations=len(recommended_titles))
                break
        else:
            outcome = Outcome(accepted_target=False, ended_by="turn_cap", recommendations=len(recommended_titles))
    except ReplyFormatError as exc:  # the seeker found no reply in format: the conversation ends, recorded
        result.error = str(exc)
        outcome = Outcome(accepted_target=False, ended_by="error", recommendations=len(recommended_titles))
    result.seconds = round(time.monotonic() - started, 3)
    record = DialogueRecord(
        schema_version=RECORD_SCHEMA_VERSION, id=f"eval-{crs.name}-{case.id}", user_id=case.persona.user_id,
        persona=case.persona, target_item=target, scripted_turns=len(case.warm_start), turns=record_turns,
        outcome=outcome,
        generation=usage.generation(seeker.backend, seeker.prompts, seeker.sampling, seed, retriever=crs.name),
        errors=[result.error] if result.error else [],
    )
    return record, result
