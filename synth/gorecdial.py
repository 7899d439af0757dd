"""The GoRecDial game: an expert with five candidates (one correct) and a seeker with five loved movies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from synth.analysis.defects import ReplyContext, question_move
from synth.config import Strategy, Wording
from synth.content.decide import content_rng, recommender_content
from synth.content.seeker import seeker_content
from synth.content.state import Ledger, set_state
from synth.domain import Domain
from synth.movie_sets import MovieSet
from synth.records import (
    RECORD_SCHEMA_VERSION,
    DialogueRecord,
    GoRecDialGame,
    Item,
    Outcome,
    Turn,
    TurnContent,
    TurnPlan,
)
from synth.replies import (
    END_MARKER,
    NO_ITEM,
    UTTERANCE_MAX_CHARS,
    RecommenderReply,
    ReplyFormatError,
    SeekerReply,
    extract_json,
    match_candidate,
    names_no_item,
    parse_seeker,
    recommender_schema,
    seeker_schema,
    spoken_text,
)
from synth.reply_repairs import named_recommendation
from synth.short_titles import ShortTitleRule
from synth.simulators import (
    Line,
    Sampling,
    Simulator,
    Usage,
    asking,
    check_recommender,
    check_seeker,
    suggested_before,
)
from synth.strategy.courses import course_for
from synth.strategy.model import StrategyModel
from synth.strategy.plans import asks_first
from synth.strategy.wording import instruction, utterance_limit
from synth.turns import RecordMoves, Role, Unfinished, opening, play_turns, transcript
from synth.worded import word


@dataclass(frozen=True)
class GoRecDialSpec:
    id: str
    seed: int
    movie_set: MovieSet


@dataclass(frozen=True)
class GoRecDialRules:
    """The GoRecDial game's rules, for generation and for the benchmark's trained experts alike."""

    max_utterances: int = 20  # after the seed exchange
    discount: float = 0.5  # reward kept per extra recommendation
    ask_turns: int = 1  # expert turns that may only speak, so the seeker describes its taste first
    strategy: Strategy = "pearl"  # human: each turn's move is planned (synth.strategy); see synth.game.GameRules
    wording: Wording = "free"  # decided: the seeker's state decides what it says, and what was said what the expert's
    # words say (synth.content); the expert's choice stays its own

    def script(self, domain: Domain | None = None) -> tuple[tuple[Role, str], ...]:
        """The scripted opening of this strategy in the domain's words (synth.turns.opening)."""
        return opening(self.strategy, domain)

    def may_recommend(self, step: int) -> bool:
        """Whether the benchmark's trained expert may recommend at this step (its turns are the even steps; the
        generated expert asks its course, synth.strategy.courses, which counts the same turns)."""
        return step // 2 >= self.ask_turns

    def outcome(
        self, *, step: int, recommended: int | None, accepted: bool, correct: int, points: Sequence[float],
        recommendations: int,
    ) -> Outcome | None:
        """After the seeker's reply at `step` to the candidate at index `recommended` (None: nothing was
        recommended): the outcome when the reply ends the game (it accepts, the correct candidate or not),
        scored with the candidates' `points`; else None."""
        if not accepted or recommended is None:
            return None
        hit = recommended == correct
        return Outcome(
            accepted_target=hit,
            turns_to_goal=step + 1 if hit else None,
            ended_by="accepted" if hit else "wrong_acceptance",
            recommendations=recommendations,
            score=game_score(points, recommended, recommendations, self.discount),
        )

    @staticmethod
    def unfinished(ended_by: Unfinished, recommendations: int) -> Outcome:
        """A game no acceptance ended (the turn cap, or an error) scores 0."""
        return Outcome(accepted_target=False, ended_by=ended_by, recommendations=recommendations, score=0.0)


def expert_schema(
    remaining: list[Item], *, must_recommend: bool = False, max_chars: int = UTTERANCE_MAX_CHARS, question: bool = False
) -> dict[str, Any]:
    """Think, then an item (one remaining candidate, or "none" to only speak unless it `must_recommend`), then
    the utterance (ending with "?" on a `question` move). With no `remaining` candidates the expert can only
    speak."""
    schema = recommender_schema(remaining or None, max_chars=max_chars, question=question)
    schema["properties"]["item"] = {
        "type": "string", "enum": [c.display for c in remaining] + ([] if must_recommend and remaining else [NO_ITEM])
    }
    order = ("think", "item", "utterance", "question")
    schema["properties"] = {key: schema["properties"][key] for key in order if key in schema["properties"]}
    schema["required"] = list(schema["properties"])
    return schema


