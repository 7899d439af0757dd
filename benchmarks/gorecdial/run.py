"""`synth benchmark --suite gorecdial`: the expert's supervised variants and its bot-play version, trained on
each --train set and scored on each --test set, beside the baselines; then games against the retrieval
seeker and the LLM seeker. When the training set holds a test set's games (it is the test set, or pools it
with others), the test games are split into k folds (every game is held out once, never trained on; the
figures pool all folds)."""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from synth.analysis.intervals import clustered_mean_interval
from synth.benchmarks.crs.datasets import parse_specs
from synth.benchmarks.gorecdial import baselines
from synth.benchmarks.gorecdial.botplay import BotPlayConfig, run_bot_play
from synth.benchmarks.gorecdial.cosines import DialogueCosines
from synth.benchmarks.gorecdial.evaluate import Tally, evaluate_expert
from synth.benchmarks.gorecdial.expert import ExpertConfig
from synth.benchmarks.gorecdial.games import Game, GameSet, held_out_splits, load_games
from synth.benchmarks.gorecdial.human_games import RedialGames, game_specs
from synth.benchmarks.gorecdial.play import PlayedGame, game_metrics, play_all
from synth.benchmarks.gorecdial.seekers import LlmSeeker, RetrievalSeeker
from synth.benchmarks.gorecdial.training import VARIANTS, Expert, predict_weights, train_supervised
from synth.config import BackendConfig
from synth.data.dialogues import Dialogue
from synth.gorecdial import GoRecDialRules

GAME_EXPERTS = ("+DECIDE", "+PLAN")  # the supervised and the bot-play expert: both decide
EXPERT_NAMES = {"+DECIDE": "supervised (+DECIDE)", "+PLAN": "bot-play (+PLAN)"}
PRIOR = "candidate prior (no context)"


@dataclass
class GoRecDialOptions:
    train: list[str]
    test: list[str]
    folds: int = 5
    seed: int = 0
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    botplay: BotPlayConfig = field(default_factory=BotPlayConfig)
    llm_games: int = 10  # held-out games played against the LLM seeker (seeded sample); 0: none
    game_utterances: int = 20  # a game's cap after the opening, bot-play's included (the paper's 20)
    llm: BackendConfig = field(default_factory=BackendConfig)
    embedding_model: str | None = None
    progress: bool = True
    format: str | None = None


@dataclass
class Fold:
    train: list[Game]
    test: list[Game]
    experts: dict[str, Expert] = field(default_factory=dict)


@functools.cache
def _announce(console: Console | None, text: str) -> None:
    if console is not None:
        console.log(text)


def _movielens() -> dict[str, Any]:
    from synth.data.sources import movielens_catalog

    return movielens_catalog()


@functools.cache
def _redial_source(seed: int) -> RedialGames:
    from synth.data.sources import load_movielens_only
    from synth.item_embeddings import corating_embeddings

    movielens = load_movielens_only(None)
    return RedialGames(movielens.catalog, corating_embeddings(movielens.ratings, seed=0), seed)


def _redial_games(seed: int, dialogues: Iterable[Dialogue], skipped: Counter) -> list[Game]:
    """ReDial dialogues as games over MovieLens (.human_games), its embedding made once per run."""
    return _redial_source(seed).games(dialogues, skipped)


def run_gorecdial(settings: GoRecDialOptions, *, console: Console | None = None) -> dict[str, Any]:
    """The results document: settings, datasets, and per train x test pair both tables, curves and times.
    Each fold and each set of LLM games is announced on `console` when the caller gives one."""
    redial = functools.partial(_redial_games, settings.seed)
    train_sets = [load_games(s, _movielens, redial) for s in parse_specs(game_specs(settings.train), settings.format)]
    test_sets = [load_games(s, _movielens, redial) for s in parse_specs(game_specs(settings.test), settings.format)]
    datasets = {s.label: s.describe() for s in [*train_sets, *test_sets]}
    played = [_pair(train, test, settings, console) for train in train_sets for test in test_sets]
    against_first_training(played)
    pairs = [pair for pair, _, _ in played]
    return {
        "suite": "gorecdial",
        "settings": {
            "folds": settings.folds, "seed": settings.seed, "expert": settings.expert.model_dump(),
            "botplay": settings.botplay.model_dump(), "llm_games": settings.llm_games,
            "llm": settings.llm.model_dump(include={"backend", "model", "base_url", "concurrency"})
            if settings.llm_games else None, "embedding_model": settings.embedding_model,
            "rules": vars(GoRecDialRules()),
        },
        "datasets": datasets,
        "pairs": pairs,
    }


