"""What each game mode needs from the data: its game specs and the game that plays them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from synth.config import GenerateConfig
from synth.data.sources import SourceData
from synth.errors import SynthError
from synth.game import GameRules, PearlGame
from synth.gorecdial import GoRecDialExpert, GoRecDialGamePlayer, GoRecDialRules, GoRecDialSeeker, GoRecDialSpec
from synth.item_embeddings import corating_embeddings
from synth.llm.base import ChatBackend
from synth.movie_sets import select_movie_sets
from synth.personas import ReviewIndex, make_game_specs, persona_signatures, spec_seed
from synth.planner import GamePlan, PlanSummary, summarise
from synth.prompting import PromptSet
from synth.records import DialogueRecord
from synth.retrievers.factory import build_retriever
from synth.set_identifiability import identifiability
from synth.simulators import Recommender, Sampling, Seeker
from synth.strategy.model import StrategyModel, load_strategy


class Game(Protocol):
    async def play(self, spec: Any) -> DialogueRecord: ...


@dataclass
class Planned:
    """A run's game specs, decided before any model is loaded; `plan` and `reviews` are the PEARL mode's."""

    specs: list
    summary: PlanSummary
    plan: GamePlan | None = None
    reviews: ReviewIndex | None = None
    counts: dict[str, int] = field(default_factory=dict)


def review_index(config: GenerateConfig, data: SourceData) -> ReviewIndex:
    """The seeker's own ratings or reviews: a ratings table (MovieLens, --ratings) or review texts."""
    if data.ratings_table is not None:
        return ReviewIndex(data.ratings_table)
    if not data.reviews:
        raise SynthError(f"pearl mode needs reviews or ratings, and source '{config.data_source}' has none")
    return ReviewIndex.from_reviews(data.reviews)


def plan_pearl(config: GenerateConfig, data: SourceData) -> Planned:
    """Personas from the users' ratings or reviews, one (user, target) pair per game (see synth.planner)."""
    reviews = review_index(config, data)
    specs, plan = make_game_specs(
        reviews, data.catalog, n=config.n, seed=config.seed, min_score=config.target_min_score,
        n_general=config.general_reviews, allow_repeats=config.allow_repeats, planner=config.planner,
    )
    table, rows = plan.table, plan.target_rows
    summary = summarise(
        table.user_ids[table.user[rows]], table.item_ids[table.item[rows]],
        persona_signatures(plan, config.seed, config.general_reviews), plan.available_pairs,
    )
    counts = {f"persona_users_{k}": v for k, v in vars(plan.report).items()}
    return Planned(specs, summary, plan, reviews, counts | plan_counts(summary))


def plan_counts(summary: PlanSummary) -> dict[str, int]:
    """The manifest's counts of what the run plays."""
    keys = ("available_pairs", "distinct_users", "distinct_targets", "distinct_user_target_pairs", "distinct_personas")
    return {key: getattr(summary, key) for key in keys if getattr(summary, key) is not None}


def build_pearl(config: GenerateConfig, data: SourceData, backend: ChatBackend, prompts: PromptSet, planned: Planned) -> Game:
    """The PEARL game over the planned personas."""
    assert planned.reviews is not None
    sampling = Sampling(config.max_tokens, config.temperature, config.max_format_retries, config.reply_resamples)
    rules = GameRules(
        config.turn_cap, config.ask_turns, tuple(config.k_schedule), config.force_target_from, config.strategy,
        config.wording,
    )
    retriever = build_retriever(config.retriever, data.catalog, embedding_model=config.embedding_model)
    return PearlGame(
        data.catalog, planned.reviews, retriever, Seeker(backend, prompts, sampling),
        Recommender(backend, prompts, sampling, think=config.think), rules, sampling, strategy_model(config),
    )


def strategy_model(config: GenerateConfig) -> StrategyModel | None:
    """The table the plans are drawn from, for --strategy human."""
    return load_strategy() if config.strategy == "human" else None


def plan_gorecdial(config: GenerateConfig, data: SourceData) -> Planned:
    """Movie sets from co-rating embeddings, one per game."""
    if data.ratings is None:
        raise SynthError(f"gorecdial mode needs ratings, and source '{config.data_source}' has none: use --source movielens")
    ratings = data.ratings[data.ratings["item"].isin(data.catalog)]  # games use catalog movies only
    embeddings = corating_embeddings(ratings, dim=config.embedding_dim, min_ratings=config.min_item_ratings, seed=config.seed)
    sets, report = select_movie_sets(ratings, embeddings, n=config.n, seed=config.seed, rules=config.set_rules)
    counts = {
        "set_users": report.users, "set_users_too_few_liked": report.users_with_too_few_liked,
        "sets_tried": report.tried, "sets_kept": report.kept,
        **{f"sets_dropped_{reason}": n for reason, n in sorted(report.dropped.items())},
    }
    if not sets:
        raise SynthError(f"no GoRecDial set passed the rules ({report.tried} tried): loosen the set margins")
    counts |= identifiability(sets, ratings, data.catalog).counts()
    specs = [GoRecDialSpec(f"gorecdial-{config.seed}-{i:06d}", spec_seed(config.seed, i), s) for i, s in enumerate(sets)]
    summary = summarise(
        [s.user_id for s in sets], [s.candidates[s.correct_index] for s in sets],
        ["|".join([s.user_id, *sorted(s.seeker_items), *sorted(s.candidates)]) for s in sets],
    )
    return Planned(specs, summary, counts=counts | plan_counts(summary))


def build_gorecdial(config: GenerateConfig, data: SourceData, backend: ChatBackend, prompts: PromptSet, planned: Planned) -> Game:
    """The GoRecDial game over the planned movie sets."""
    sampling = Sampling(config.max_tokens, config.temperature, config.max_format_retries, config.reply_resamples)
    return GoRecDialGamePlayer(
        data.catalog, GoRecDialSeeker(backend, prompts, sampling), GoRecDialExpert(backend, prompts, sampling),
        GoRecDialRules(
            max_utterances=config.turn_cap, ask_turns=0 if config.strategy == "free" else config.ask_turns,
            strategy=config.strategy, wording=config.wording,
        ),
        sampling, strategy_model(config),
    )


PLANNERS = {"pearl": plan_pearl, "gorecdial": plan_gorecdial}
BUILDERS = {"pearl": build_pearl, "gorecdial": build_gorecdial}
