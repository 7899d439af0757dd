"""The seeker and recommender simulators: render a prompt, call the backend, parse the reply."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from synth.analysis.defects import ReplyContext, avoid_line, check_reply
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
from synth.strategy.plans import asks_first
from synth.strategy.wording import instruction, utterance_limit

Reply = TypeVar("Reply")
RESAMPLE_SEED_STRIDE = 10  # re-sample k of a reply asks with seed + 10k (format retries use seed + 0..3)
RESAMPLE_TEMPERATURE_STEP = 0.2


@dataclass
class Usage:
    """Token and call accounting for one dialogue."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_evaluated: int | None = None
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
    """One transcript line as the prompts show it."""

    speaker: str
    text: str


class Simulator:
    role = ""

    def __init__(self, backend: ChatBackend, prompts: PromptSet, sampling: Sampling):
        self.backend, self.prompts, self.sampling = backend, prompts, sampling

    async def _ask(
        self,
        system: str,
        user: str,
        schema: dict[str, Any],
        parse: Callable[[str], Reply],
        *,
        seed: int,
        usage: Usage,
        temperature: float | None = None,
    ) -> Reply:
        """Call the backend until the reply parses, at most 1 + max_format_retries times."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
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
        user: str,
        schema: dict[str, Any],
        parse: Callable[[str], Reply],
        *,
        seed: int,
        usage: Usage,
        context: ReplyContext | None,
        named: Callable[[Reply], str | None] = lambda reply: None,
    ) -> Reply:
        """`_ask`, then the reply checks (where a `context` is given): a reply with a defect is sampled again,
        at most `reply_resamples` times, each with the next seed, a little more temperature and one line saying
        what to avoid. The reply kept is the first with the fewest defects; what was turned down, and why, goes
        to its `checks`. A re-sample that never parses keeps what was found before it."""
        reply = await self._ask(system, user, schema, parse, seed=seed, usage=usage)
        if context is None:
            return reply
        defects = check_reply(reply.utterance, context, named(reply))  # type: ignore[attr-defined]
        attempts = [(reply, defects)]
        for attempt in range(1, self.sampling.reply_resamples + 1):
            if not defects:
                break
            usage.reply_resamples += 1
            try:
                reply = await self._ask(
                    system, f"{user}\n{avoid_line(defects)}", schema, parse, seed=seed + RESAMPLE_SEED_STRIDE * attempt,
                    usage=usage, temperature=self.sampling.temperature + RESAMPLE_TEMPERATURE_STEP * attempt,
                )
            except ReplyFormatError:
                break
            defects = check_reply(reply.utterance, context, named(reply))  # type: ignore[attr-defined]
            attempts.append((reply, defects))
        kept, kept_defects = min(attempts, key=lambda attempt: len(attempt[1]))
        if len(attempts) == 1 and not kept_defects:
            return kept
        turned_down = [
            RejectedReply(text=r.utterance, reasons=[str(d) for d in found])  # type: ignore[attr-defined]
            for r, found in attempts if r is not kept
        ]
        checks = ReplyChecks(resampled=turned_down, kept_defects=[str(d) for d in kept_defects])
        return replace(kept, checks=checks)  # type: ignore[type-var]


def hide_title(text: str, item: Item) -> str:
    """`text` with the item's title (with or without its year or a leading article) replaced by "this movie",
    so a seeker quoting its own review of the target cannot name it (critic quotes often do). A one-word title
    must keep its capital ("Heat", not the heat of a scene)."""
    title = re.sub(r"^(the|a|an)\s+", "", item.title, flags=re.IGNORECASE)
    if not title.strip():
        return text
    year = rf"(?:\s*\({item.year}\))?" if item.year else ""
    case = re.IGNORECASE if len(title.split()) > 1 else 0
    pattern = rf"(?<!\w)(?:(?i:the|a|an)\s+)?{re.escape(title)}{year}(?!\w)"
    return re.sub(pattern, "this movie", text, flags=case)


def target_draw(review: Review, item: Item) -> str:
    """What draws the seeker to its target: its own review, else (ratings only) its tags and what the item is."""
    if review.text:
        return review.text
    tags = f"You tagged it: {', '.join(review.tags)}. " if review.tags else ""
    return tags + (item.description or ", ".join(item.genres))


class Seeker(Simulator):
    """Plays the user behind a persona: states its taste, rejects non-targets, accepts the target."""

    role = "seeker"

    def system_prompt(
        self, persona: Persona, catalog: dict[str, Item], *, planned: bool = False, example: ExampleChoice | None = None
    ) -> str:
        """The seeker's standing instructions; `planned`: its moves come from a plan (--strategy human);
        `example`: the dialogue's example exchange (the one seed 0 draws when not given)."""
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
            target=target,
            target_review=hide_title(target_draw(persona.target, target), target),
            end_marker=END_MARKER,
            planned=planned,
            example=example.seeker,
            style=example.style,
        )

    async def reply(
        self,
        system: str,
        transcript: list[Line],
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
        """The seeker's next message; it decides on `recommended` unless its `plan` asks about it first. Asked
        about its taste, it is reminded which reviewed titles it `liked` and `disliked`. With a `context`, a
        reply the checks find a defect in is sampled again (`_ask_checked`)."""
        asks = plan is not None and recommended is not None and asks_first(plan)
        decides = recommended is not None and not asks
        user = self.prompts.render(
            "seeker_turn",
            transcript=transcript,
            recommended=recommended,
            recommended_is_target=recommended is not None and recommended.id == target.id,
            opinion=None if opinion is None else {
                "verdict": verdict(opinion), "text": opinion.text, "stars": opinion.stars, "tags": opinion.tags
            },
            end_marker=END_MARKER,
            asks=asks,
            liked=list(liked),
            disliked=list(disliked),
            move=None if plan is None else instruction("seeker", plan, item=recommended.display if recommended else "it"),
        )
        limit = utterance_limit(plan, [recommended] if recommended else [])
        return await self._ask_checked(
            system, user, seeker_schema(decides, max_chars=limit),
            lambda text: parse_seeker(text, decides=decides, max_chars=limit), seed=seed, usage=usage, context=context,
        )


class Recommender(Simulator):
    """Asks about preferences, then recommends exactly one retrieved candidate with a private rationale."""

    role = "recommender"

    def system_prompt(self, *, planned: bool = False, example: ExampleChoice | None = None) -> str:
        """The recommender's standing instructions; `planned`: its moves come from a plan (--strategy human);
        `example`: the dialogue's example exchange (the one seed 0 draws when not given)."""
        return self.prompts.render("recommender_system", planned=planned, example=(example or ExampleChoice.draw(self.prompts.examples, 0)).recommender)

    async def reply(
        self,
        system: str,
        transcript: list[Line],
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
        user = self.prompts.render(
            "recommender_turn", transcript=transcript, candidates=candidates or [], about=about, may_pass=may_pass,
            opening=opening,
            move=None if plan is None else instruction("recommender", plan, item=about.display if about else "it"),
        )
        limit = utterance_limit(plan, [*(candidates or []), *([about] if about else [])])
        titles = {item.id: item.display for item in candidates or []}
        return await self._ask_checked(
            system,
            user,
            recommender_schema(candidates, may_pass=may_pass, max_chars=limit),
            lambda text: parse_recommender(text, candidates, may_pass=may_pass, max_chars=limit),
            seed=seed,
            usage=usage,
            context=context,
            named=lambda reply: titles.get(reply.item_id or "") or (about.display if about else None),
        )
