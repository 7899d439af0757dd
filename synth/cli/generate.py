"""`synth generate`: play seeker/recommender games with an LLM and write a run folder."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from synth.cli.errors import one_line_errors
from synth.cli.settings import SET_HELP, command_line_overrides, field_default, parse_key_values
from synth.config import GenerateConfig, load_config
from synth.errors import SynthError

if TYPE_CHECKING:
    from synth.runs.manifest import Manifest

# The settings with no option of their own, reached with --set (or --config); every other GenerateConfig field is
# the option of its name, but for RENAMED_OPTIONS (option -> field). tests/unit/test_cli_options.py checks that every
# field has its option or is here, and that every other option of the command is a run option, not a setting.
SET_ONLY_FIELDS = (
    "n_ctx", "n_threads", "api_max_attempts", "request_timeout_s", "general_reviews", "ask_turns", "k_schedule",
    "force_target_from", "max_format_retries", "set_rules", "embedding_dim", "min_item_ratings", "vllm_scheduling",
    "planner", "max_source_reviews",
)
RENAMED_OPTIONS = {
    "vllm_arg": "vllm_engine_args",
    "price_prompt": "price_prompt_per_mtok",
    "price_completion": "price_completion_per_mtok",
    "price_cached_prompt": "price_cached_prompt_per_mtok",
    "max_cost": "max_cost_usd",
}
SETTING_OPTIONS = {  # each option that is a generation setting -> its GenerateConfig field
    **{name: name for name in GenerateConfig.model_fields
       if name not in SET_ONLY_FIELDS and name not in RENAMED_OPTIONS.values()},
    **RENAMED_OPTIONS,
}


def default(field: str) -> str:
    """'[default: VALUE]' of a GenerateConfig field, for a help text."""
    return field_default(GenerateConfig, field)


def generate_settings(config: Path | None, options: Mapping[str, object], pairs: list[str]) -> GenerateConfig:
    """The run's settings: the --config file, the options given on top, then the --set pairs on top of those.
    `options` holds the command's parameters by name (the vllm_arg pairs already parsed)."""
    overrides = command_line_overrides(options, SETTING_OPTIONS, pairs, GenerateConfig)
    return load_config(config, overrides)


