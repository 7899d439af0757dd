"""The PEARL game: its rules, and its moves in the shared turn loop (`synth.turns`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from synth.analysis.defects import ReplyContext, question_move, split_opinion, target_draw, taste
from synth.config import Strategy, Wording
from synth.content.decide import content_rng, recommender_content
from synth.content.seeker import seeker_content
from synth.content.state import Ledger, pearl_state
from synth.domain import Domain
from synth.personas import GameSpec, ReviewIndex
from synth.prompting import example_replies
from synth.records import (
    RECORD_SCHEMA_VERSION,
    DialogueRecord,
    Item,
    Outcome,
    Review,
    ScoredItem,
    Turn,
    TurnContent,
    TurnPlan,
    verdict,
)
from synth.replies import RecommenderReply, ReplyFormatError, SeekerReply
from synth.retrievers.base import Retriever
from synth.simulators import ExampleChoice, Recommender, Sampling, Seeker, Usage
from synth.strategy.courses import course_for
from synth.strategy.model import StrategyModel, requests
from synth.strategy.plans import asks_first
from synth.turns import (
    SEED_STRIDE,
    RecordMoves,
    Role,
    Unfinished,
    opening,
    play_turns,
    transcript,
)
from synth.worded import word


@dataclass(frozen=True)
class GameRules:
    """How a dialogue unfolds; the defaults follow PEARL. `strategy` says who decides each turn's move: a
    plan drawn from people's dialogues (human), PEARL's fixed course (pearl: ask `ask_turns` times, then
    recommend at every turn) or the recommender itself (free)."""

    max_utterances: int = 12  # after the seed exchange
    ask_turns: int = 1  # recommender turns that only ask before recommending (pearl)
    k_schedule: tuple[int, ...] = (3, 3, 3, 2, 1, 1)  # candidates per recommendation turn
    force_target_from: int = 3  # the target is a candidate from this recommendation turn on
    strategy: Strategy = "pearl"
    wording: Wording = "free"  # decided: the content of each turn is decided (synth.content), the model words it

    def script(self, domain: Domain | None = None, seed: int = 0) -> tuple[tuple[Role, str], ...]:
        """The scripted opening of this strategy in the domain's words (synth.turns.opening); in decided wording
        its greeting is one of the domain's ways of saying it, the dialogue `seed`'s pick."""
        lines = opening(self.strategy, domain)
        if self.wording == "decided" and domain is not None and domain.greetings:
            greeting = random.Random(f"greeting:{seed}").choice([domain.greeting, *domain.greetings])
            lines = (("recommender", greeting), *lines[1:])
        return lines

    def last_offer(self, step: int) -> bool:
        """Whether a recommender turn at `step` is its last one before the cap. Outside PEARL's fixed course
        (where the last turn is the fifth recommendation, the target alone) it offers the target alone too."""
        return self.strategy != "pearl" and step >= self.max_utterances - 2

    def k_for(self, recommendation: int) -> int:
        """Number of candidates on the given (0-based) recommendation turn."""
        return self.k_schedule[min(recommendation, len(self.k_schedule) - 1)]

    @staticmethod
    def outcome(recommended: Item | None, target: Item, accepted: bool, step: int, recommendations: int) -> Outcome | None:
        """After a seeker reply at `step`: the outcome when it ends the dialogue (it accepts the recommended
        item, or turns down the target), else None."""
        if recommended is None:
            return None
        hit = recommended.id == target.id
        if accepted:
            return Outcome(
                accepted_target=hit,
                turns_to_goal=step + 1 if hit else None,
                ended_by="accepted" if hit else "wrong_acceptance",
                recommendations=recommendations,
            )
        if hit:
            return Outcome(accepted_target=False, ended_by="target_rejected", recommendations=recommendations)
        return None


def select_candidates(
    retriever: Retriever, query: str, pool: set[str], target_id: str, recommendation: int, rules: GameRules,
    *, last_offer: bool = False,
) -> list[ScoredItem]:
    """Top-k of the pool for this turn, with the target forced in from `force_target_from` on, and the target
    alone on the `last_offer`."""
    if last_offer and target_id in pool:
        return retriever.search(query, {target_id}, 1)
    k = rules.k_for(recommendation)
    found = retriever.search(query, pool, k)
    forced = recommendation + 1 >= rules.force_target_from and target_id in pool
    if forced and all(c.item_id != target_id for c in found):
        found = found[: k - 1] + retriever.search(query, {target_id}, 1)
    return found


class PearlGame:
    """Plays one dialogue between the two simulators until the target is accepted or the cap is hit."""

    def __init__(
        self,
        catalog: dict[str, Item],
        reviews: ReviewIndex,
        retriever: Retriever,
        seeker: Seeker,
        recommender: Recommender,
        rules: GameRules,
        sampling: Sampling,
        strategy: StrategyModel | None = None,
    ):
        """`strategy` is the model the plans are drawn from (rules.strategy 'human')."""
        self.catalog, self.reviews, self.retriever = catalog, reviews, retriever
        self.seeker, self.recommender = seeker, recommender
        self.rules, self.sampling, self.strategy = rules, sampling, strategy

    def initial_pool(self, spec: GameSpec) -> set[str]:
        """Every catalog item except those the seeker's general taste already names."""
        return set(self.catalog) - {r.item for r in spec.persona.general}

    async def play(self, spec: GameSpec) -> DialogueRecord:
        """One dialogue as a record; a failure ends it as 'error' with the reason in `errors`."""
        usage = Usage()
        moves = _PearlMoves(self, spec, usage)
        ending = await play_turns(
            moves, seed=spec.seed, max_utterances=self.rules.max_utterances, script=self.rules.script(self.seeker.prompts.domain, spec.seed)
        )
        return DialogueRecord(
            schema_version=RECORD_SCHEMA_VERSION,
            id=spec.id,
            user_id=spec.persona.user_id,
            persona=spec.persona,
            target_item=spec.target,
            scripted_turns=ending.scripted_turns,
            turns=moves.turns,
            outcome=ending.outcome,
            generation=usage.generation(
                self.seeker.backend, self.seeker.prompts, self.sampling, spec.seed, retriever=self.retriever.name
            ),
            errors=ending.errors(usage.format_problems),
        )


