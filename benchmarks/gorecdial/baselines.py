"""The table's baselines, scored like the experts (`evaluate.Tally`):

- random recommendation: Turn@k = Chat@k = k/5 and decision accuracy 0.5, in expectation (exact, not sampled);
- candidate prior (`prior.CandidatePrior`): the TF-IDF of each candidate's text alone; it never reads the
  dialogue, so it shows how much the sets alone give away;
- dense recommendation: the candidate whose text is nearest (MiniLM cosine, `cosines.DialogueCosines`) to the
  dialogue so far;
- TF-IDF and dense response rankers (`crs.baselines.rankers`): the expert utterance that followed the most
  similar training context, on speak turns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.rankers import DenseRanker, TfidfRanker
from synth.benchmarks.crs.cases import ResponseCase
from synth.benchmarks.crs.datasets import Utterance as CrsUtterance
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.gorecdial.cosines import DialogueCosines
from synth.benchmarks.gorecdial.evaluate import KS, Tally, speak_turns
from synth.benchmarks.gorecdial.games import CANDIDATES, Game
from synth.benchmarks.gorecdial.prior import CandidatePrior


def random_metrics() -> dict[str, Any]:
    result: dict[str, Any] = {"f1": None, "bleu4": None, "decision_acc": 0.5}
    for k in KS:
        result[f"turn@{k}"] = result[f"chat@{k}"] = k / CANDIDATES
    return result


def _turns(games: Sequence[Game]) -> list[tuple[Game, int, int]]:
    """(game, expert turn index from 1, position) of every expert turn."""
    return [(g, n + 1, t) for g in games for n, t in enumerate(g.expert_turns())]


def _rank(scores: np.ndarray, correct: int) -> int:
    return int((scores >= scores[correct]).sum())


def candidate_prior(train: Sequence[Game], test: Sequence[Game], seed: int) -> Tally:
    prior = CandidatePrior(train, seed)
    tally = Tally()
    for game in test:
        rank = _rank(np.array(prior.scores(game.candidates)), game.correct)
        tally.turn_ranks += [(n + 1, rank) for n, _ in enumerate(game.expert_turns())]
        tally.chat_ranks.append(rank)
    return tally


def dense_recommendation(test: Sequence[Game], cosines: DialogueCosines) -> Tally:
    tally = Tally()
    for game in test:
        positions = [t for _, _, t in _turns([game])] + [len(game.utterances)]
        scores = cosines(game, [game.utterances[:t] for t in positions])
        tally.turn_ranks += [(n + 1, _rank(scores[n], game.correct)) for n in range(len(positions) - 1)]
        tally.chat_ranks.append(_rank(scores[-1], game.correct))
    return tally


def response_rankers(train: Sequence[Game], test: Sequence[Game], setup: Setup) -> dict[str, Tally]:
    """TF-IDF and dense rankers' utterances on the held-out speak turns."""
    data = TrainingData("gorecdial", "", [], [], _response_cases(train))
    cases = _response_cases(test)
    tallies = {}
    for ranker in (TfidfRanker(setup), DenseRanker(setup)):
        ranker.fit(data)
        tallies[ranker.name] = Tally(hypotheses=ranker.respond(cases), references=[c.reference for c in cases])
    return tallies


def _response_cases(games: Sequence[Game]) -> list[ResponseCase]:
    return [
        ResponseCase(game.id, tuple(CrsUtterance(u.role, u.text, ()) for u in game.utterances[:t]), game.utterances[t].text)
        for game, t in speak_turns(games)
    ]


def ranker_setup(seed: int, embedding_model: str | None, progress: bool) -> Setup:
    """What the shared rankers need: no item space, the sentence encoder."""
    return Setup(space=ItemSpace({}), seed=seed, embedding_model=embedding_model, progress=progress)
