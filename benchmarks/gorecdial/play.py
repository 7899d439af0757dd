"""A trained expert playing GoRecDial games against a seeker in generation's turn loop (`synth.turns`) under
generation's rules (`synth.gorecdial.GoRecDialRules`: the seed exchange, then at most 20 utterances; the first
expert turn only speaks; a recommended candidate leaves the pool; the game ends when the seeker accepts; a
failure ends it as 'error', with the reason in `PlayedGame.error`).

The expert speaks or recommends by DECIDE, recommends the remaining candidate PREDICT ranks first (with the
template), and speaks with GENERATE. With `sample`, decisions and words are drawn from the model (bot-play
training keeps their log-probabilities); otherwise they are the most likely ones."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from synth.analysis.intervals import mean_interval
from synth.benchmarks.crs.torch_support import require_torch
from synth.benchmarks.gorecdial.expert import RECOMMEND_TEMPLATE, strip_eos
from synth.benchmarks.gorecdial.games import Game, Utterance
from synth.benchmarks.gorecdial.seekers import Seeker
from synth.benchmarks.gorecdial.training import Expert
from synth.errors import SynthError
from synth.gorecdial import GoRecDialRules
from synth.records import Outcome
from synth.turns import Role, Unfinished, play_turns


@dataclass
class PlayedGame:
    game_id: str
    utterances: list[Utterance]
    outcome: Outcome  # as generation records it: accepted_target is the goal, turns_to_goal after the seed
    error: str | None = None  # what ended the game when outcome.ended_by is "error"
    log_probs: list[Any] = field(default_factory=list)  # the sampled actions' (bot-play)


def act(expert: Expert, game: Game, utterances: Sequence[Utterance], remaining: list[bool], may_recommend: bool,
        sample: bool, generator: Any = None) -> tuple[Utterance, Any]:
    """The expert's next turn and the log-probability of what it chose (0 when nothing was chosen)."""
    torch = require_torch()
    encoder, model = expert.encoder, expert.model
    history = encoder.tensor([encoder.history(utterances)])
    movies = encoder.tensor([encoder.movies(game.candidates)])
    prior = encoder.floats([encoder.prior(game)])
    cosine = encoder.floats(encoder.cosine(game, [utterances]))
    with torch.no_grad():  # bot-play freezes the context and PREDICT: only DECIDE and GENERATE learn
        context, memory, padding = model.context(history)
        scores = model.predict(context, movies, prior, cosine)[0]
    log_prob = torch.zeros(())
    recommend = False
    if may_recommend and any(remaining):
        decision = model.decide(context, scores[None]).log_softmax(-1)[0]
        choice = int(torch.multinomial(decision.exp(), 1, generator=generator)) if sample else int(decision.argmax())
        log_prob = log_prob + decision[choice]
        recommend = choice == 1
    if recommend:
        ranked = scores.masked_fill(~torch.tensor(remaining), float("-inf"))
        index = int(ranked.argmax())
        text = RECOMMEND_TEMPLATE.format(title=game.candidates[index].display)
        return Utterance("recommender", text, "recommend", index), log_prob
    tokens, words_log_prob = model.write(context, memory, padding, encoder.config.utterance_words + 1, sample, generator)
    text = encoder.vocabulary.text(strip_eos(tokens[0].tolist())) or "tell me more"
    return Utterance("recommender", text, "speak"), log_prob + words_log_prob[0]


