"""What each game mode needs from the data: its game specs and the game that plays them."""

from __future__ import annotations

from typing import Any, Protocol

from synth.config import GenerateConfig
from synth.data.sources import SourceData
from synth.errors import SynthError
from synth.game import GameRules, PearlGame
from synth.gorecdial import GoRecDialExpert, GoRecDialGamePlayer, GoRecDialRules, GoRecDialSeeker, GoRecDialSpec
from synth.item_embeddings import corating_embeddings
from synth.llm.base import ChatBackend
from synth.movie_sets import select_movie_sets
from synth.personas import ReviewIndex, make_game_specs, spec_seed
from synth.prompting import PromptSet
from synth.records import DialogueRecord
from synth.retrievers.factory import build_retriever
from synth.simulators import Recommender, Sampling, Seeker


class Game(Protocol):
    async def play(self, spec: Any) -> DialogueRecord: ...


def build_pearl(config: GenerateConfig, data: SourceData, backend: ChatBackend, prompts: PromptSet) -> tuple[list, Game]:
    """Personas from the reviews and the PEARL game."""
    if not data.reviews:
        raise SynthError(f"pearl mode needs reviews, and source '{config.data_source}' has none: use --source movielens+rt")
    specs, report = make_game_specs(
        data.reviews, data.catalog, n=config.n, seed=config.seed, min_score=config.target_min_score,
        n_general=config.general_reviews,
    )
    data.counts.update({f"persona_users_{k}": v for k, v in vars(report).items()})
    sampling = Sampling(config.max_tokens, config.temperature, config.max_format_retries)
    rules = GameRules(config.turn_cap, config.ask_turns, tuple(config.k_schedule), config.force_target_from)
    retriever = build_retriever(config.retriever, data.catalog, embedding_model=config.embedding_model)
    game = PearlGame(
        data.catalog, ReviewIndex(data.reviews), retriever, Seeker(backend, prompts, sampling),
        Recommender(backend, prompts, sampling), rules, sampling,
    )
    return specs, game


def build_gorecdial(config: GenerateConfig, data: SourceData, backend: ChatBackend, prompts: PromptSet) -> tuple[list, Game]:
    """Movie sets from co-rating embeddings and the GoRecDial game."""
    if data.ratings is None:
        raise SynthError(f"gorecdial mode needs ratings, and source '{config.data_source}' has none: use --source movielens")
    ratings = data.ratings[data.ratings["item"].isin(data.catalog)]  # games use catalog movies only
    embeddings = corating_embeddings(ratings, dim=config.embedding_dim, min_ratings=config.min_item_ratings, seed=config.seed)
    sets, report = select_movie_sets(ratings, embeddings, n=config.n, seed=config.seed, rules=config.set_rules)
    data.counts.update(
        {"set_users": report.users, "set_users_too_few_liked": report.users_with_too_few_liked,
         "sets_tried": report.tried, "sets_kept": report.kept,
         **{f"sets_dropped_{reason}": n for reason, n in sorted(report.dropped.items())}}
    )
    if not sets:
        raise SynthError(f"no GoRecDial set passed the rules ({report.tried} tried): loosen the set margins")
    specs = [GoRecDialSpec(f"gorecdial-{config.seed}-{i:06d}", spec_seed(config.seed, i), s) for i, s in enumerate(sets)]
    sampling = Sampling(config.max_tokens, config.temperature, config.max_format_retries)
    game = GoRecDialGamePlayer(
        data.catalog, GoRecDialSeeker(backend, prompts, sampling), GoRecDialExpert(backend, prompts, sampling),
        GoRecDialRules(max_utterances=config.turn_cap, ask_turns=config.ask_turns), sampling,
    )
    return specs, game


BUILDERS = {"pearl": build_pearl, "gorecdial": build_gorecdial}