def parse_expert(
    text: str, remaining: list[Item], max_chars: int = UTTERANCE_MAX_CHARS, question: bool = False,
    short_titles: ShortTitleRule = "whole",
) -> RecommenderReply:
    """An expert reply: item None means the expert only speaks this turn; the item is named whole or, under the
    domain's `short_titles` rule, by its short title."""
    data = extract_json(text)
    utterance = spoken_text(data, max_chars, question)
    think = data.get("think") if isinstance(data.get("think"), str) else ""
    name = data.get("item")
    if names_no_item(name):
        return RecommenderReply(think.strip(), utterance, None)
    item = match_candidate(name, remaining, short_titles) if isinstance(name, str) else None
    if item is None:
        raise ReplyFormatError(f"'item' {name!r} is neither a remaining candidate nor 'none'")
    return RecommenderReply(think.strip(), utterance, item.id)


def game_score(points: Sequence[float], accepted_index: int | None, recommendations: int, discount: float) -> float:
    """The paper's reward: points of the accepted candidate, times discount per extra recommendation."""
    if accepted_index is None:
        return 0.0
    return round(points[accepted_index] * discount ** (recommendations - 1), 6)


class GoRecDialSeeker(Simulator):
    role = "seeker"

    def system_prompt(self, movies: list[Item]) -> str:
        return self.prompts.render("gorecdial_seeker_system", movies=movies, end_marker=END_MARKER)

    async def reply(
        self, system: str, lines: Sequence[Line], *, recommended: Item | None, correct: bool, seed: int, usage: Usage,
        plan: TurnPlan | None = None, context: ReplyContext | None = None,
    ) -> SeekerReply:
        """The seeker's next message; it decides on `recommended` unless its `plan` asks about it first, and
        accepts it exactly when it is the `correct` candidate (the game's rule, as in the paper: the game ends
        when the correct movie is recommended and accepted; the plan's accept or reject is left out of its
        move). With a `context`, a reply the checks find a defect in is sampled again."""
        asks = plan is not None and recommended is not None and asks_first(plan)
        decides = recommended is not None and not asks
        item = recommended.display if recommended else "it"
        move = None if plan is None else instruction(
            "seeker", plan, item=item, leave_out=("ACC", "REJ"), recommended=suggested_before(context), unseen=correct,
            domain=self.prompts.domain,
        )
        limit = utterance_limit(plan, [recommended] if recommended else [])
        instructions = self.prompts.render(
            "gorecdial_seeker_turn", recommended=recommended, asks=asks, move=move, correct=correct, end_marker=END_MARKER
        )
        accept = correct if decides else None
        question = context is not None and context.question is True
        return await self._ask_checked(
            system, lines, asking(instructions, question), seeker_schema(decides, accept=accept, max_chars=limit, question=question),
            lambda text: parse_seeker(text, decides=decides, max_chars=limit, question=question), seed=seed, usage=usage,
            inspect=None if context is None else lambda reply: check_seeker(reply, context, accept, self.prompts.domain.noun),
        )


class GoRecDialExpert(Simulator):
    role = "expert"

    def system_prompt(self, candidates: list[Item]) -> str:
        return self.prompts.render("gorecdial_expert_system", candidates=candidates)

    async def reply(
        self, system: str, lines: Sequence[Line], *, remaining: list[Item], seed: int, usage: Usage,
        plan: TurnPlan | None = None, about: Item | None = None, context: ReplyContext | None = None,
    ) -> RecommenderReply:
        """The expert's next message: one of `remaining` or only words; with a `plan`, its move decides which
        (`about`: the candidate the seeker asked about). With a `context`, a reply the checks find a defect in
        is sampled again."""
        must = plan is not None and bool(remaining)
        move = None if plan is None else instruction(
            "recommender", plan, item=about.display if about else "it", recommended=suggested_before(context),
            domain=self.prompts.domain,
        )
        limit = utterance_limit(plan, [*remaining, *([about] if about else [])])
        instructions = self.prompts.render("gorecdial_expert_turn", remaining=remaining, move=move, about=about)
        question = context is not None and context.question is True
        reply = await self._ask_checked(
            system, lines, asking(instructions, question),
            expert_schema(remaining, must_recommend=must, max_chars=limit, question=question),
            lambda text: parse_expert(text, remaining, limit, question, self.prompts.domain.short_titles), seed=seed, usage=usage,
            inspect=None if context is None else lambda reply: check_recommender(reply, context, remaining, about),
        )
        return named_recommendation(reply, remaining)


