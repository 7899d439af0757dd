"""The PEARL game: its rules, and its moves in the shared turn loop (`synth.turns`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from synth.personas import GameSpec, ReviewIndex
from synth.records import RECORD_SCHEMA_VERSION, DialogueRecord, Item, Outcome, ScoredItem, Turn
from synth.retrievers.base import Retriever
from synth.simulators import Recommender, Sampling, Seeker, Usage
from synth.turns import RecordMoves, Role, Unfinished, play_turns, transcript


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
    retriever: Retriever, query: str, pool: set[str], target_id: str, recommendation: int, rules: GameRules
) -> list[ScoredItem]:
    """Top-k of the pool for this turn, with the target forced in from `force_target_from` on."""
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
    ):
        self.catalog, self.reviews, self.retriever = catalog, reviews, retriever
        self.seeker, self.recommender = seeker, recommender
        self.rules, self.sampling = rules, sampling

    def initial_pool(self, spec: GameSpec) -> set[str]:
        """Every catalog item except those the seeker's general taste already names."""
        return set(self.catalog) - {r.item for r in spec.persona.general}

    async def play(self, spec: GameSpec) -> DialogueRecord:
        """One dialogue as a record; a failure ends it as 'error' with the reason in `errors`."""
        usage = Usage()
        moves = _PearlMoves(self, spec, usage)
        ending = await play_turns(moves, seed=spec.seed, max_utterances=self.rules.max_utterances)
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
        self.seeker_system = game.seeker.system_prompt(spec.persona, game.catalog)
        self.recommender_system = game.recommender.system_prompt()
        self.scripted = 0
        self.recommender_turns = 0
        self.last_recommended: Item | None = None

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        super().open(script)
        self.scripted = len(script)

    def query(self) -> str:
        """The retrieval query: the dialogue so far, scripted opening left out."""
        return " ".join(t.text for t in self.turns[self.scripted :])

    async def seeker_turn(self, step: int, seed: int) -> Outcome | None:
        """The seeker speaks; returns the outcome when this turn ends the dialogue."""
        game, spec = self.game, self.spec
        recommended = self.last_recommended
        opinion = game.reviews.opinion(spec.persona.user_id, recommended.id) if recommended else None
        reply = await game.seeker.reply(
            self.seeker_system, transcript(self.turns), target=spec.target, recommended=recommended, opinion=opinion,
            seed=seed, usage=self.usage,
        )
        self.turns.append(Turn(role="seeker", text=reply.utterance, accepted=reply.accept))
        self.last_recommended = None
        return game.rules.outcome(recommended, spec.target, bool(reply.accept), step, self.recommendations)

    async def recommender_turn(self, step: int, seed: int) -> None:
        """The recommender asks (first `ask_turns` turns) or recommends one retrieved candidate."""
        game = self.game
        candidates: list[ScoredItem] | None = None
        if self.recommender_turns >= game.rules.ask_turns and self.pool:
            candidates = select_candidates(
                game.retriever, self.query(), self.pool, self.spec.target.id, self.recommendations, game.rules
            )
        items = [game.catalog[c.item_id] for c in candidates] if candidates else None
        reply = await game.recommender.reply(
            self.recommender_system, transcript(self.turns), candidates=items, seed=seed, usage=self.usage
        )
        self.recommender_turns += 1
        self.add_recommender_turn(reply, candidates=candidates)
        if reply.item_id is not None:
            self.pool.discard(reply.item_id)
            self.recommendations += 1
            self.last_recommended = game.catalog[reply.item_id]

    def unfinished(self, ended_by: Unfinished) -> Outcome:
        return Outcome(accepted_target=False, ended_by=ended_by, recommendations=self.recommendations)
