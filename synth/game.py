"""The PEARL-style turn loop and its rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from synth.personas import GameSpec, ReviewIndex
from synth.records import DialogueRecord, Item, Outcome, ScoredItem, Turn
from synth.retrievers.base import Retriever
from synth.simulators import Line, Recommender, Sampling, Seeker, Usage

# The recommender opens, so the turns after the seed run recommender, seeker, ... and a dialogue that
# hits an even turn cap ends on the seeker: no recommendation is left unanswered.
SEED_EXCHANGE = (
    ("recommender", "Hi there! I'd be glad to help you find a movie for tonight."),
    ("seeker", "Hi! I'm looking for something to watch, but I'm not sure what yet."),
)
SPEAKER = {"seeker": "Seeker", "recommender": "Recommender"}


def transcript(turns: list[Turn], names: dict[str, str] = SPEAKER) -> list[Line]:
    """The dialogue so far as the prompts show it."""
    return [Line(names[t.role], t.text) for t in turns]


@dataclass(frozen=True)
class GameRules:
    """How a dialogue unfolds; the defaults follow PEARL."""

    max_utterances: int = 12  # after the seed exchange
    ask_turns: int = 1  # recommender turns that only ask before recommending
    k_schedule: tuple[int, ...] = (3, 3, 3, 2, 1, 1)  # candidates per recommendation turn
    force_target_from: int = 3  # the target is a candidate from this recommendation turn on

    def k_for(self, recommendation: int) -> int:
        """Number of candidates on the given (0-based) recommendation turn."""
        return self.k_schedule[min(recommendation, len(self.k_schedule) - 1)]


def select_candidates(
    retriever: Retriever, query: str, pool: set[str], target_id: str, recommendation: int, rules: GameRules
) -> list[ScoredItem]:
    """Top-k of the pool for this turn, with the target forced in from `force_target_from` on."""
    k = rules.k_for(recommendation)
    found = retriever.search(query, pool, k)
    forced = recommendation + 1 >= rules.force_target_from and target_id in pool
    if forced and all(c.item_id != target_id for c in found):
        found = found[: k - 1] + retriever.search(query, {target_id}, 1)
    return found


@dataclass
class _State:
    turns: list[Turn] = field(default_factory=list)
    recommendations: int = 0
    recommender_turns: int = 0
    last_recommended: Item | None = None

    def query(self) -> str:
        """The retrieval query: the dialogue so far, seed exchange left out."""
        return " ".join(t.text for t in self.turns[len(SEED_EXCHANGE) :])


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
    ):
        self.catalog, self.reviews, self.retriever = catalog, reviews, retriever
        self.seeker, self.recommender = seeker, recommender
        self.rules, self.sampling = rules, sampling

    def initial_pool(self, spec: GameSpec) -> set[str]:
        """Every catalog item except those the seeker's general taste already names."""
        return set(self.catalog) - {r.item for r in spec.persona.general}

    async def play(self, spec: GameSpec) -> DialogueRecord:
        state = _State(turns=[Turn(role=role, text=text) for role, text in SEED_EXCHANGE])
        pool = self.initial_pool(spec)
        usage = Usage()
        seeker_system = self.seeker.system_prompt(spec.persona, self.catalog)
        recommender_system = self.recommender.system_prompt()
        outcome: Outcome | None = None
        errors: list[str] = []
        try:
            for step in range(self.rules.max_utterances):
                seed = spec.seed + 100 * step
                if step % 2 == 0:
                    await self._recommender_turn(spec, state, pool, recommender_system, seed, usage)
                else:
                    outcome = await self._seeker_turn(spec, state, seeker_system, seed, usage, step)
                    if outcome is not None:
                        break
        except Exception as exc:  # one bad dialogue must never end the run: record it and go on
            errors = [f"{type(exc).__name__}: {exc}", *usage.format_problems]
            outcome = Outcome(accepted_target=False, ended_by="error", recommendations=state.recommendations)
        if outcome is None:
            outcome = Outcome(accepted_target=False, ended_by="turn_cap", recommendations=state.recommendations)
        return DialogueRecord(
            id=spec.id,
            user_id=spec.persona.user_id,
            persona=spec.persona,
            target_item=spec.target,
            turns=state.turns,
            outcome=outcome,
            generation=usage.generation(
                self.seeker.backend, self.seeker.prompts, self.sampling, spec.seed, retriever=self.retriever.name
            ),
            errors=errors,
        )

    async def _seeker_turn(
        self, spec: GameSpec, state: _State, system: str, seed: int, usage: Usage, step: int
    ) -> Outcome | None:
        """The seeker speaks; returns the outcome when this turn ends the dialogue."""
        recommended = state.last_recommended
        opinion = self.reviews.opinion(spec.persona.user_id, recommended.id) if recommended else None
        reply = await self.seeker.reply(
            system, transcript(state.turns), target=spec.target, recommended=recommended, opinion=opinion, seed=seed, usage=usage
        )
        state.turns.append(Turn(role="seeker", text=reply.utterance, accepted=reply.accept))
        state.last_recommended = None
        if recommended is None:
            return None
        hit = recommended.id == spec.target.id
        if reply.accept:
            return Outcome(
                accepted_target=hit,
                turns_to_goal=step + 1 if hit else None,
                ended_by="accepted" if hit else "wrong_acceptance",
                recommendations=state.recommendations,
            )
        if hit:
            return Outcome(accepted_target=False, ended_by="target_rejected", recommendations=state.recommendations)
        return None

    async def _recommender_turn(
        self, spec: GameSpec, state: _State, pool: set[str], system: str, seed: int, usage: Usage
    ) -> None:
        """The recommender asks (first `ask_turns` turns) or recommends one retrieved candidate."""
        candidates: list[ScoredItem] | None = None
        if state.recommender_turns >= self.rules.ask_turns and pool:
            candidates = select_candidates(
                self.retriever, state.query(), pool, spec.target.id, state.recommendations, self.rules
            )
        items = [self.catalog[c.item_id] for c in candidates] if candidates else None
        reply = await self.recommender.reply(system, transcript(state.turns), candidates=items, seed=seed, usage=usage)
        state.recommender_turns += 1
        state.turns.append(
            Turn(
                role="recommender",
                text=reply.utterance,
                think=reply.think or None,
                recommended_item=reply.item_id,
                candidates=candidates,
            )
        )
        if reply.item_id is not None:
            pool.discard(reply.item_id)
            state.recommendations += 1
            state.last_recommended = self.catalog[reply.item_id]
