"""Bot-play: the supervised expert plays the retrieval seeker on the training games and learns from the
game's reward by REINFORCE on its sampled decisions and utterances, as in the paper: the reward is the
accepted candidate's points, halved for each recommendation before it (0 when the turn cap ends the game),
minus a running-mean baseline. A game the seeker ends by accepting a wrong movie is neither a win nor a loss
of the expert: it is left out of the update. Each RL step alternates with a supervised step on GENERATE and DECIDE. The
word embeddings, the utterance and the movie encoders are frozen, so PREDICT (and the context it reads) cannot
drift: bot-play changes when the expert recommends and what it says."""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel

from synth.benchmarks.crs.torch_support import require_torch
from synth.benchmarks.gorecdial.games import Game
from synth.benchmarks.gorecdial.play import play
from synth.benchmarks.gorecdial.seekers import Seeker
from synth.benchmarks.gorecdial.training import VARIANTS, Expert, aspect_losses, turn_examples
from synth.gorecdial import GoRecDialRules
from synth.progress import track

FROZEN = ("embed", "utterance_rnn", "movie_projection")  # what PREDICT and the context are made of


class BotPlayConfig(BaseModel):
    updates: int = 150
    games_per_update: int = 8
    learning_rate: float = 5e-4
    supervised_batch: int = 32
    baseline_momentum: float = 0.9


async def bot_play(supervised: Expert, games: Sequence[Game], seeker: Seeker, rules: GoRecDialRules,
                   config: BotPlayConfig, seed: int, progress: bool = False) -> tuple[Expert, list[float]]:
    """The +PLAN expert, and the mean reward of each update's games."""
    torch = require_torch()
    model = copy.deepcopy(supervised.model)
    for frozen in FROZEN:
        getattr(model, frozen).requires_grad_(False)
    expert = Expert("+PLAN", supervised.encoder, model, predicts=True, decides=True)
    examples = turn_examples(games, supervised.encoder)
    generate_weight, predict_weight = VARIANTS["+DECIDE"]
    decide_weight = 1.0 - generate_weight - predict_weight
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=config.learning_rate)
    generator = torch.Generator().manual_seed(seed)
    rng = random.Random(seed)
    baseline: float | None = None
    rewards: list[float] = []
    model.train()
    model.dropout.eval()  # PREDICT plays as it was trained; bot-play does not train it
    for _ in track(range(config.updates), "bot-play", progress):
        chosen = [rng.choice(games) for _ in range(config.games_per_update)]
        played = [await play(expert, seeker, game, rules, sample=True, generator=generator) for game in chosen]
        played = [p for p in played if p.outcome.ended_by != "wrong_acceptance"]
        if not played:  # every game ended on the seeker taking a wrong movie: neither a win nor a loss
            continue
        scores = [p.outcome.score or 0.0 for p in played]
        baseline = fmean(scores) if baseline is None else baseline
        reinforce: Any = sum((score - baseline) * -sum(p.log_probs) for score, p in zip(scores, played)) / len(played)
        baseline = config.baseline_momentum * baseline + (1 - config.baseline_momentum) * fmean(scores)
        _step(torch, optimiser, model, reinforce)
        rows = torch.randint(len(examples), (config.supervised_batch,), generator=generator)
        generate, _, decide = aspect_losses(model, examples.take(rows))
        _step(torch, optimiser, model, generate_weight * generate + decide_weight * decide)
        rewards.append(fmean(scores))
    model.eval()
    return expert, rewards


def _step(torch: Any, optimiser: Any, model: Any, loss: Any) -> None:
    if not loss.requires_grad:  # every sampled game was a forced turn: nothing to learn from
        return
    optimiser.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimiser.step()


def run_bot_play(supervised: Expert, games: Sequence[Game], seeker: Seeker, rules: GoRecDialRules,
                 config: BotPlayConfig, seed: int, progress: bool = False) -> tuple[Expert, list[float]]:
    return asyncio.run(bot_play(supervised, games, seeker, rules, config, seed, progress))