def _pair(
    train: GameSet, test: GameSet, settings: GoRecDialOptions, console: Console | None
) -> tuple[dict[str, Any], dict[str, Tally], list[str]]:
    """One training set scored on one test set: the pair's results, its tallies and its held-out games' ids, in
    the order they were scored."""
    splits = held_out_splits(train.games, test.games, settings.folds, settings.seed)
    held_out = [g for _, t in splits for g in t]
    llm_sample = {g.id for g in random.Random(settings.seed).sample(held_out, min(settings.llm_games, len(held_out)))}
    rules = GoRecDialRules(max_utterances=settings.game_utterances)
    times: dict[str, float] = {"supervised_s": 0.0, "botplay_s": 0.0, "games_s": 0.0, "baselines_s": 0.0}
    tallies: dict[str, Tally] = {}
    played: dict[str, dict[str, list[PlayedGame]]] = {"retrieval": {e: [] for e in GAME_EXPERTS}}
    rewards: list[list[float]] = []
    setup = baselines.ranker_setup(settings.seed, settings.embedding_model, settings.progress)
    cosines = DialogueCosines(setup.encoder())  # the dense baseline's and, with dialogue_cosine, the experts'
    fold_list = []
    for number, (train_games, test_games) in enumerate(splits):
        _announce(console, f"{train.label} -> {test.label}: fold {number + 1}/{len(splits)}, "
                    f"{len(train_games)} training and {len(test_games)} held-out games")
        fold = Fold(train_games, test_games)
        start = time.perf_counter()
        for variant in VARIANTS:
            fold.experts[variant] = train_supervised(train_games, variant, settings.expert, settings.seed,
                                                     settings.progress, train.label, cosines)
        times["supervised_s"] += time.perf_counter() - start
        seeker = RetrievalSeeker(train_games)
        start = time.perf_counter()
        fold.experts["+PLAN"], curve = run_bot_play(fold.experts["+DECIDE"], train_games, seeker, rules,
                                                    settings.botplay, settings.seed, settings.progress)
        rewards.append(curve)
        times["botplay_s"] += time.perf_counter() - start
        for name, expert in fold.experts.items():
            tallies.setdefault(name, Tally()).extend(evaluate_expert(expert, test_games))
        start = time.perf_counter()
        for name in GAME_EXPERTS:
            played["retrieval"][name] += asyncio.run(play_all(fold.experts[name], seeker, test_games, rules))
        times["games_s"] += time.perf_counter() - start
        start = time.perf_counter()
        _baselines(train_games, test_games, settings.seed, setup, cosines, tallies)
        times["baselines_s"] += time.perf_counter() - start
        fold_list.append(fold)
    llm_usage = None
    if llm_sample:
        start = time.perf_counter()
        played["llm"], llm_usage = asyncio.run(_llm_games(fold_list, llm_sample, rules, settings, console))
        times["llm_games_s"] = time.perf_counter() - start
    supervised = {"random (expected)": baselines.random_metrics()}
    supervised.update({name: tally.metrics() for name, tally in tallies.items()})
    return {
        "train": train.label,
        "test": test.label,
        "evaluation": _evaluation(train, test, len(splits)),
        "train_games": [len(games) for games, _ in splits],  # per fold
        "test_games": len(held_out),
        "game_utterances": rules.max_utterances,
        "supervised": supervised,
        "turn_curves": {name: tally.turn_curve() for name, tally in tallies.items() if tally.turn_ranks},
        "against_prior": against_prior(tallies),
        "predict_weights": {name: [predict_weights(fold.experts[name].model) for fold in fold_list]
                            for name in VARIANTS if fold_list and fold_list[0].experts[name].predicts},
        "games": {
            seeker: {EXPERT_NAMES[name]: game_metrics(games, rules.max_utterances) for name, games in by_expert.items()}
            for seeker, by_expert in played.items()
        },
        "examples": {EXPERT_NAMES[name]: _transcript(games[0]) for name, games in played["retrieval"].items() if games},
        "botplay_reward": [sum(values) / len(values) for values in zip(*rewards)],
        "llm_usage": llm_usage,
        "times": {k: round(v, 1) for k, v in times.items()},
    }, tallies, [g.id for g in held_out]


