"""`synth evaluate`: synth's seeker talks to a CRS and scores it (docs/evaluation.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from synth.cli.benchmark import BENCHMARK_CACHE_HELP, benchmark_cache, write_results
from synth.cli.console import progress_option
from synth.cli.settings import field_default
from synth.config import BackendConfig


def evaluate(
    crs: list[str] = typer.Option(
        ..., "--crs", help="A CRS to evaluate (repeatable): oracle, random, a recommendation baseline of `synth "
        "benchmark` trained on --train (popularity, cooccurrence, bm25, dense, neural), synth-llm (synth's own LLM "
        "recommender), openai:URL (a chat model behind an OpenAI-compatible server; --crs-model names it) or "
        "http:URL (synth's HTTP JSON protocol)."
    ),
    test: str = typer.Option(
        ..., "--test", help="Cases: redial-test, inspired-test, a ReDial/INSPIRED file or a synth run."
    ),
    train: Optional[str] = typer.Option(None, "--train", help="Training set of the baselines (e.g. redial-train)."),
    out: Path = typer.Option(Path("evaluation"), "--out", help="Folder of the conversations and results."),
    n: int = typer.Option(30, "--n", min=1, help="Cases (a seeded sample, one per source dialogue first)."),
    turns: int = typer.Option(3, "--turns", min=1, help="CRS turns after the seeker's opening."),
    warm_start: bool = typer.Option(
        True, "--warm-start/--cold-start", help="Start from the human dialogue before the target."
    ),
    mode: str = typer.Option(
        "target", help="What the seeker knows: target (its target's genres, era and mood words), attributes (genres "
        "and era only) or target-free (no single target: held-out movies of a MovieLens user, --test movielens)."
    ),
    validate: bool = typer.Option(
        False, "--validate", help="Also play each CRS's degraded twins (popularity, shuffled)."
    ),
    seed: int = typer.Option(0, help="Seed of the case sample, the seeker and the random CRS."),
    concurrency: int = typer.Option(4, min=1, help="Conversations in flight at once (the seeker's requests too)."),
    seeker_backend: Optional[str] = typer.Option(
        None, help=f"The seeker's backend: llamacpp, openai or vllm {field_default(BackendConfig, 'backend')}."
    ),
    seeker_model: Optional[str] = typer.Option(None, help="The seeker's model (as for `synth generate --model`)."),
    seeker_base_url: Optional[str] = typer.Option(None, help="The seeker's endpoint (openai backend)."),
    crs_model: Optional[str] = typer.Option(None, help="The model an openai: CRS answers as."),
    reply_resamples: int = typer.Option(2, min=0, help="Re-samples of a seeker message that names its target."),
    cache_dir: Optional[Path] = typer.Option(None, help=f"Fitted baselines, reused {BENCHMARK_CACHE_HELP}."),
    request_cache: bool = typer.Option(
        True, "--request-cache/--no-request-cache", help="Keep the seeker's model answers in --out/requests.sqlite."
    ),
    progress: bool = progress_option(),
) -> None:
    """Play each --crs against synth's seeker on the cases of --test and score it: success and Recall@k after
    each turn, success at the first recommendation and later, the target-leak rate; results.json, results.md
    and success_by_turn.png in --out, each conversation as a synth dialogue record."""
    from synth.benchmarks.interactive import results as evaluation_results
    from synth.benchmarks.interactive.run import EvaluateOptions, run_evaluation

    settings = {"backend": seeker_backend, "model": seeker_model, "base_url": seeker_base_url}
    given = {key: value for key, value in settings.items() if value is not None}
    seeker = BackendConfig(concurrency=concurrency, **given)
    options = EvaluateOptions(
        crs=crs, test=test, out=out, train=train, n=n, turns=turns, warm_start=warm_start, mode=mode, validate=validate,
        seed=seed, concurrency=concurrency, seeker=seeker, crs_model=crs_model, reply_resamples=reply_resamples,
        cache_dir=benchmark_cache(cache_dir), request_cache=request_cache, progress=progress,
    )
    write_results(out, run_evaluation(options), evaluation_results)
