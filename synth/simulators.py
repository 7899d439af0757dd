"""The seeker and recommender simulators: render a prompt, call the backend, parse the reply."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from synth.analysis.defects import Defect, ReplyContext, avoid_line, check_decision, check_reply
from synth.llm.ask import ask_until_parsed
from synth.llm.base import ChatBackend, Completion
from synth.prompting import PromptSet
from synth.records import Generation, Item, Persona, RejectedReply, ReplyChecks, Review, TurnPlan, verdict
from synth.replies import (
    END_MARKER,
    RecommenderReply,
    ReplyFormatError,
    SeekerReply,
    parse_recommender,
    parse_seeker,
    recommender_schema,
    seeker_schema,
)
from synth.reply_repairs import named_recommendation, spoken_in_role
from synth.strategy.plans import asks_first
from synth.strategy.wording import instruction, utterance_limit
from synth.target_hints import target_hints

Reply = TypeVar("Reply")
RESAMPLE_SEED_STRIDE = 10  # re-sample k of a reply asks with seed + 10k (format retries use seed + 0..3)
RESAMPLE_TEMPERATURE_STEP = 0.2


@dataclass
class Usage:
    """Token and call accounting for one dialogue."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_evaluated: int | None = None
    completion_tokens_forced: int | None = None
    calls: int = 0
    latency_s: float = 0.0
    format_retries: int = 0
    format_problems: list[str] = field(default_factory=list)
    reply_resamples: int = 0

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.prompt_tokens
        if completion.prompt_tokens_evaluated is not None:
            self.prompt_tokens_evaluated = (self.prompt_tokens_evaluated or 0) + completion.prompt_tokens_evaluated
        self.completion_tokens += completion.completion_tokens
        if completion.completion_tokens_forced is not None:
            self.completion_tokens_forced = (self.completion_tokens_forced or 0) + completion.completion_tokens_forced
        self.calls += 1
        self.latency_s += completion.latency_s

    def generation(
        self, backend: ChatBackend, prompts: PromptSet, sampling: Sampling, seed: int, retriever: str | None = None
    ) -> Generation:
        """The record's `generation` block for a dialogue that used this much."""
        return Generation(
            backend=backend.name,
            model=backend.model_info.name,
            prompt_hashes=prompts.hashes,
            sampling=sampling.as_dict(),
            seed=seed,
            retriever=retriever,
            prompt_tokens=self.prompt_tokens,
            prompt_tokens_evaluated=self.prompt_tokens_evaluated,
            completion_tokens=self.completion_tokens,
            completion_tokens_forced=self.completion_tokens_forced,
            llm_calls=self.calls,
            latency_s=round(self.latency_s, 3),
            format_retries=self.format_retries,
            reply_resamples=self.reply_resamples,
        )


@dataclass(frozen=True)
class Sampling:
    max_tokens: int = 160
    temperature: float = 0.0
    max_format_retries: int = 3
    reply_resamples: int = 0  # times a reply with a defect is sampled again (synth.analysis.defects)

    def as_dict(self) -> dict[str, float | int | None]:
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "max_format_retries": self.max_format_retries,
                "reply_resamples": self.reply_resamples}


@dataclass(frozen=True)
class ExampleChoice:
    """The example exchanges one dialogue's prompts show, the topic of the recommender's first question about
    the seeker's taste and the seeker's way of talking: drawn from the prompt set's examples with the
    dialogue's seed."""

    seeker: dict[str, Any]
    recommender: dict[str, Any]
    opening: str
    style: str

    @classmethod
    def draw(cls, examples: dict[str, Any], seed: int) -> ExampleChoice:
        """One of each, seeded."""
        rng = random.Random(f"examples-{seed}")
        return cls(rng.choice(examples["seeker"]), rng.choice(examples["recommender"]), rng.choice(examples["openings"]),
                   rng.choice(examples["styles"]))


@dataclass(frozen=True)
class Line:
    """One line of the dialogue so far, as one side sees it: its own (`own`) or the other side's."""

    text: str
    own: bool


def chat_messages(system: str, lines: Sequence[Line], instructions: str) -> list[dict[str, str]]:
    """The dialogue as real chat turns: the system prompt, each side's lines as the model's own (assistant) or
    the other person's (user), consecutive lines of one side joined, and this turn's instructions after the other
    side's last line, set apart from its words."""
    messages = [{"role": "system", "content": system}]
    for line in lines:
        role = "assistant" if line.own else "user"
        if messages[-1]["role"] == role:
            messages[-1]["content"] += "\n" + line.text
        else:
            messages.append({"role": role, "content": line.text})
    note = f"[Instructions for your next message, not part of the chat]\n{instructions}"
    if messages[-1]["role"] == "user":
        messages[-1]["content"] += "\n\n" + note
    else:
        messages.append({"role": "user", "content": note})
    return messages


QUESTION_NOTE = (
    'This message asks a question: write what you say before it in "utterance" (or leave it empty) and the '
    'question itself in "question", ending with "?".'
)


def asking(instructions: str, question: bool) -> str:
    """A question move's instructions end by saying where its question goes (the schema's `question` field)."""
    return f"{instructions}\n{QUESTION_NOTE}" if question else instructions