def paired_turn1(ranks: Sequence[tuple[int, int]], base: Sequence[tuple[int, int]]) -> dict[str, Any] | None:
    """Turn@1 of `ranks` minus `base`'s, turn by turn on the same expert turns: the mean difference and its paired
    95% interval, whole games resampled (a game's turns share its candidates and prior); None when the two were
    not scored on the same turns."""
    if not base or [index for index, _ in ranks] != [index for index, _ in base]:
        return None
    games: list[list[int]] = []
    for (index, rank), (_, other) in zip(ranks, base):
        if index == 1:  # a game's first expert turn
            games.append([])
        games[-1].append(int(rank <= 1) - int(other <= 1))
    total = sum(sum(g) for g in games) / sum(len(g) for g in games)
    return {"turn@1": total, "turn@1_ci": clustered_mean_interval(games)}


def against_prior(tallies: dict[str, Tally]) -> dict[str, dict[str, Any]]:
    """Each expert that predicts against the candidate prior on the same expert turns (`paired_turn1`); apart from
    zero, the dialogue tells what the sets do not."""
    prior = tallies[PRIOR].turn_ranks
    return {name: found for name, tally in tallies.items()
            if _predicts(name) and (found := paired_turn1(tally.turn_ranks, prior)) is not None}


def against_first_training(played: Sequence[tuple[dict[str, Any], dict[str, Tally], list[str]]]) -> None:
    """Each pair whose test set an earlier --train set was scored on, on the same held-out games, gets
    `against_first_training`: its predicting experts against that first training set's, on the same expert turns
    (`paired_turn1`): what pooling more games into the training set does to the expert."""
    first: dict[str, tuple[dict[str, Any], dict[str, Tally], list[str]]] = {}
    for pair, tallies, held_out in played:
        base_pair, base_tallies, base_held_out = first.setdefault(pair["test"], (pair, tallies, held_out))
        if base_pair is pair or base_held_out != held_out:
            continue
        experts = {name: found for name, tally in tallies.items() if _predicts(name) and name in base_tallies
                   and (found := paired_turn1(tally.turn_ranks, base_tallies[name].turn_ranks)) is not None}
        pair["against_first_training"] = {"train": base_pair["train"], "experts": experts}


def _predicts(name: str) -> bool:
    return name in VARIANTS or name == "+PLAN"


def _evaluation(train: GameSet, test: GameSet, splits: int) -> str:
    if splits == 1:
        return "held-out test set"
    if train.fingerprint == test.fingerprint:
        return f"{splits}-fold cross-validation over the games"
    return f"{splits}-fold cross-validation over the test games (the training set holds them)"


def _baselines(train: Sequence[Game], test: Sequence[Game], seed: int, setup: Any, cosines: DialogueCosines,
               tallies: dict[str, Tally]) -> None:
    found = {PRIOR: baselines.candidate_prior(train, test, seed),
             "dense recommendation": baselines.dense_recommendation(test, cosines)}
    found.update({f"{name} response ranker": tally
                  for name, tally in baselines.response_rankers(train, test, setup).items()})
    for name, tally in found.items():
        tallies.setdefault(name, Tally()).extend(tally)


async def _llm_games(fold_list: list[Fold], sample: set[str], rules: GoRecDialRules, settings: GoRecDialOptions,
                     console: Console | None
                     ) -> tuple[dict[str, list[PlayedGame]], dict[str, Any]]:
    """The sampled held-out games, each played by its fold's experts against synth's LLM seeker."""
    from synth.llm.factory import make_backend

    backend = make_backend(settings.llm)
    seeker = LlmSeeker(backend, settings.seed)
    played: dict[str, list[PlayedGame]] = {name: [] for name in GAME_EXPERTS}
    try:
        await backend.check()
        for fold in fold_list:
            games = [g for g in fold.test if g.id in sample]
            for name in GAME_EXPERTS if games else ():
                _announce(console, f"{len(games)} games: {EXPERT_NAMES[name]} expert vs the LLM seeker")
                played[name] += await play_all(fold.experts[name], seeker, games, rules, settings.llm.concurrency)
    finally:
        await backend.aclose()
    return played, seeker.usage_summary()


def _transcript(game: PlayedGame) -> list[str]:
    names = {"seeker": "Seeker", "recommender": "Expert"}
    return [f"{names[u.role]}: {u.text}" for u in game.utterances]