def generate(
    ctx: typer.Context,
    n: Optional[int] = typer.Option(None, "--n", help=f"Number of dialogues {default('n')}."),
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Output folder (dialogues.jsonl, manifest.json)."),
    seed: Optional[int] = typer.Option(None, help=f"Run seed {default('seed')}."),
    backend: Optional[str] = typer.Option(
        None,
        help="llamacpp (embedded, default), llamacpp-serial (embedded, one call at a time, as before batching), "
        "openai (any compatible server) or vllm (offline engine, 'vllm' extra).",
    ),
    model: Optional[str] = typer.Option(
        None,
        help="PATH.gguf, hf:REPO/FILE.gguf or packaged:NAME (llamacpp); a model name on the server (openai); "
        "a Hub repo id, a model folder, PATH.gguf or packaged:NAME (vllm).",
    ),
    vllm_arg: Optional[list[str]] = typer.Option(
        None, "--vllm-arg", help="KEY=VALUE passed to vllm.LLM, e.g. tensor_parallel_size=2 (repeatable)."
    ),
    base_url: Optional[str] = typer.Option(None, help="OpenAI-compatible endpoint [env: OPENAI_BASE_URL]."),
    structured: Optional[str] = typer.Option(
        None, help=f"auto, json_schema, json_object or none (openai backend) {default('structured')}."
    ),
    concurrency: Optional[int] = typer.Option(None, help=f"Dialogues in flight at once {default('concurrency')}."),
    mode: Optional[str] = typer.Option(None, help=f"pearl or gorecdial {default('mode')}."),
    source: Optional[str] = typer.Option(
        None, help="demo, movielens+rt (critics' reviews), movielens (users' ratings and tags), or amazon:DIR, "
        "yelp:DIR, goodreads:DIR (a folder of that public review format's files, .gz too) "
        "[default: demo for pearl, movielens for gorecdial]."
    ),
    catalog: Optional[Path] = typer.Option(None, help="Your item catalog (.jsonl/.csv: id,title,year,genres,description)."),
    reviews: Optional[Path] = typer.Option(None, help="Your reviews (.csv/.jsonl/.parquet: user,item,rating,text)."),
    source_format: Optional[str] = typer.Option(
        None, "--format", help="Read --catalog and --reviews in a public review format: amazon (meta_*.jsonl, "
        "*.jsonl), yelp (business.json, review.json) or goodreads (goodreads_books*.json, goodreads_reviews_*.json)."
    ),
    ratings: Optional[Path] = typer.Option(
        None, help="Your ratings instead of reviews (.csv/.jsonl/.parquet: user,item,rating[,tags] with tags '|'-separated)."
    ),
    rating_scale: Optional[str] = typer.Option(
        None, help="Scale of the ratings in --reviews or --ratings, LOW-HIGH [default: 1-10]."
    ),
    movielens: Optional[Path] = typer.Option(None, help="MovieLens zip or folder [default: `synth data fetch movielens-small`]."),
    rt_critics: Optional[Path] = typer.Option(None, help="Rotten Tomatoes critics.csv(.gz) [default: `synth data fetch rt-critics`]."),
    skip_bad_lines: Optional[bool] = typer.Option(None, "--skip-bad-lines", help="Count bad input lines as warnings."),
    item_summaries: Optional[bool] = typer.Option(
        None, "--item-summaries", help="Summarise what reviewers liked/disliked per item with the LLM (cached)."
    ),
    retriever: Optional[str] = typer.Option(
        None, help=f"bm25, dense or hybrid: how candidates are retrieved {default('retriever')}; dense needs the "
        "'dense' extra."
    ),
    embedding_model: Optional[str] = typer.Option(
        None, help=f"sentence-transformers model of dense/hybrid retrieval, hub name or folder {default('embedding_model')}."
    ),
    prompts_dir: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates to use instead."),
    domain: Optional[str] = typer.Option(
        None, help="movies, books, products, restaurants or a profile's YAML file: what the items are and how the "
        "prompts speak of them [default: the source's: books for goodreads, products for amazon, restaurants for yelp, else movies]; with no --source, books plays its own demo catalog."
    ),
    temperature: Optional[float] = typer.Option(None, help=f"Sampling temperature {default('temperature')}."),
    max_tokens: Optional[int] = typer.Option(None, help=f"Token cap per reply {default('max_tokens')}."),
    max_utterances: Optional[int] = typer.Option(None, help="Turn cap after the seed [default: 12 pearl, 20 gorecdial]."),
    strategy: Optional[str] = typer.Option(
        None, help="Who decides each turn's move: human (a plan drawn from people's annotated dialogues), pearl (ask "
        f"once, then recommend every turn) or free (the recommender itself) {default('strategy')}."
    ),
    wording: Optional[str] = typer.Option(
        None, help="Who decides what each turn says: decided (the seeker's state and the catalog decide each turn's "
        "content, the model only words it, verified) or free (the model decides and words each turn at once) "
        f"{default('wording')}."
    ),
    reply_resamples: Optional[int] = typer.Option(
        None, help="Times a reply that copies, repeats itself, speaks in the third person, contradicts the persona or "
        f"names the hidden target is sampled again (0: keep it, defects recorded) {default('reply_resamples')}."
    ),
    target_min_score: Optional[float] = typer.Option(
        None, help=f"Lowest 0-1 score of a target {default('target_min_score')}."
    ),
    allow_repeats: Optional[bool] = typer.Option(
        None, "--allow-repeats", help="Play (user, target) pairs again once all have been played, instead of stopping."
    ),
    think: Optional[bool] = typer.Option(
        None, "--think", help="The recommender writes a one-sentence private rationale before each message (the record's "
        "think, read by the guess_contradiction filter); about 20 more decoded tokens a recommender reply."
    ),
    persona_summaries: Optional[bool] = typer.Option(
        None, "--persona-summaries", help="Condense each seeker's likes and dislikes into a few sentences with the LLM (cached)."
    ),
    plan: bool = typer.Option(False, "--plan", help="Print what the run would play (no model is loaded) and stop."),
    as_json: bool = typer.Option(False, "--json", help="With --plan: one JSON object."),
    coverage_of: Optional[list[str]] = typer.Option(
        None, "--coverage-of", help="With --plan: the share of a reference set's targets the plan covers "
        "(redial-test, inspired-test or a dialogue file; repeatable)."
    ),
    request_cache: Optional[bool] = typer.Option(
        None, "--request-cache/--no-request-cache",
        help=f"Replay finished LLM calls from a SQLite cache {default('request_cache')}.",
    ),
    request_cache_path: Optional[Path] = typer.Option(
        None, help="Request cache file; share one across folders to reuse calls [default: OUT/requests.sqlite]."
    ),
    shard: Optional[str] = typer.Option(
        None, help="I/N: play every N-th game from I (0-based), one of N machines; join with `synth merge`."
    ),
    ray: Optional[str] = typer.Option(
        None, "--ray", help="Run on Ray: auto (the running cluster), local (start one here) or a cluster ADDRESS "
        "('ray' extra). Shards land in OUT/shards/ and are merged into OUT."
    ),
    ray_workers: Optional[int] = typer.Option(
        None, min=1, help="Ray workers, each with its own backend [default: the cluster's CPUs or GPUs]."
    ),
    ray_shards: Optional[int] = typer.Option(
        None, min=1, help="Shards the run is split into [default: 4 per worker; fixed by the first run]."
    ),
    ray_gpus_per_worker: float = typer.Option(0, min=0, help="GPUs each Ray worker holds (1 for an in-process vLLM engine)."),
    rpm: Optional[float] = typer.Option(
        None, "--rpm", help="Requests per minute the openai backend sends at most (a token bucket; the server's "
        "Retry-After and x-ratelimit-* headers are honoured besides)."
    ),
    tpm: Optional[float] = typer.Option(
        None, "--tpm", help="Tokens per minute (prompt + completion) the openai backend sends at most, as --rpm."
    ),
    price_prompt: Optional[float] = typer.Option(None, "--price-prompt", help="USD per million prompt tokens (cost accounting)."),
    price_completion: Optional[float] = typer.Option(
        None, "--price-completion", help="USD per million completion tokens (cost accounting)."
    ),
    price_cached_prompt: Optional[float] = typer.Option(
        None, "--price-cached-prompt", help="USD per million prompt tokens the server reports served from its prefix "
        "cache (hosted APIs bill them at a discount) [default: --price-prompt]."
    ),
    max_cost: Optional[float] = typer.Option(
        None, "--max-cost", help="USD ceiling (needs the prices): no new dialogue starts once the spend so far and the "
        "expected cost of the dialogues in flight and one more would pass it; the same command with a higher "
        "ceiling goes on."
    ),
    max_total_tokens: Optional[int] = typer.Option(
        None, "--max-total-tokens", min=1, help="Token ceiling (prompt + completion), as --max-cost."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Play a few games and estimate tokens, cost and time for --n."),
    dry_run_sample: int = typer.Option(3, help="Games the dry run plays."),
    setting: Optional[list[str]] = typer.Option(
        None, "--set", help="KEY=VALUE: any generation setting, also those without an option here ("
        + ", ".join(SET_ONLY_FIELDS) + "), e.g. k_schedule=[3,2,1] or set_rules.easy_margin=0.6; it wins over "
        "the options. " + SET_HELP,
    ),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML file of generation settings."),
    overwrite: bool = typer.Option(False, help="Replace dialogues already in --out."),
    progress: Optional[bool] = typer.Option(
        None, "--progress/--no-progress", help=f"Show a progress bar on a terminal {default('progress')}."
    ),
) -> None:
    """Generate seeker/recommender dialogues with an LLM (PEARL-style or GoRecDial games)."""
    options = {**ctx.params, "vllm_arg": parse_key_values(vllm_arg, "--vllm-arg") if vllm_arg else None}
    settings = generate_settings(config, options, setting or [])
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops a run as Ctrl-C does: the manifest says so
    with one_line_errors(interrupted=f"interrupted: finished dialogues and the manifest are in {out}"):
        if plan:
            from synth.cli.plan import show_plan

            show_plan(settings, coverage_of or [], as_json)
            return
        if dry_run:
            from synth.estimate import estimate

            figures = asyncio.run(estimate(settings, out, sample=dry_run_sample))
            for key, value in figures.items():
                typer.echo(f"{key:32} {value}")
            return
        if ray is not None:
            from synth.ray_runner import ray_generate

            if settings.max_cost_usd is not None or settings.max_total_tokens is not None:
                raise SynthError("--max-cost and --max-total-tokens are not supported with --ray yet")
            if settings.rpm is not None or settings.tpm is not None:
                raise SynthError("--rpm and --tpm are not supported with --ray yet (each worker would send at the rate)")

            manifest = ray_generate(
                settings, out, address=ray, workers=ray_workers, shards=ray_shards,
                gpus_per_worker=ray_gpus_per_worker, overwrite=overwrite,
            )
        else:
            from synth.runner import generate as run_generate

            manifest = asyncio.run(run_generate(settings, out, overwrite=overwrite))
    report_run(manifest, out, settings)


def report_run(manifest: Manifest, out: Path, settings: GenerateConfig) -> None:
    """The one-line summary of a finished run, and why it stopped early for its budget; a run whose every
    dialogue failed is an error."""
    counts, tokens = manifest.counts, manifest.tokens
    typer.echo(
        f"wrote {counts.written} dialogues to {out / 'dialogues.jsonl'} "
        f"({counts.accepted_target} accepted the target, {counts.wrong_acceptances} ended on a wrong acceptance, "
        f"{counts.failed} failed; "
        f"{tokens.prompt} prompt + {tokens.completion} completion tokens; {manifest.wall_s or 0:.1f} s)"
    )
    if manifest.status == "budget":
        from synth.budget import Budget, Spent

        spent = Spent(counts.written, tokens.prompt, tokens.completion, tokens.prompt_evaluated)
        typer.echo(
            f"stopped for its budget: {Budget(settings).describe(spent)} spent, {counts.written} of {counts.requested} "
            "dialogues written; raise the ceiling and run the same command to go on"
        )
    if counts.written and counts.failed == counts.written:
        raise SynthError("every dialogue failed; see 'errors' in the records")


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM as Ctrl-C: the runner ends the run with finished dialogues kept and an 'interrupted' manifest."""
    raise KeyboardInterrupt
