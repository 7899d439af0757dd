"""A trained expert playing GoRecDial games against a seeker, under the generation's rules
(`synth.gorecdial.GoRecDialRules`: the seed exchange, then at most 20 utterances; the first expert turn
only speaks; a recommended candidate leaves the pool; the game ends when the seeker accepts).

The expert speaks or recommends by DECIDE, recommends the remaining candidate PREDICT ranks first (with the
template), and speaks with GENERATE. With `sample`, decisions and words are drawn from the model (bot-play
training keeps their log-probabilities); otherwise they are the most likely ones."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from synth.benchmarks.crs.torch_support import require_torch
from synth.benchmarks.gorecdial.expert import RECOMMEND_TEMPLATE, strip_eos
from synth.benchmarks.gorecdial.games import Game, Utterance
from synth.benchmarks.gorecdial.seekers import Seeker
from synth.benchmarks.gorecdial.training import Expert
from synth.game import SEED_EXCHANGE
from synth.gorecdial import GoRecDialRules, game_score


@dataclass
class PlayedGame:
    game_id: str
    utterances: list[Utterance]
    goal: bool  # the seeker accepted the correct candidate
    score: float
    turns_to_goal: int | None  # utterances after the seed exchange, the acceptance included
    recommendations: int
    ended_by: str
    log_probs: list[Any] = field(default_factory=list)  # the sampled actions' (bot-play)


def act(expert: Expert, game: Game, utterances: Sequence[Utterance], remaining: list[bool], may_recommend: bool,
        sample: bool, generator: Any = None) -> tuple[Utterance, Any]:
    """The expert's next turn and the log-probability of what it chose (0 when nothing was chosen)."""
    torch = require_torch()
    encoder, model = expert.encoder, expert.model
    history = encoder.tensor([encoder.history(utterances)])
    movies = encoder.tensor([encoder.movies(game.candidates)])
    with torch.no_grad():  # bot-play freezes the context and PREDICT: only DECIDE and GENERATE learn
        context, memory, padding = model.context(history)
        scores = model.predict(context, movies)[0]
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


async def play(expert: Expert, seeker: Seeker, game: Game, rules: GoRecDialRules, *, sample: bool = False,
               generator: Any = None) -> PlayedGame:
    """One game from the seed exchange to an acceptance or the turn cap; a seeker failure ends it as 'error'."""
    utterances = [Utterance(role, text) for role, text in SEED_EXCHANGE]
    remaining = [True] * len(game.candidates)
    log_probs: list[Any] = []
    recommended: int | None = None
    recommendations = 0
    for step in range(rules.max_utterances):
        if step % 2 == 0:
            may_recommend = step // 2 >= rules.ask_turns
            turn, log_prob = act(expert, game, utterances, remaining, may_recommend, sample, generator)
            log_probs.append(log_prob)
            utterances.append(turn)
            recommended = turn.recommended
            if recommended is not None:
                remaining[recommended] = False
                recommendations += 1
            continue
        try:
            text, accept = await seeker.reply(game, utterances, recommended)
        except Exception as exc:  # an LLM seeker that fails ends this game, not the benchmark
            return PlayedGame(game.id, utterances, False, 0.0, None, recommendations, f"error: {exc}", log_probs)
        utterances.append(Utterance("seeker", text, accepted=accept if recommended is not None else None))
        if accept and recommended is not None:
            goal = recommended == game.correct
            score = game_score(list(game.points), recommended, recommendations, rules.discount)
            ended = "accepted" if goal else "wrong_acceptance"
            return PlayedGame(game.id, utterances, goal, score, step + 1 if goal else None, recommendations, ended,
                              log_probs)
    return PlayedGame(game.id, utterances, False, 0.0, None, recommendations, "turn_cap", log_probs)


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
    and the cumulative Goal after each utterance (the curve of the plots)."""
    won = [p.turns_to_goal for p in played if p.goal and p.turns_to_goal is not None]
    curve = [sum(t <= n for t in won) / len(played) for n in range(1, max_utterances + 1)] if played else []
    return {
        "games": len(played),
        "goal": len(won) / len(played) if played else 0.0,
        "score": fmean(p.score for p in played) if played else 0.0,
        "turn2goal": fmean(won) if won else None,
        "recommendations": fmean(p.recommendations for p in played) if played else 0.0,
        "wrong_acceptances": sum(p.ended_by == "wrong_acceptance" for p in played),
        "turn_caps": sum(p.ended_by == "turn_cap" for p in played),
        "errors": sum(p.ended_by.startswith("error") for p in played),
        "goal_by_utterance": curve,
    }

