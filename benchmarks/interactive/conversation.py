"""One evaluation conversation: synth's seeker, who knows its hidden target only as anonymised hints, talks
with a CRS for a number of CRS turns. After every CRS turn the target's rank in its ranking is kept (items
already mentioned never count); the conversation succeeds when the CRS recommends the target, which the
seeker then accepts (its schema allows no other answer). Every seeker message passes the title check before
the CRS sees it: a message naming the target is sampled again (the reply checks' `names_target`), and what
still names it is scrubbed of the sentences that do, and counted."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from synth.analysis.defects import ReplyContext, target_draw
from synth.analysis.defects.detectors import sentences
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.interactive.cases import EvalCase
from synth.benchmarks.interactive.crs import Crs, CrsReply, Message
from synth.filters.titles import TitleSpotter
from synth.records import RECORD_SCHEMA_VERSION, DialogueRecord, Outcome, ScoredItem, Turn
from synth.replies import ReplyFormatError
from synth.simulators import Line, Seeker, Usage

SCRUBBED = "I'd like something else."  # a seeker message whose every sentence named the target
SEED_STRIDE = 1000  # seeds of one conversation's seeker replies: case seed + turn


@dataclass
class Conversation:
    """What one case's conversation measured, beside its dialogue record."""

    case: str
    crs: str
    ranks: list[int | None] = field(default_factory=list)  # the target's rank after each CRS turn (None: not ranked)
    recommended: list[str | None] = field(default_factory=list)  # the item each CRS turn recommended
    success_turn: int | None = None  # 1-based CRS turn whose recommendation was the target
    leaks: int = 0  # seeker messages that still named the target after their re-samples
    leaks_to_crs: int = 0  # of those, messages the scrub could not clean (must stay 0)
    no_item_turns: int = 0  # CRS turns that named no catalog item
    seconds: float = 0.0
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def scrub(text: str, spotter: TitleSpotter) -> str:
    """The message without the sentences that name the title (SCRUBBED when none is left)."""
    kept = [s for s in sentences(text) if not spotter.find(s)]
    return " ".join(kept).strip() or SCRUBBED


def rank_of(reply: CrsReply, target: str) -> int | None:
    return reply.ranking.index(target) + 1 if target in reply.ranking else None


async def converse(case: EvalCase, crs: Crs, seeker: Seeker, space: ItemSpace, *, turns: int, seed: int
                   ) -> tuple[DialogueRecord, Conversation]:
    """Play `case` against `crs` for at most `turns` CRS turns."""
    started = time.monotonic()
    target = space.items[case.target]
    spotter = TitleSpotter(target.display)
    usage = Usage()
    result = Conversation(case.id, crs.name)
    system = seeker.system_prompt(case.persona, space.items)
    liked = tuple(space.items[r.item].display for r in case.persona.general if r.item in space.items)
    messages = [Message(t.role, t.text, t.items) for t in case.warm_start]
    record_turns = [Turn(role=t.role, text=t.text) for t in case.warm_start]  # type: ignore[arg-type]
    mentioned = list(dict.fromkeys([*case.mentioned, *(r.item for r in case.persona.general)]))
    recommended_titles: list[str] = []

    async def seeker_says(recommended: str | None, step: int) -> Turn:
        item = space.items[recommended] if recommended else None
        accepting = recommended == target.id
        context = ReplyContext(
            "seeker", other_last=messages[-1].text if messages else "",
            own_earlier=tuple(m.text for m in messages if m.role == "seeker"), liked=liked,
            hidden_target=target.display, target_draw=target_draw(case.persona.target, target),
            suggestion=item.display if item else None, mentioned=tuple(recommended_titles),
            other_earlier=tuple(m.text for m in messages if m.role == "recommender"), items=(target,),
            accepting=accepting,
        )
        lines = [Line(m.text, m.role == "seeker") for m in messages]
        reply = await seeker.reply(system, lines, target=target, recommended=item, opinion=None, seed=seed + step,
                                   usage=usage, context=context, liked=liked)
        text = reply.utterance
        if not accepting and spotter.find(text):
            result.leaks += 1
            text = scrub(text, spotter)
            result.leaks_to_crs += bool(spotter.find(text))
        messages.append(Message("seeker", text))
        return Turn(role="seeker", text=text, accepted=reply.accept, checks=reply.checks)

    outcome = Outcome(accepted_target=False, ended_by="turn_cap")
    try:
        if not messages or messages[-1].role != "seeker":
            record_turns.append(await seeker_says(None, 0))
        for step in range(1, turns + 1):
            reply = await crs.respond(case.id, messages, mentioned)
            result.ranks.append(rank_of(reply, target.id))
            result.recommended.append(reply.recommended)
            result.no_item_turns += reply.recommended is None
            messages.append(Message("recommender", reply.utterance, (reply.recommended,) if reply.recommended else ()))
            record_turns.append(Turn(role="recommender", text=reply.utterance, recommended_item=reply.recommended,
                                     candidates=[ScoredItem(item_id=i, score=-r) for r, i in enumerate(reply.ranking[:10])]))
            if reply.recommended is not None:
                mentioned.append(reply.recommended)
                recommended_titles.append(space.items[reply.recommended].display)
            answer = await seeker_says(reply.recommended, step)
            record_turns.append(answer)
            if reply.recommended == target.id:
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
        outcome=outcome, generation=usage.generation(seeker.backend, seeker.prompts, seeker.sampling, seed, retriever=crs.name),
        errors=[result.error] if result.error else [],
    )
    return record, result
