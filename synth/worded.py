"""A decided content put in words by a simulator's model (synth.content.wording), verified, re-sampled, and said
by the content's own template where no reply says it: what each side says in decided wording."""

from __future__ import annotations

from dataclasses import dataclass, replace

from synth.analysis.defects import Defect, ReplyContext, avoid_line, check_reply
from synth.content.decide import Decided
from synth.content.verification import cut_by_cap, verify
from synth.content.wording import cap_for, parse_wording, wording_messages, wording_schema, words_for
from synth.llm.ask import ask_until_parsed
from synth.records import RejectedReply, ReplyChecks, TurnContent, TurnPlan
from synth.replies import ReplyFormatError
from synth.simulators import RESAMPLE_SEED_STRIDE, RESAMPLE_TEMPERATURE_STEP, Simulator, Usage


@dataclass(frozen=True)
class Worded:
    """A turn's words, what the checks did on the way (None: the first reply passed) and its content as the
    record keeps it (who worded it)."""

    text: str
    checks: ReplyChecks | None
    content: TurnContent


def defects_of(text: str, cap: int, decided: Decided, context: ReplyContext) -> list[Defect]:
    """Everything wrong with one wording: cut by its cap, unfaithful to the content, or any reply check's defect."""
    # the item the words speak of: an answer's names no title, but its facts are its item's own
    named = decided.content.titles[0] if decided.content.titles else decided.item.display if decided.item else None
    recommends = named if decided.content.move == "offer" else None
    cut = cut_by_cap(text, cap)
    return [*([cut] if cut else []), *verify(text, decided, context), *check_reply(text, context, named, recommends)]


async def word(
    simulator: Simulator, decided: Decided, *, style: str, last: str, plan: TurnPlan | None, seed: int, usage: Usage,
    context: ReplyContext,
) -> Worded:
    """Ask `simulator`'s model to word `decided` until a reply has no defect, at most 1 + reply_resamples times
    (each re-sample with the next seed, a little more temperature and a line saying what to avoid); where none
    passes, the content's template says it, and the checks record the replies turned down and why. The words are
    checked against `context` with the content's own question move."""
    context = replace(context, question=decided.question)
    words = words_for(plan, simulator.role)
    cap = cap_for(words, decided)
    messages = wording_messages(simulator.prompts, simulator.role, decided, style=style, last=last, words=words)
    sampling = simulator.sampling
    turned_down: list[RejectedReply] = []
    defects: list[Defect] = []
    for attempt in range(sampling.reply_resamples + 1):
        problems: list[str] = []
        asked = messages if not defects else [
            messages[0], {"role": "user", "content": f"{messages[1]['content']}\n{avoid_line(defects, simulator.prompts.domain)}"}]
        try:
            text = await ask_until_parsed(
                simulator.backend, asked, wording_schema(cap), parse_wording, max_tokens=sampling.max_tokens,
                temperature=sampling.temperature + RESAMPLE_TEMPERATURE_STEP * attempt,
                seed=seed + RESAMPLE_SEED_STRIDE * attempt, retries=sampling.max_format_retries, problems=problems,
                label=f"{simulator.role} ", on_completion=usage.add,
            )
        except ReplyFormatError:
            usage.format_problems.extend(problems)
            continue
        finally:
            usage.format_retries += len(problems)
            usage.reply_resamples += attempt > 0
        defects = defects_of(text, cap, decided, context)
        if not defects:
            checks = ReplyChecks(resampled=turned_down) if turned_down else None
            return Worded(text, checks, decided.content)
        turned_down.append(RejectedReply(text=text, reasons=[str(d) for d in defects]))
    checks = ReplyChecks(resampled=turned_down, repaired=[
        f"worded from the content's template: none of {sampling.reply_resamples + 1} replies said it"])
    return Worded(decided.template, checks, decided.content.model_copy(update={"worded_by": "template"}))