class _PearlMoves(RecordMoves):
    """One PEARL dialogue's state and its two sides' turns."""

    def __init__(self, game: PearlGame, spec: GameSpec, usage: Usage):
        super().__init__()
        self.game, self.spec, self.usage = game, spec, usage
        self.pool = game.initial_pool(spec)
        self.course = course_for(game.rules.strategy, game.rules.ask_turns, game.strategy, spec.seed)
        self.examples = ExampleChoice.draw(game.seeker.prompts.examples, spec.seed)
        self.stock = example_replies(game.seeker.prompts.examples)
        planned = self.course.planned
        self.seeker_system = game.seeker.system_prompt(spec.persona, game.catalog, planned=planned, example=self.examples)
        self.recommender_system = game.recommender.system_prompt(planned=planned, example=self.examples)
        self.asked_taste = False  # the recommender has asked its first question about the seeker's taste
        self.liked, self.disliked = taste(spec.persona.general, game.catalog)
        self.items = tuple(game.catalog[r.item] for r in [*spec.persona.general, spec.persona.target])  # grows with the candidates
        self.last_recommended: Item | None = None  # the suggestion the seeker answers next
        self.asked_about = False  # the seeker asked about it and waits for the answer
        self.state = pearl_state(
            spec.persona, game.catalog, lambda item_id: game.reviews.opinion(spec.persona.user_id, item_id)
        ) if game.rules.wording == "decided" else None
        self.ledger = Ledger()  # what was said, as decided contents (decided wording)
        self.domain = game.seeker.prompts.domain

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        super().open(script)
        self.course.opened(script)

    def seeker_context(
        self, recommended: Item | None, opinion: Review | None, plan: TurnPlan | None, accepting: bool
    ) -> ReplyContext:
        """What the seeker's reply is checked against: the words so far, its reviewed titles (with its own
        verdict of the suggestion it answers), its target and its review of it while the target has not been
        suggested, its planned move and whether this reply accepts the target."""
        game, spec = self.game, self.spec
        more_liked, more_disliked = split_opinion(recommended.display, verdict(opinion)) if recommended and opinion else ((), ())
        shown = any(t.recommended_item == spec.target.id for t in self.turns)
        target = game.catalog[spec.target.id]
        return self.reply_context(
            "seeker", game.catalog, liked=self.liked + more_liked, disliked=self.disliked + more_disliked,
            hidden_target=None if shown else target.display, target_draw=None if shown else target_draw(spec.persona.target, target),
            examples=self.stock, suggestion=recommended.display if recommended else None, items=self.items,
            question=question_move("seeker", plan, False), accepting=accepting,
            short_titles=game.seeker.prompts.domain.short_titles,
            foreign_words=tuple(game.seeker.prompts.domain.foreign_words),
        )

    def recommender_context(
        self, shown: Sequence[Item], plan: TurnPlan | None, may_pass: bool, closing: bool = False
    ) -> ReplyContext:
        """What the recommender's reply is checked against: the words so far, the descriptions of the items it
        was shown, its prompt's example, whether its move asks a question (an unplanned turn that may only
        speak must ask; one that may recommend must ask unless it does) and whether it is the goodbye after
        the acceptance (`closing`)."""
        descriptions = {item.display: item.description or "" for item in shown}
        question = question_move("recommender", plan, True) if plan is not None else (None if may_pass else not shown)
        return self.reply_context("recommender", self.game.catalog, descriptions=descriptions, examples=self.stock,
                                  items=self.items, question=question, closing=closing,
                                  short_titles=self.game.recommender.prompts.domain.short_titles,
                                  foreign_words=tuple(self.game.recommender.prompts.domain.foreign_words))

    def query(self) -> str:
        """The retrieval query: in decided wording, the genres and moods the seeker said it wants (the dialogue's
        words also hold every title and plot offered before, which pull the search toward what was turned down);
        else, or before it said any, the dialogue so far, scripted opening left out."""
        if self.state is not None and (wanted := self.ledger.wanted()):
            return wanted
        return " ".join(t.text for t in self.turns[self.scripted :])

    async def seeker_turn(self, step: int, seed: int) -> Outcome | None:
        """The seeker speaks; returns the outcome when this turn ends the dialogue."""
        game, spec = self.game, self.spec
        recommended = self.last_recommended
        may_ask = recommended is not None and not self.asked_about and step + 2 < game.rules.max_utterances
        is_target = recommended is not None and recommended.id == spec.target.id
        plan = self.course.seeker(seed, suggestion=recommended is not None, target=is_target, may_ask=may_ask)
        opinion = game.reviews.opinion(spec.persona.user_id, recommended.id) if recommended else None
        accepting = recommended is not None and recommended.id == spec.target.id and not (plan and asks_first(plan))
        context = self.seeker_context(recommended, opinion, plan, accepting)
        content = None
        if self.state is not None:
            reply, content = await self._decided_seeker(recommended, plan, seed, context)
        else:
            reply = await game.seeker.reply(
                self.seeker_system, transcript(self.turns, "seeker"), target=spec.target, recommended=recommended,
                opinion=opinion, seed=seed, usage=self.usage, plan=plan, context=context, liked=self.liked,
                disliked=self.disliked,
            )
        self.turns.append(Turn(role="seeker", text=reply.utterance, accepted=reply.accept, plan=plan, checks=reply.checks,
                               content=content))
        asked = content.move == "inquire" if content is not None else plan is not None and asks_first(plan)
        if recommended is not None and asked:
            self.asked_about = True
            return None
        self.last_recommended, self.asked_about = None, False
        outcome = game.rules.outcome(recommended, spec.target, bool(reply.accept), step, self.recommendations)
        if outcome is not None and outcome.accepted_target:
            await self._goodbye(step + 1)
        return outcome

    async def recommender_turn(self, step: int, seed: int) -> None:
        """The recommender asks, answers or recommends one retrieved candidate, as the strategy's course says."""
        game = self.game
        answering = self.asked_about
        asked_everything = self.state is not None and self.ledger.asked_everything()  # a question now would repeat one
        plan, offer = self.course.recommender(
            seed, answering=answering, can_recommend=bool(self.pool),
            must_recommend=game.rules.last_offer(step) or asked_everything,
        )
        candidates: list[ScoredItem] | None = None
        if offer:
            candidates = select_candidates(
                game.retriever, self.query(), self.pool, self.spec.target.id, self.recommendations, game.rules,
                last_offer=game.rules.last_offer(step),
            )
        items = [game.catalog[c.item_id] for c in candidates] if candidates else None
        self.items += tuple(item for item in items or [] if item not in self.items)
        about = self.last_recommended if answering else None
        first_question = not self.asked_taste and not items and about is None and (plan is None or requests(plan.acts))
        may_pass = self.course.may_pass
        context = self.recommender_context([*(items or []), *([about] if about else [])], plan, may_pass and bool(items))
        content = None
        if self.state is not None:
            offered = items if items and not (may_pass and not self.ledger.told) else None  # a free course asks first
            reply, content = await self._decided_recommender(plan, seed, context, candidates=offered, about=about)
        else:
            reply = await game.recommender.reply(
                self.recommender_system, transcript(self.turns, "recommender"), candidates=items, seed=seed,
                usage=self.usage, plan=plan, about=about, may_pass=may_pass, context=context,
                opening=self.examples.opening if first_question else None,
            )
        self.asked_taste |= first_question
        self.add_recommender_turn(reply, candidates=candidates, plan=plan, content=content)
        if reply.item_id is not None:
            self.pool.discard(reply.item_id)
            self.recommendations += 1
            self.last_recommended = game.catalog[reply.item_id]
            self.asked_about = False

    async def _goodbye(self, step: int) -> None:
        """The recommender's closing words after an accepted target, where the course has them and the cap allows.
        A reply that never parses only leaves them out: the dialogue is already won."""
        seed = self.spec.seed + SEED_STRIDE * step
        plan = self.course.closing(seed) if step < self.game.rules.max_utterances else None
        if plan is None:
            return
        context = self.recommender_context([], plan, False, closing=True)
        if self.state is not None:
            accepted = self.game.catalog[self.spec.target.id]
            reply, content = await self._decided_recommender(plan, seed, context, closing=accepted)
            self.add_recommender_turn(reply, plan=plan, content=content)
            return
        try:
            reply = await self.game.recommender.reply(
                self.recommender_system, transcript(self.turns, "recommender"), candidates=None, seed=seed, usage=self.usage, plan=plan,
                context=context,
            )
        except ReplyFormatError:
            return
        self.add_recommender_turn(reply, plan=plan)

    async def _decided_seeker(
        self, recommended: Item | None, plan: TurnPlan | None, seed: int, context: ReplyContext
    ) -> tuple[SeekerReply, TurnContent]:
        """The seeker's turn in decided wording: its state decides the content (synth.content), its model words it."""
        assert self.state is not None
        # a question about the suggestion where the plan asks one, unless the seeker has seen it: then it says so
        inquire = (recommended is not None and plan is not None and asks_first(plan)
                   and self.state.opinion(recommended.id) is None)
        decided = seeker_content(plan.acts if plan else None, self.state, self.ledger, self.domain, content_rng(seed),
                                 recommended=recommended, inquire=inquire, greet=self.seeker_first())
        worded = await word(self.game.seeker, decided, style=self.examples.style, last=self.last_words(), plan=plan,
                            seed=seed, usage=self.usage, context=context)
        decided.record(self.ledger)
        return SeekerReply(worded.text, decided.accept, worded.checks), worded.content

    async def _decided_recommender(
        self, plan: TurnPlan | None, seed: int, context: ReplyContext, *, candidates: Sequence[Item] | None = None,
        about: Item | None = None, closing: Item | None = None,
    ) -> tuple[RecommenderReply, TurnContent]:
        """The recommender's turn in decided wording: what was said (the ledger) and the catalog decide the content,
        its model words it; it never sees the seeker's state."""
        decided = recommender_content(plan.acts if plan else None, self.ledger, self.domain, content_rng(seed),
                                      candidates=candidates or (), about=about, closing=closing)
        worded = await word(self.game.recommender, decided, style="", last=self.last_words(), plan=plan,
                            seed=seed, usage=self.usage, context=context)
        decided.record(self.ledger)
        offered = decided.item.id if decided.content.move == "offer" and decided.item is not None else None
        return RecommenderReply(think="", utterance=worded.text, item_id=offered, checks=worded.checks), worded.content

    def unfinished(self, ended_by: Unfinished) -> Outcome:
        return Outcome(accepted_target=False, ended_by=ended_by, recommendations=self.recommendations)