def suggested_before(context: ReplyContext | None) -> bool:
    """Whether anything was recommended before this reply (unknown without a context: assume so, so that no
    prompt claims nothing was)."""
    return context is None or bool(context.mentioned)


class Simulator:
    role = ""

    def __init__(self, backend: ChatBackend, prompts: PromptSet, sampling: Sampling):
        self.backend, self.prompts, self.sampling = backend, prompts, sampling

    async def _ask(
        self,
        system: str,
        lines: Sequence[Line],
        instructions: str,
        schema: dict[str, Any],
        parse: Callable[[str], Reply],
        *,
        seed: int,
        usage: Usage,
        temperature: float | None = None,
    ) -> Reply:
        """Call the backend until the reply parses, at most 1 + max_format_retries times."""
        messages = chat_messages(system, lines, instructions)
        problems: list[str] = []
        try:
            return await ask_until_parsed(
                self.backend, messages, schema, parse, max_tokens=self.sampling.max_tokens,
                temperature=self.sampling.temperature if temperature is None else temperature, seed=seed,
                retries=self.sampling.max_format_retries,
                problems=problems, label=f"{self.role} ", on_completion=usage.add,
            )
        except ReplyFormatError:
            usage.format_problems.extend(problems)
            raise ReplyFormatError(f"{self.role}: no valid reply in {len(problems)} attempts; last: {problems[-1]}") from None
        finally:
            usage.format_retries += len(problems)

    async def _ask_checked(
        self,
        system: str,
        lines: Sequence[Line],
        instructions: str,
        schema: dict[str, Any],
        parse: Callable[[str], Reply],
        *,
        seed: int,
        usage: Usage,
        inspect: Callable[[Reply], list[Defect]] | None,
    ) -> Reply:
        """`_ask`, then the reply checks (`inspect`, where given): a reply with a defect is sampled again, at
        most `reply_resamples` times, each with the next seed, a little more temperature and one line saying
        what to avoid. The reply kept is the first with the fewest defects; what was turned down, and why, goes
        to its `checks`. A re-sample that never parses keeps what was found before it: no dialogue is lost to a
        check."""
        reply = await self._ask(system, lines, instructions, schema, parse, seed=seed, usage=usage)
        if inspect is None:
            return reply
        defects = inspect(reply)
        attempts = [(reply, defects)]
        for attempt in range(1, self.sampling.reply_resamples + 1):
            if not defects:
                break
            usage.reply_resamples += 1
            try:
                reply = await self._ask(
                    system, lines, f"{instructions}\n{avoid_line(defects, self.prompts.domain)}", schema, parse,
                    seed=seed + RESAMPLE_SEED_STRIDE * attempt, usage=usage,
                    temperature=self.sampling.temperature + RESAMPLE_TEMPERATURE_STEP * attempt,
                )
            except ReplyFormatError:
                break
            defects = inspect(reply)
            attempts.append((reply, defects))
        kept, kept_defects = min(attempts, key=lambda attempt: len(attempt[1]))
        if len(attempts) == 1 and not kept_defects:
            return kept
        turned_down = [
            RejectedReply(text=r.utterance, reasons=[str(d) for d in found])  # type: ignore[attr-defined]
            for r, found in attempts if r is not kept
        ]
        checks = ReplyChecks(resampled=turned_down, kept_defects=[str(d) for d in kept_defects])
        return spoken_in_role(replace(kept, checks=checks), self.role, inspect)  # type: ignore[type-var]


