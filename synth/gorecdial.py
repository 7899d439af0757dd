"""The GoRecDial game: an expert with five candidates (one correct) and a seeker with five loved movies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synth.game import SEED_EXCHANGE, transcript
from synth.movie_sets import MovieSet
from synth.records import DialogueRecord, GoRecDialGame, Item, Outcome, Turn
from synth.replies import (
    END_MARKER,
    RecommenderReply,
    ReplyFormatError,
    SeekerReply,
    THINK_MAX_CHARS,
    UTTERANCE_MAX_CHARS,
    clean_utterance,
    extract_json,
    match_candidate,
    parse_seeker,
    seeker_schema,
)
from synth.simulators import Line, Sampling, Simulator, Usage

NO_ITEM = "none"
EXPERT_NAMES = {"seeker": "Seeker", "recommender": "Expert"}


@dataclass(frozen=True)
class GoRecDialSpec:
    id: str
    seed: int
    movie_set: MovieSet


@dataclass(frozen=True)
class GoRecDialRules:
    max_utterances: int = 20  # after the seed exchange
    discount: float = 0.5  # reward kept per extra recommendation
    ask_turns: int = 1  # expert turns that may only speak, so the seeker describes its taste first


def expert_schema(remaining: list[Item]) -> dict[str, Any]:
    """Think, then an item (one remaining candidate, or "none" to only speak), then the utterance.
    With no `remaining` candidates the expert can only speak."""
    return {
        "type": "object",
        "properties": {
            "think": {"type": "string", "minLength": 1, "maxLength": THINK_MAX_CHARS},
            "item": {"type": "string", "enum": [c.display for c in remaining] + [NO_ITEM]},
            "utterance": {"type": "string", "minLength": 1, "maxLength": UTTERANCE_MAX_CHARS},
        },
        "required": ["think", "item", "utterance"],
        "additionalProperties": False,
    }


def parse_expert(text: str, remaining: list[Item]) -> RecommenderReply:
    """An expert reply: item None means the expert only speaks this turn."""
    data = extract_json(text)
    utterance = clean_utterance(data.get("utterance"))
    think = data.get("think") if isinstance(data.get("think"), str) else ""
    name = data.get("item")
    if name is None or (isinstance(name, str) and name.strip().lower() in (NO_ITEM, "")):
        return RecommenderReply(think.strip(), utterance, None)
    item = match_candidate(name, remaining) if isinstance(name, str) else None
    if item is None:
        raise ReplyFormatError(f"'item' {name!r} is neither a remaining candidate nor 'none'")
    return RecommenderReply(think.strip(), utterance, item.id)


def game_score(points: list[float], accepted_index: int | None, recommendations: int, discount: float) -> float:
    """The paper's reward: points of the accepted candidate, times discount per extra recommendation."""
    if accepted_index is None:
        return 0.0
    return round(points[accepted_index] * discount ** (recommendations - 1), 6)


class GoRecDialSeeker(Simulator):
    role = "seeker"

    def system_prompt(self, movies: list[Item]) -> str:
        return self.prompts.render("gorecdial_seeker_system", movies=movies, end_marker=END_MARKER)

    async def reply(
        self, system: str, transcript: list[Line], *, recommended: Item | None, seed: int, usage: Usage
    ) -> SeekerReply:
        decides = recommended is not None
        user = self.prompts.render("gorecdial_seeker_turn", transcript=transcript, recommended=recommended)
        return await self._ask(
            system, user, seeker_schema(decides), lambda text: parse_seeker(text, decides=decides), seed=seed, usage=usage
        )


class GoRecDialExpert(Simulator):
    role = "expert"

    def system_prompt(self, candidates: list[Item]) -> str:
        return self.prompts.render("gorecdial_expert_system", candidates=candidates)

    async def reply(
        self, system: str, transcript: list[Line], *, remaining: list[Item], seed: int, usage: Usage
    ) -> RecommenderReply:
        user = self.prompts.render("gorecdial_expert_turn", transcript=transcript, remaining=remaining)
        return await self._ask(
            system, user, expert_schema(remaining), lambda text: parse_expert(text, remaining), seed=seed, usage=usage
        )


