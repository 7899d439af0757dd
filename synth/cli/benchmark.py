"""`synth benchmark`: CRS baselines, or the GoRecDial expert, trained and scored on datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from synth.benchmarks.crs.lm.settings import FULL_LEARNING_RATE, LORA_LEARNING_RATE, LmSettings
from synth.cli.console import progress_option, table_console
from synth.cli.settings import EMBEDDING_MODEL_DEFAULT_HELP, check_format, field_default, option_overrides
from synth.config import BackendConfig, load_config
from synth.data.paths import cache_root

# Each option that is an LLM baseline setting -> its BackendConfig field.
LLM_OPTIONS = {"backend": "backend", "model": "model", "base_url": "base_url", "concurrency": "concurrency"}
SUITES = ("crs", "gorecdial")
BENCHMARK_CACHE_HELP = "[default: $SYNTH_CACHE_DIR/benchmarks, else ~/.cache/synth/benchmarks]"


def benchmark(
    ctx: typer.Context,
    train: list[str] = typer.Option(
        ..., "--train", help="A training set: a run folder, a synth .jsonl, a ReDial / INSPIRED / PEARL file, or "
        "redial-train, redial-test, inspired-dev, inspired-test; LABEL=PATH names it, A+B joins sets "
        "(both=redial-train+runs/x), a label given twice pools both, PATH@N takes a seeded N of its dialogues "
        "(scarce=redial-train@100+runs/x; 100 of them are among its 300) (repeatable)."
    ),
    test: list[str] = typer.Option(
        ..., "--test", help="A test set, as for --train (repeatable); with --suite gorecdial, the training set "
        "itself means k-fold cross-validation over its games."
    ),
    suite: str = typer.Option(
        "crs", help="crs: recommendation and response baselines; gorecdial: the GoRecDial expert (supervised "
        "multi-aspect and bot-play) on GoRecDial games."
    ),
    models: list[str] = typer.Option(
        ["default"], "--models", help="Comma-separated or repeated: popularity, cooccurrence, bm25, dense, neural, "
        "llm-rec, tfidf, dense-ranker, seq2seq, llm-response, lm-crs, lm-crs-zero-shot, or the groups rec, "
        "response, llm, lm, default (all but the LLM and LM ones), all."
    ),
    out: Path = typer.Option(Path("benchmark_results"), "--out", help="Folder for results.json, results.md and plots."),
    input_format: Optional[str] = typer.Option(None, "--format", help="Format of every dataset [default: detected]."),
    exclude_mentioned: bool = typer.Option(
        False, "--exclude-mentioned", help="Items mentioned earlier in the dialogue are neither targets nor ranked."
    ),
    crslab_compat: bool = typer.Option(
        False, "--crslab-compat", help="Also report CRSLab's character-n-gram 'dist@n' (labelled as such)."
    ),
    max_cases: Optional[int] = typer.Option(None, min=1, help="A seeded sample of cases per test set and task."),
    train_size: Optional[int] = typer.Option(
        None, min=1, help="crs: each training set a seeded sample of this many dialogues (compare data per dialogue)."
    ),
    planted: bool = typer.Option(
        False, "--planted", help="crs: check the instrument on the one --train set: trained on a seeded half of it "
        "against both halves (a planted gain) and against the half plus the other half with its recommender turns "
        "shuffled across dialogues (nothing to gain); the smallest gain each baseline can see."
    ),
    llm_cases: int = typer.Option(
        50, min=1, help="Cases per test set and task for the LLM and lm-crs baselines (seeded)."
    ),
    seed: int = typer.Option(0, help="Seed of training and of the case samples."),
    embedding_model: Optional[str] = typer.Option(None, help=f"Sentence embedding model {EMBEDDING_MODEL_DEFAULT_HELP}."),
    backend: Optional[str] = typer.Option(
        None, help=f"LLM baselines' backend: llamacpp, openai or vllm {field_default(BackendConfig, 'backend')}."
    ),
    model: Optional[str] = typer.Option(None, help="LLM baselines' model (as for `synth generate --model`)."),
    base_url: Optional[str] = typer.Option(None, help="LLM endpoint (openai backend) [env: OPENAI_BASE_URL]."),
    concurrency: Optional[int] = typer.Option(
        None, help=f"LLM calls in flight at once {field_default(BackendConfig, 'concurrency')}."
    ),
    lm_model: Optional[str] = typer.Option(
        LmSettings.model, help="lm-crs: a Hugging Face causal LM, a folder or a Hub id (offline: from the Hugging "
        "Face cache) [default: the packaged SmolLM2-135M-Instruct, converted from its GGUF once]."
    ),
    lm_steps: int = typer.Option(LmSettings.steps, min=1, help="lm-crs: training steps."),
    lm_batch_size: int = typer.Option(LmSettings.batch_size, min=1, help="lm-crs: training examples per step."),
    lm_max_length: int = typer.Option(
        LmSettings.max_length, min=32, help="lm-crs: tokens of a context and its response (the latest utterances "
        "that fit)."
    ),
    lm_lora_r: int = typer.Option(LmSettings.lora_r, min=1, help="lm-crs: rank of the LoRA adapter."),
    lm_full_finetune: bool = typer.Option(
        LmSettings.full_finetune, "--lm-full-finetune", help="lm-crs: train every weight instead of a LoRA adapter."
    ),
    lm_learning_rate: Optional[float] = typer.Option(
        LmSettings.learning_rate, min=0.0, help=f"lm-crs: AdamW's peak learning rate [default: {LORA_LEARNING_RATE:g} "
        f"with LoRA, {FULL_LEARNING_RATE:g} with --lm-full-finetune]."
    ),
    cache_dir: Optional[Path] = typer.Option(
        None, help=f"Fitted models and LLM answers, reused when nothing changed {BENCHMARK_CACHE_HELP}."
    ),
    refit: bool = typer.Option(False, "--refit", help="Train again even when a fitted model is cached."),
    progress: bool = progress_option(),
    folds: int = typer.Option(5, min=2, help="gorecdial: folds when the training set holds a test set's games."),
    epochs: int = typer.Option(40, min=1, help="gorecdial: supervised epochs of each expert variant."),
    botplay_updates: int = typer.Option(150, min=0, help="gorecdial: bot-play updates (8 games each)."),
    movie_prior: bool = typer.Option(
        True, "--movie-prior/--no-movie-prior",
        help="gorecdial: the expert's PREDICT adds the candidate prior's score of each candidate, cross-fitted on the "
        "training games (--no-movie-prior: the paper's dot product only).",
    ),
    dialogue_cosine: bool = typer.Option(
        True, "--dialogue-cosine/--no-dialogue-cosine",
        help="gorecdial: the expert's PREDICT adds the sentence encoder's cosine of the dialogue so far and each "
        "candidate (the dense baseline's score), its weight fitted with the others on held-out training games.",
    ),
    llm_games: int = typer.Option(
        10, min=0, help="gorecdial: held-out games each expert plays against the LLM seeker (seeded); 0: none."
    ),
    game_utterances: int = typer.Option(
        20, min=2, help="gorecdial: utterances a game may run to after the opening (the paper's 20)."
    ),
) -> None:
    """Baselines trained on each --train set and scored on each --test set. crs: recommendation (Recall@k,
    MRR, NDCG) and response generation (Dist-n, BLEU, ROUGE, F1). gorecdial: the expert's Turn@k, Chat@k,
    decision accuracy, F1, BLEU, and Goal, Score, Turn2Goal in games against a retrieval and an LLM seeker."""
    check_format(input_format)
    if suite not in SUITES:
        raise typer.BadParameter("expected crs or gorecdial", param_hint="--suite")
    llm_settings = load_config(None, option_overrides(ctx.params, LLM_OPTIONS), BackendConfig)
    if suite == "gorecdial":
        from synth.benchmarks.gorecdial import results as gorecdial_results
        from synth.benchmarks.gorecdial.botplay import BotPlayConfig
        from synth.benchmarks.gorecdial.expert import ExpertConfig
        from synth.benchmarks.gorecdial.run import GoRecDialOptions, run_gorecdial

        results = run_gorecdial(GoRecDialOptions(
            train=train, test=test, folds=folds, seed=seed, expert=ExpertConfig(
                epochs=epochs, movie_prior=movie_prior, dialogue_cosine=dialogue_cosine),
            botplay=BotPlayConfig(updates=botplay_updates), llm_games=llm_games, game_utterances=game_utterances,
            llm=llm_settings,
            embedding_model=embedding_model, progress=progress, format=input_format,
        ), console=Console(stderr=True))
        write_results(out, results, gorecdial_results)
        return

    from synth.benchmarks.crs import results as crs_results
    from synth.benchmarks.crs.registry import resolve_models
    from synth.benchmarks.crs.run import BenchmarkOptions, run_benchmark

    settings = BenchmarkOptions(
        train=train, test=test, models=resolve_models(models), exclude_mentioned=exclude_mentioned,
        crslab_compat=crslab_compat, max_cases=max_cases, train_size=train_size, planted=planted, llm_cases=llm_cases,
        seed=seed,
        embedding_model=embedding_model, llm=llm_settings,
        lm=LmSettings(lm_model, lm_steps, lm_batch_size, lm_max_length, lm_lora_r, lm_full_finetune, lm_learning_rate),
        cache_dir=benchmark_cache(cache_dir), refit=refit, progress=progress, format=input_format,
    )
    write_results(out, run_benchmark(settings, console=Console(stderr=True)), crs_results)


def benchmark_cache(given: Path | None) -> Path:
    """The folder of fitted models and LLM answers: `given`, else benchmarks/ under synth's cache root
    ($SYNTH_CACHE_DIR, else ~/.cache/synth)."""
    return given.expanduser() if given is not None else cache_root() / "benchmarks"


def write_results(out: Path, results: dict[str, Any], suite_results: Any) -> None:
    """results.json, and the suite's results.md, plots and console tables (`suite_results`: its results module)."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    (out / "results.md").write_text(suite_results.markdown(results))
    console = table_console(200)  # the response table has up to 17 columns
    for table in suite_results.console_tables(results):
        console.print(table)
    for path in [out / "results.json", out / "results.md", *suite_results.plot(results, out)]:
        typer.echo(f"wrote {path}")