class GoRecDialGamePlayer:
    """Plays one game: ends when the seeker accepts (the correct movie or not) or at the turn cap."""

    def __init__(
        self,
        catalog: dict[str, Item],
        seeker: GoRecDialSeeker,
        expert: GoRecDialExpert,
        rules: GoRecDialRules,
        sampling: Sampling,
        strategy: StrategyModel | None = None,
    ):
        """`strategy` is the model the plans are drawn from (rules.strategy 'human')."""
        self.catalog, self.seeker, self.expert, self.rules, self.sampling = catalog, seeker, expert, rules, sampling
        self.strategy = strategy

    async def play(self, spec: GoRecDialSpec) -> DialogueRecord:
        """One game as a record; a failure ends it as 'error' with the reason in `errors`."""
        usage = Usage()
        moves = _GoRecDialMoves(self, spec.movie_set, usage, spec.seed)
        ending = await play_turns(
            moves, seed=spec.seed, max_utterances=self.rules.max_utterances, script=self.rules.script(self.seeker.prompts.domain)
        )
        movie_set = spec.movie_set
        return DialogueRecord(
            schema_version=RECORD_SCHEMA_VERSION,
            id=spec.id,
            mode="gorecdial",
            user_id=movie_set.user_id,
            target_item=moves.candidates[movie_set.correct_index],
            gorecdial=GoRecDialGame(
                seeker_items=moves.seeker_items,
                candidates=moves.candidates,
                correct_index=movie_set.correct_index,
                similarities=movie_set.similarities,
                points=movie_set.points,
                coherence=movie_set.coherence,
                margin=movie_set.margin,
            ),
            scripted_turns=ending.scripted_turns,
            turns=moves.turns,
            outcome=ending.outcome,
            generation=usage.generation(self.seeker.backend, self.seeker.prompts, self.sampling, spec.seed),
            errors=ending.errors(usage.format_problems),
        )