class GoRecDialGamePlayer:
    """Plays one game: ends when the seeker accepts (the correct movie or not) or at the turn cap."""

    def __init__(
        self,
        catalog: dict[str, Item],
        seeker: GoRecDialSeeker,
        expert: GoRecDialExpert,
        rules: GoRecDialRules,
        sampling: Sampling,
    ):
        self.catalog, self.seeker, self.expert, self.rules, self.sampling = catalog, seeker, expert, rules, sampling

    async def play(self, spec: GoRecDialSpec) -> DialogueRecord:
        movie_set = spec.movie_set
        candidates = [self.catalog[i] for i in movie_set.candidates]
        correct = candidates[movie_set.correct_index]
        turns = [Turn(role=role, text=text) for role, text in SEED_EXCHANGE]
        remaining = list(candidates)
        usage = Usage()
        seeker_system = self.seeker.system_prompt([self.catalog[i] for i in movie_set.seeker_items])
        expert_system = self.expert.system_prompt(candidates)
        recommended: Item | None = None
        recommendations = 0
        outcome: Outcome | None = None
        errors: list[str] = []
        try:
            for step in range(self.rules.max_utterances):
                lines = transcript(turns, EXPERT_NAMES)
                seed = spec.seed + 100 * step
                if step % 2 == 0:
                    may_recommend = step // 2 >= self.rules.ask_turns
                    reply = await self.expert.reply(
                        expert_system, lines, remaining=remaining if may_recommend else [], seed=seed, usage=usage
                    )
                    item = self.catalog[reply.item_id] if reply.item_id else None
                    turns.append(
                        Turn(
                            role="recommender",
                            text=reply.utterance,
                            think=reply.think or None,
                            recommended_item=reply.item_id,
                            decision="recommend" if item else "speak",
                            correct=None if item is None else item.id == correct.id,
                        )
                    )
                    if item is not None:
                        remaining.remove(item)
                        recommendations += 1
                    recommended = item
                    continue
                answer = await self.seeker.reply(seeker_system, lines, recommended=recommended, seed=seed, usage=usage)
                turns.append(Turn(role="seeker", text=answer.utterance, accepted=answer.accept))
                if answer.accept and recommended is not None:
                    hit = recommended.id == correct.id
                    index = candidates.index(recommended)
                    outcome = Outcome(
                        accepted_target=hit,
                        turns_to_goal=step + 1 if hit else None,
                        ended_by="accepted" if hit else "wrong_acceptance",
                        recommendations=recommendations,
                        score=game_score(movie_set.points, index, recommendations, self.rules.discount),
                    )
                    break
                recommended = None
        except Exception as exc:  # one bad game must never end the run: record it and go on
            errors = [f"{type(exc).__name__}: {exc}", *usage.format_problems]
            outcome = Outcome(accepted_target=False, ended_by="error", recommendations=recommendations, score=0.0)
        if outcome is None:
            outcome = Outcome(accepted_target=False, ended_by="turn_cap", recommendations=recommendations, score=0.0)
        return DialogueRecord(
            id=spec.id,
            mode="gorecdial",
            user_id=movie_set.user_id,
            target_item=correct,
            gorecdial=GoRecDialGame(
                seeker_items=[self.catalog[i] for i in movie_set.seeker_items],
                candidates=candidates,
                correct_index=movie_set.correct_index,
                similarities=movie_set.similarities,
                points=movie_set.points,
                coherence=movie_set.coherence,
                margin=movie_set.margin,
            ),
            turns=turns,
            outcome=outcome,
            generation=usage.generation(self.seeker.backend, self.seeker.prompts, self.sampling, spec.seed),
            errors=errors,
        )
