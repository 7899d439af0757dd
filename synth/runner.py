"""Run many games concurrently, append each finished dialogue as one JSON line, write the manifest."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any, Protocol

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.sources import SourceData, load_demo, load_files, load_movielens_only, load_movielens_rt
from synth.errors import SynthError
from synth.game import GameRules, PearlGame
from synth.gorecdial import GoRecDialExpert, GoRecDialGamePlayer, GoRecDialRules, GoRecDialSeeker, GoRecDialSpec
from synth.item_embeddings import corating_embeddings
from synth.llm.base import ChatBackend
from synth.manifest import build_manifest, now, write_manifest
from synth.movie_sets import select_movie_sets
from synth.personas import ReviewIndex, make_game_specs, spec_seed
from synth.prompting import PromptSet
from synth.records import DialogueRecord
from synth.retrievers.bm25 import BM25Retriever
from synth.simulators import Recommender, Sampling, Seeker

log = logging.getLogger(__name__)


class Game(Protocol):
    async def play(self, spec: Any) -> DialogueRecord: ...

DIALOGUES_FILE = "dialogues.jsonl"
MANIFEST_FILE = "manifest.json"


def make_backend(config: GenerateConfig) -> ChatBackend:
    """The backend the config names (heavy imports happen only for the one chosen)."""
    if config.backend == "llamacpp":
        from synth.llm.llamacpp import LlamaCppBackend

        return LlamaCppBackend(config.model, n_ctx=config.n_ctx, n_threads=config.n_threads)
    from synth.llm.openai_compat import OpenAIBackend

    return OpenAIBackend(
        config.model,
        base_url=config.base_url,
        structured=config.structured,
        max_concurrency=config.concurrency,
        max_attempts=config.api_max_attempts,
        timeout_s=config.request_timeout_s,
    )


def prepare_output(out_dir: Path, overwrite: bool) -> Path:
    """The dialogues file to write; refuses to mix with an earlier run unless told to overwrite."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / DIALOGUES_FILE
    if path.exists() and path.stat().st_size > 0:
        if not overwrite:
            raise SynthError(f"{path} already holds dialogues: choose another --out or pass --overwrite")
        path.unlink()
    return path


class _Tally:
    def __init__(self) -> None:
        self.counts = {"requested": 0, "written": 0, "accepted_target": 0, "failed": 0}
        self.tokens = {"prompt": 0, "completion": 0}

    def add(self, record: DialogueRecord) -> None:
        self.counts["written"] += 1
        self.counts["accepted_target"] += record.outcome.accepted_target
        self.counts["failed"] += bool(record.errors)
        self.tokens["prompt"] += record.generation.prompt_tokens
        self.tokens["completion"] += record.generation.completion_tokens


def _rates(dialogues: int, tokens: int, elapsed: float) -> str:
    """Throughput for the progress bar: dialogues/s, or s/dialogue when slower than one a second."""
    per_second = dialogues / elapsed
    pace = f"{per_second:.1f} dlg/s" if per_second >= 1 else f"{elapsed / dialogues:.0f} s/dlg"
    return f"{pace} {tokens / elapsed:.0f} tok/s"


def _progress(enabled: bool) -> Progress:
    return Progress(
        TextColumn("[bold]dialogues"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rates]}"),
        TextColumn("failed {task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        disable=not enabled,
    )


def load_data(config: GenerateConfig) -> SourceData:
    """The catalog, reviews and ratings the configured source provides."""
    bad_lines = BadLines(skip=config.skip_bad_lines)
    source = config.data_source
    if source == "files":
        if not (config.catalog and config.reviews):
            raise SynthError("--catalog and --reviews go together: give both, or neither for the demo")
        data = load_files(config.catalog, config.reviews, config.rating_scale, bad_lines)
    elif source == "movielens+rt":
        data = load_movielens_rt(config.movielens, config.rt_critics, bad_lines)
    elif source == "movielens":
        data = load_movielens_only(config.movielens)
    else:
        data = load_demo()
    data.counts["bad_lines_skipped"] = bad_lines.skipped
    return data


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
    game = PearlGame(
        data.catalog, ReviewIndex(data.reviews), BM25Retriever(data.catalog), Seeker(backend, prompts, sampling),
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
        GoRecDialRules(max_utterances=config.turn_cap), sampling,
    )
    return specs, game


BUILDERS = {"pearl": build_pearl, "gorecdial": build_gorecdial}


async def generate(
    config: GenerateConfig, out_dir: Path, *, backend: ChatBackend | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Play `config.n` games and write them to `out_dir`; returns the manifest."""
    started, clock = now(), time.perf_counter()
    data = load_data(config)
    prompts = PromptSet.load(config.prompts_dir, mode=config.mode)
    backend = backend or make_backend(config)
    specs, game = BUILDERS[config.mode](config, data, backend, prompts)
    dialogues_path = prepare_output(out_dir, overwrite)
    await backend.check()

    tally = _Tally()
    tally.counts["requested"] = len(specs)
    status = "interrupted"
    try:
        await _play_all(game, specs, dialogues_path, tally, config)
        status = "finished"
    finally:
        manifest = build_manifest(
            config,
            model=backend.model_info,
            prompt_hashes=prompts.hashes,
            counts={**tally.counts, **data.counts},
            tokens=tally.tokens,
            started=started,
            wall_s=time.perf_counter() - clock,
            status=status,
        )
        write_manifest(out_dir / MANIFEST_FILE, manifest)
        await backend.aclose()
    return manifest


async def _play_all(game: Game, specs: list, path: Path, tally: _Tally, config: GenerateConfig) -> None:
    semaphore = asyncio.Semaphore(config.concurrency)
    clock = time.perf_counter()

    async def play(spec: Any) -> DialogueRecord:
        async with semaphore:
            return await game.play(spec)

    with _progress(config.progress) as progress, path.open("a", encoding="utf-8") as out:
        task = progress.add_task("generate", total=len(specs), rates="", failed=0)
        for finished in asyncio.as_completed([play(spec) for spec in specs]):
            record = await finished
            out.write(record.model_dump_json() + "\n")
            out.flush()
            tally.add(record)
            elapsed = max(time.perf_counter() - clock, 1e-9)
            tokens = tally.tokens["prompt"] + tally.tokens["completion"]
            progress.update(task, advance=1, rates=_rates(tally.counts["written"], tokens, elapsed), failed=tally.counts["failed"])