class _ExpertMoves:
    """One benchmark game in the shared turn loop: the trained expert against a seeker."""

    def __init__(self, expert: Expert, seeker: Seeker, game: Game, rules: GoRecDialRules, sample: bool,
                 generator: Any):
        self.expert, self.seeker, self.game, self.rules = expert, seeker, game, rules
        self.sample, self.generator = sample, generator
        self.utterances: list[Utterance] = []
        self.remaining = [True] * len(game.candidates)
        self.log_probs: list[Any] = []
        self.recommended: int | None = None
        self.recommendations = 0

    def open(self, script: Sequence[tuple[Role, str]]) -> None:
        self.utterances = [Utterance(role, text) for role, text in script]

    async def recommender_turn(self, step: int, seed: int) -> None:
        turn, log_prob = act(self.expert, self.game, self.utterances, self.remaining, self.rules.may_recommend(step),
                             self.sample, self.generator)
        self.log_probs.append(log_prob)
        self.utterances.append(turn)
        self.recommended = turn.recommended
        if self.recommended is not None:
            self.remaining[self.recommended] = False
            self.recommendations += 1

    async def seeker_turn(self, step: int, seed: int) -> Outcome | None:
        recommended = self.recommended
        text, accept = await self.seeker.reply(self.game, self.utterances, recommended)
        self.utterances.append(Utterance("seeker", text, accepted=accept if recommended is not None else None))
        return self.rules.outcome(step=step, recommended=recommended, accepted=accept, correct=self.game.correct,
                                  points=self.game.points, recommendations=self.recommendations)

    def unfinished(self, ended_by: Unfinished) -> Outcome:
        return self.rules.unfinished(ended_by, self.recommendations)


async def play(expert: Expert, seeker: Seeker, game: Game, rules: GoRecDialRules, *, sample: bool = False,
               generator: Any = None) -> PlayedGame:
    """One game from the seed exchange to an acceptance or the turn cap; a failure ends it as 'error'."""
    moves = _ExpertMoves(expert, seeker, game, rules, sample, generator)
    # the expert draws from `generator` and the seekers seed themselves: the loop's seeds go unused
    ending = await play_turns(moves, seed=0, max_utterances=rules.max_utterances)
    if ending.error is not None and not seeker.can_fail:  # nothing but synth's own code plays such a game
        raise SynthError(f"GoRecDial game {game.id} against the {seeker.name} failed: {ending.error}")
    return PlayedGame(game.id, moves.utterances, ending.outcome, ending.error, moves.log_probs)


async def play_all(expert: Expert, seeker: Seeker, games: Sequence[Game], rules: GoRecDialRules,
                   concurrency: int = 1) -> list[PlayedGame]:
    """Greedy games, `concurrency` at a time (an LLM seeker's calls overlap; the expert's are quick)."""
    torch = require_torch()
    limit = asyncio.Semaphore(concurrency)

    async def one(game: Game) -> PlayedGame:
        async with limit:
            return await play(expert, seeker, game, rules)

    with torch.no_grad():  # grad mode is per thread: set once around every task
        return list(await asyncio.gather(*(one(g) for g in games)))


def game_metrics(played: Sequence[PlayedGame], max_utterances: int) -> dict[str, Any]:
    """Goal (share of games won), Score (mean reward), Turn2Goal (mean utterances to the goal, over won games),
    each with its 95% bootstrap interval over games (`*_ci`), and the cumulative Goal after each utterance (the
    curve of the plots)."""
    outcomes = [p.outcome for p in played]
    won = [o.turns_to_goal for o in outcomes if o.accepted_target and o.turns_to_goal is not None]
    curve = [sum(t <= n for t in won) / len(played) for n in range(1, max_utterances + 1)] if played else []
    return {
        "games": len(played),
        "goal": len(won) / len(played) if played else 0.0,
        "goal_ci": mean_interval(o.accepted_target and o.turns_to_goal is not None for o in outcomes),
        "score": fmean(o.score or 0.0 for o in outcomes) if played else 0.0,
        "score_ci": mean_interval(o.score or 0.0 for o in outcomes),
        "turn2goal": fmean(won) if won else None,
        "turn2goal_ci": mean_interval(won),
        "recommendations": fmean(o.recommendations for o in outcomes) if played else 0.0,
        "wrong_acceptances": sum(o.ended_by == "wrong_acceptance" for o in outcomes),
        "turn_caps": sum(o.ended_by == "turn_cap" for o in outcomes),
        "errors": sum(o.ended_by == "error" for o in outcomes),
        "goal_by_utterance": curve,
    }