class Seeker(Simulator):
    """Plays the user behind a persona: states its taste, rejects non-targets, accepts the target."""

    role = "seeker"

    def system_prompt(
        self, persona: Persona, catalog: dict[str, Item], *, planned: bool = False, example: ExampleChoice | None = None,
        several: bool = False,
    ) -> str:
        """The seeker's standing instructions; `planned`: its moves come from a plan (--strategy human);
        `example`: the dialogue's example exchange (the one seed 0 draws when not given). The hidden target is
        shown as hints only (synth.target_hints); `several`: the target stands for a few movies, any of which
        will do, and the hints are what they share."""
        general = [
            {
                "display": catalog[r.item].display, "verdict": verdict(r), "text": r.text, "stars": r.stars,
                "tags": r.tags, "about": "" if r.text else catalog[r.item].description,
            }
            for r in persona.general
        ]
        target = catalog[persona.target.item]
        example = example or ExampleChoice.draw(self.prompts.examples, 0)
        return self.prompts.render(
            "seeker_system",
            general=general,
            summary=persona.summary,
            hints=replace(target_hints(persona.target, target), several=several),
            end_marker=END_MARKER,
            planned=planned,
            example=example.seeker,
            style=example.style,
        )

    async def reply(
        self,
        system: str,
        lines: Sequence[Line],
        *,
        target: Item,
        recommended: Item | None,
        opinion: Review | None,
        seed: int,
        usage: Usage,
        plan: TurnPlan | None = None,
        context: ReplyContext | None = None,
        liked: Sequence[str] = (),
        disliked: Sequence[str] = (),
    ) -> SeekerReply:
        """The seeker's next message; it decides on `recommended` unless its `plan` asks about it first, and
        accepts it exactly when it is the `target` (the schema allows no other answer; a backend that cannot
        hold to a schema is re-sampled). Asked about its taste, it is reminded which reviewed titles it `liked`
        and `disliked`. With a `context`, a reply the checks find a defect in is sampled again (`_ask_checked`)."""
        asks = plan is not None and recommended is not None and asks_first(plan)
        decides = recommended is not None and not asks
        is_target = recommended is not None and recommended.id == target.id
        instructions = self.prompts.render(
            "seeker_turn",
            recommended=recommended,
            recommended_is_target=is_target,
            opinion=None if opinion is None else {
                "verdict": verdict(opinion), "text": opinion.text, "stars": opinion.stars, "tags": opinion.tags
            },
            end_marker=END_MARKER,
            asks=asks,
            liked=list(liked),
            disliked=list(disliked),
            suggested_before=suggested_before(context),
            move=None if plan is None else instruction(
                "seeker", plan, item=recommended.display if recommended else "it", recommended=suggested_before(context),
                unseen=is_target, domain=self.prompts.domain,
            ),
        )
        limit = utterance_limit(plan, [recommended] if recommended else [])
        accept = is_target if decides else None
        question = context is not None and context.question is True
        return await self._ask_checked(
            system, lines, asking(instructions, question), seeker_schema(decides, accept=accept, max_chars=limit, question=question),
            lambda text: parse_seeker(text, decides=decides, max_chars=limit, question=question), seed=seed, usage=usage,
            inspect=None if context is None else lambda reply: check_seeker(reply, context, accept, self.prompts.domain.noun),
        )


def check_seeker(reply: SeekerReply, context: ReplyContext, accept: bool | None, noun: str = "movie") -> list[Defect]:
    """The reply checks of a seeker reply, and its decision against the rule (it accepts the target and
    nothing else); `noun` names the item in the evidence."""
    found = check_reply(reply.utterance, context)
    wrong = check_decision(reply.accept, accept, context.suggestion, noun)
    return found + ([wrong] if wrong else [])


class Recommender(Simulator):
    """Asks about preferences, then recommends exactly one retrieved candidate (with a private rationale first,
    where `think`)."""

    role = "recommender"

    def __init__(self, backend: ChatBackend, prompts: PromptSet, sampling: Sampling, *, think: bool = False):
        super().__init__(backend, prompts, sampling)
        self.think = think  # a private rationale before each message (--think)

    def system_prompt(self, *, planned: bool = False, example: ExampleChoice | None = None) -> str:
        """The recommender's standing instructions; `planned`: its moves come from a plan (--strategy human);
        `example`: the dialogue's example exchange (the one seed 0 draws when not given)."""
        example = example or ExampleChoice.draw(self.prompts.examples, 0)
        return self.prompts.render("recommender_system", planned=planned, example=example.recommender, think=self.think)

    async def reply(
        self,
        system: str,
        lines: Sequence[Line],
        *,
        candidates: list[Item] | None,
        seed: int,
        usage: Usage,
        plan: TurnPlan | None = None,
        about: Item | None = None,
        may_pass: bool = False,
        context: ReplyContext | None = None,
        opening: str | None = None,
    ) -> RecommenderReply:
        """The recommender's next message: one of `candidates` when given (or none, where it `may_pass`), else
        it only speaks; `plan` is its planned move, `about` the suggestion the seeker asked about, `opening`
        what its first question about the seeker's taste asks about. With a `context`, a reply the checks find
        a defect in is sampled again (`_ask_checked`)."""
        instructions = self.prompts.render(
            "recommender_turn", candidates=candidates or [], about=about, may_pass=may_pass, opening=opening, think=self.think,
            move=None if plan is None else instruction(
                "recommender", plan, item=about.display if about else "it", recommended=suggested_before(context),
                domain=self.prompts.domain,
            ),
        )
        limit = utterance_limit(plan, [*(candidates or []), *([about] if about else [])])
        question = context is not None and context.question is True
        reply = await self._ask_checked(
            system,
            lines,
            asking(instructions, question),
            recommender_schema(candidates, may_pass=may_pass, max_chars=limit, question=question, think=self.think),
            lambda text: parse_recommender(
                text, candidates, may_pass=may_pass, max_chars=limit, question=question,
                short_titles=self.prompts.domain.short_titles,
            ),
            seed=seed,
            usage=usage,
            inspect=None if context is None else lambda reply: check_recommender(reply, context, candidates or [], about),
        )
        return named_recommendation(reply, candidates or [], self.prompts.domain.short_titles)


def check_recommender(reply: RecommenderReply, context: ReplyContext, candidates: Sequence[Item], about: Item | None) -> list[Defect]:
    """The reply checks of a recommender (or expert) reply: the title it recommends (one of `candidates`) or
    answers about (`about`) is the one its words must name and describe."""
    recommends = next((item.display for item in candidates if item.id == reply.item_id), None)
    named = recommends or (about.display if about else None)
    return check_reply(reply.utterance, context, named, recommends)