class _GoRecDialMoves(RecordMoves):
    """One game's state and its two sides' turns."""

    def __init__(self, player: GoRecDialGamePlayer, movie_set: MovieSet, usage: Usage, seed: int):
        super().__init__()
        self.player, self.movie_set, self.usage = player, movie_set, usage
        self.candidates = [player.catalog[i] for i in movie_set.candidates]
        self.seeker_items = [player.catalog[i] for i in movie_set.seeker_items]
        self.remaining = list(self.candidates)
        self.items = (*self.seeker_items, *self.candidates)  # whose facts a reply must not contradict
        self.seeker_system = player.seeker.system_prompt(self.seeker_items)
        self.expert_system = player.expert.system_prompt(self.candidates)
        self.recommended: Item | None = None  # the suggestion the seeker answers next
        self.asked_about = False  # the seeker asked about it and waits for the answer
        # The expert may always speak instead of recommending, so free plays as pearl: ask_turns, then offers.
        strategy = "human" if player.rules.strategy == "human" else "pearl"
        self.course = course_for(strategy, player.rules.ask_turns, player.strategy, seed)
        correct = self.candidates[movie_set.correct_index]
        self.state = set_state(self.seeker_items, correct.id) if player.rules.wording == "decided" else None
        self.ledger = Ledger()  # what the seeker has told (decided wording)

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        super().open(script)
        self.course.opened(script)

    async def recommender_turn(self, step: int, seed: int) -> None:
        """The expert speaks, or recommends one remaining candidate once the rules (or its plan) allow it. In decided
        wording its model's choice stands and what was said decides its words (_decided_expert); its model is asked
        only on a turn that may offer, as there is nothing else for it to choose."""
        player = self.player
        answering = self.asked_about
        asked_everything = self.state is not None and self.ledger.asked_everything()  # a question would repeat one
        plan, offer = self.course.recommender(seed, answering=answering, can_recommend=bool(self.remaining),
                                              must_recommend=asked_everything)
        remaining = self.remaining if offer else []
        about = self.recommended if answering else None
        shown = {item.display: item.description or "" for item in [*remaining, *([about] if about else [])]}
        question = question_move("recommender", plan, True) if plan is not None else None if remaining else True
        context = self.reply_context("recommender", player.catalog, descriptions=shown, question=question, items=self.items)
        if self.state is not None and not remaining:
            reply = RecommenderReply("", "", None)  # decided and no offer: no choice to ask its model for
        else:
            reply = await player.expert.reply(  # decided: only its choice is kept, so its words are not checked
                self.expert_system, transcript(self.turns, "recommender"), remaining=remaining, seed=seed,
                usage=self.usage, plan=plan, about=about, context=context if self.state is None else None,
            )
        item = player.catalog[reply.item_id] if reply.item_id else None
        content = None
        if self.state is not None:
            reply, content = await self._decided_expert(reply, item, about, plan, seed, context)
        correct = self.candidates[self.movie_set.correct_index]
        self.add_recommender_turn(
            reply, decision="recommend" if item else "speak", correct=None if item is None else item.id == correct.id,
            plan=plan, content=content,
        )
        if item is not None:
            self.remaining.remove(item)
            self.recommendations += 1
            self.recommended, self.asked_about = item, False
        elif not answering:
            self.recommended = None

    async def seeker_turn(self, step: int, seed: int) -> Outcome | None:
        """The seeker answers; the game ends when it accepts a recommendation."""
        recommended = self.recommended
        correct = recommended is not None and recommended.id == self.candidates[self.movie_set.correct_index].id
        may_ask = recommended is not None and not self.asked_about and step + 2 < self.player.rules.max_utterances
        plan = self.course.seeker(seed, suggestion=recommended is not None, target=correct, may_ask=may_ask)
        loved = tuple(item.display for item in self.seeker_items)
        asks = plan is not None and recommended is not None and asks_first(plan)
        context = self.reply_context("seeker", self.player.catalog, liked=loved, items=self.items,
                                     suggestion=recommended.display if recommended else None,
                                     question=question_move("seeker", plan, False), accepting=correct and not asks)
        content = None
        if self.state is not None:
            answer, content = await self._decided_seeker(recommended, plan, asks, seed, context)
        else:
            answer = await self.player.seeker.reply(
                self.seeker_system, transcript(self.turns, "seeker"), recommended=recommended, correct=correct,
                seed=seed, usage=self.usage, plan=plan, context=context,
            )
        self.turns.append(Turn(role="seeker", text=answer.utterance, accepted=answer.accept, plan=plan, checks=answer.checks,
                               content=content))
        # the decided content's move, where there is one: a plan that asks first may meet a suggestion the catalog
        # says nothing about, and the seeker then answers it (the game must end on its yes)
        asked = content.move == "inquire" if content is not None else plan is not None and asks_first(plan)
        if recommended is not None and asked:
            self.asked_about = True
            return None
        self.recommended, self.asked_about = None, False
        return self.player.rules.outcome(
            step=step,
            recommended=None if recommended is None else self.candidates.index(recommended),
            accepted=bool(answer.accept),
            correct=self.movie_set.correct_index,
            points=self.movie_set.points,
            recommendations=self.recommendations,
        )

    async def _decided_expert(
        self, reply: RecommenderReply, item: Item | None, about: Item | None, plan: TurnPlan | None, seed: int,
        context: ReplyContext,
    ) -> tuple[RecommenderReply, TurnContent]:
        """The expert's turn in decided wording: its model's choice stands (the candidate it recommends, else an answer
        about the one asked about, else a question), and what was said and the catalog decide what its words say, as
        the PEARL recommender's (synth.content); its model words that. It never sees the seeker's state."""
        decided = recommender_content(plan.acts if plan else None, self.ledger, self.player.expert.prompts.domain,
                                      content_rng(seed), candidates=[item] if item else (), about=about)
        worded = await word(self.player.expert, decided, style="", last=self.last_words(), plan=plan, seed=seed,
                            usage=self.usage, context=context)
        decided.record(self.ledger)
        return RecommenderReply(think=reply.think, utterance=worded.text, item_id=reply.item_id,
                                checks=worded.checks), worded.content

    async def _decided_seeker(
        self, recommended: Item | None, plan: TurnPlan | None, asks: bool, seed: int, context: ReplyContext
    ) -> tuple[SeekerReply, TurnContent]:
        """The seeker's turn in decided wording: its set of loved movies decides the content (synth.content), its
        model words it."""
        assert self.state is not None
        last = self.last_words()
        decided = seeker_content(plan.acts if plan else None, self.state, self.ledger, self.player.seeker.prompts.domain,
                                 content_rng(seed), recommended=recommended, inquire=asks, greet=self.seeker_first())
        worded = await word(self.player.seeker, decided, style="", last=last, plan=plan, seed=seed, usage=self.usage,
                            context=context)
        decided.record(self.ledger)
        return SeekerReply(worded.text, decided.accept, worded.checks), worded.content

    def unfinished(self, ended_by: Unfinished) -> Outcome:
        return self.player.rules.unfinished(ended_by, self.recommendations)
