"""The `synth` command line."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from synth.config import load_config
from synth.errors import SynthError

if TYPE_CHECKING:
    from synth.export.card import CardOptions

app = typer.Typer(
    help="Generate, filter and benchmark synthetic conversational-recommendation dialogues.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what synth does.")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


def fail(message: str) -> typer.Exit:
    """Print a one-line error and leave with exit code 2."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def parse_key_values(pairs: list[str], option: str) -> dict[str, object]:
    """KEY=VALUE strings as a dict, each VALUE read as YAML (numbers, booleans, lists)."""
    import yaml

    parsed: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint=option)
        parsed[key.strip()] = yaml.safe_load(value)
    return parsed


@app.command()
def generate(
    n: Optional[int] = typer.Option(None, "--n", help="Number of dialogues [default: 3]."),
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Output folder (dialogues.jsonl, manifest.json)."),
    seed: Optional[int] = typer.Option(None, help="Run seed [default: 0]."),
    backend: Optional[str] = typer.Option(
        None, help="llamacpp (embedded, default), openai (any compatible server) or vllm (offline engine, 'vllm' extra)."
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
    structured: Optional[str] = typer.Option(None, help="auto, json_schema, json_object or none (openai backend)."),
    concurrency: Optional[int] = typer.Option(None, help="Dialogues in flight at once [default: 1]."),
    mode: Optional[str] = typer.Option(None, help="pearl (default) or gorecdial."),
    source: Optional[str] = typer.Option(
        None, help="demo, movielens+rt or movielens [default: demo for pearl, movielens for gorecdial]."
    ),
    catalog: Optional[Path] = typer.Option(None, help="Your item catalog (.jsonl/.csv: id,title,year,genres,description)."),
    reviews: Optional[Path] = typer.Option(None, help="Your reviews (.csv/.jsonl/.parquet: user,item,rating,text)."),
    rating_scale: Optional[str] = typer.Option(None, help="Scale of the ratings in --reviews, LOW-HIGH [default: 1-10]."),
    movielens: Optional[Path] = typer.Option(None, help="MovieLens zip or folder [default: shared ml-latest-small]."),
    rt_critics: Optional[Path] = typer.Option(None, help="Rotten Tomatoes critics.csv(.gz) [default: shared copy]."),
    skip_bad_lines: Optional[bool] = typer.Option(None, "--skip-bad-lines", help="Count bad input lines as warnings."),
    item_summaries: Optional[bool] = typer.Option(
        None, "--item-summaries", help="Summarise what reviewers liked/disliked per item with the LLM (cached)."
    ),
    retriever: Optional[str] = typer.Option(
        None, help="bm25, dense or hybrid: how candidates are retrieved [default: bm25]; dense needs the 'dense' extra."
    ),
    embedding_model: Optional[str] = typer.Option(
        None, help="sentence-transformers model of dense/hybrid retrieval, hub name or folder [default: all-MiniLM-L6-v2]."
    ),
    prompts_dir: Optional[Path] = typer.Option(None, "--prompts", help="Folder of prompt templates to use instead."),
    temperature: Optional[float] = typer.Option(None, help="Sampling temperature [default: 0]."),
    max_tokens: Optional[int] = typer.Option(None, help="Token cap per reply [default: 160]."),
    max_utterances: Optional[int] = typer.Option(None, help="Turn cap after the seed [default: 12 pearl, 20 gorecdial]."),
    target_min_score: Optional[float] = typer.Option(None, help="Lowest 0-1 score of a target [default: 0.75]."),
    request_cache: Optional[bool] = typer.Option(
        None, "--request-cache/--no-request-cache", help="Replay finished LLM calls from a SQLite cache [default: on]."
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
    ray_workers: Optional[int] = typer.Option(None, min=1, help="Ray workers, each with its own backend [default: the cluster's CPUs or GPUs]."),
    ray_shards: Optional[int] = typer.Option(None, min=1, help="Shards the run is split into [default: 4 per worker; fixed by the first run]."),
    ray_gpus_per_worker: float = typer.Option(0, min=0, help="GPUs each Ray worker holds (1 for an in-process vLLM engine)."),
    price_prompt: Optional[float] = typer.Option(None, "--price-prompt", help="USD per million prompt tokens (cost accounting)."),
    price_completion: Optional[float] = typer.Option(
        None, "--price-completion", help="USD per million completion tokens (cost accounting)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Play a few games and estimate tokens, cost and time for --n."),
    dry_run_sample: int = typer.Option(3, help="Games the dry run plays."),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML file of generation settings."),
    overwrite: bool = typer.Option(False, help="Replace dialogues already in --out."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Generate seeker/recommender dialogues with an LLM (PEARL-style or GoRecDial games)."""
    from synth.runner import generate as run_generate

    overrides = {
        "n": n,
        "seed": seed,
        "backend": backend,
        "model": model,
        "base_url": base_url,
        "structured": structured,
        "concurrency": concurrency,
        "mode": mode,
        "source": source,
        "catalog": catalog,
        "reviews": reviews,
        "rating_scale": rating_scale,
        "movielens": movielens,
        "rt_critics": rt_critics,
        "skip_bad_lines": skip_bad_lines,
        "item_summaries": item_summaries,
        "retriever": retriever,
        "embedding_model": embedding_model,
        "prompts_dir": prompts_dir,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "max_utterances": max_utterances,
        "target_min_score": target_min_score,
        "progress": progress,
        "request_cache": request_cache,
        "request_cache_path": request_cache_path,
        "shard": shard,
        "price_prompt_per_mtok": price_prompt,
        "price_completion_per_mtok": price_completion,
        "vllm_engine_args": parse_key_values(vllm_arg, "--vllm-arg") if vllm_arg else None,
    }
    try:
        settings = load_config(config, overrides)
        if dry_run:
            from synth.estimate import estimate

            figures = asyncio.run(estimate(settings, out, sample=dry_run_sample))
            for key, value in figures.items():
                typer.echo(f"{key:32} {value}")
            return
        if ray is not None:
            from synth.ray_runner import ray_generate

            manifest = ray_generate(
                settings, out, address=ray, workers=ray_workers, shards=ray_shards,
                gpus_per_worker=ray_gpus_per_worker, overwrite=overwrite,
            )
        else:
            manifest = asyncio.run(run_generate(settings, out, overwrite=overwrite))
    except SynthError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished dialogues and the manifest are in {out}", err=True)
        raise typer.Exit(code=130) from None
    counts, tokens = manifest["counts"], manifest["tokens"]
    typer.echo(
        f"wrote {counts['written']} dialogues to {out / 'dialogues.jsonl'} "
        f"({counts['accepted_target']} accepted the target, {counts['failed']} failed; "
        f"{tokens['prompt']} prompt + {tokens['completion']} completion tokens; {manifest['wall_s']:.1f} s)"
    )
    if counts["written"] and counts["failed"] == counts["written"]:
        raise fail("every dialogue failed; see 'errors' in the records")


def dotted(pairs: dict[str, object]) -> dict[str, object]:
    """{'form.max_turns': 30} -> {'form': {'max_turns': 30}}."""
    nested: dict[str, object] = {}
    for key, value in pairs.items():
        *parents, leaf = key.split(".")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[leaf] = value
    return nested


@app.command("filter")
def filter_command(
    source: Path = typer.Argument(..., help="A run folder (its dialogues.jsonl), a synth .jsonl or a PEARL-format .json/.jsonl."),
    out: Path = typer.Option(..., "--out", help="Output folder: dialogues.jsonl (kept), dropped.jsonl, filter_report.json."),
    input_format: str = typer.Option("auto", "--format", help="auto, synth or pearl."),
    filters: Optional[str] = typer.Option(
        None,
        help="Comma-separated filters or groups: basic, preference, all, repetition, target_leak, wrong_acceptance, "
        "recommender_faults, form, persona_contradiction, guess_contradiction, satisfaction (IARD-trained predictor, "
        "opt-in) [default: basic].",
    ),
    judge: Optional[str] = typer.Option(None, help="Preference filters' judge: llm (default) or nli (a cross-encoder)."),
    nli_model: Optional[str] = typer.Option(
        None, help="NLI cross-encoder, hub name or folder [default: cross-encoder/nli-deberta-v3-xsmall]."
    ),
    nli_threshold: Optional[float] = typer.Option(None, help="Contradiction probability that drops a dialogue [default: 0.8]."),
    judge_backend: Optional[str] = typer.Option(None, help="LLM judge backend: llamacpp (embedded, default), openai or vllm."),
    judge_model: Optional[str] = typer.Option(None, help="LLM judge model (as for `synth generate --model`)."),
    judge_base_url: Optional[str] = typer.Option(None, help="LLM judge endpoint (openai backend) [env: OPENAI_BASE_URL]."),
    judge_concurrency: Optional[int] = typer.Option(None, help="LLM judge calls in flight at once [default: 1]."),
    preference_on: Optional[str] = typer.Option(
        None, help="kept: judge only what the basic filters kept (default); all: judge every dialogue (full overlaps)."
    ),
    setting: Optional[list[str]] = typer.Option(
        None, "--set", help="FILTER.OPTION=VALUE, e.g. form.max_turns=30 or repetition.similarity=85 (repeatable)."
    ),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML file of filter settings."),
    overwrite: bool = typer.Option(False, help="Replace the outputs already in --out."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of tables."),
    ray: Optional[str] = typer.Option(
        None, "--ray", help="Run the basic and satisfaction filters on Ray Data: auto, local or a cluster ADDRESS "
        "('ray' extra)."
    ),
    ray_workers: Optional[int] = typer.Option(None, min=1, help="Ray Data actors [default: the cluster's CPUs]."),
) -> None:
    """Drop bad dialogues (basic and preference-based filters), each drop with its filter, reason and evidence."""
    import json

    from synth.filters.config import FilterConfig
    from synth.filters.pipeline import filter_run
    from synth.filters.report import print_report

    if input_format not in ("auto", "synth", "pearl"):
        raise typer.BadParameter("expected auto, synth or pearl", param_hint="--format")
    llm = {"backend": judge_backend, "model": judge_model, "base_url": judge_base_url, "concurrency": judge_concurrency}
    overrides = {
        "filters": [name.strip() for name in filters.split(",") if name.strip()] if filters else None,
        "judge": judge,
        "nli_model": nli_model,
        "nli_threshold": nli_threshold,
        "preference_on": preference_on,
        "llm": {k: v for k, v in llm.items() if v is not None} or None,
        **dotted(parse_key_values(setting or [], "--set")),
    }
    try:
        settings = load_config(config, overrides, FilterConfig)
        report = asyncio.run(
            filter_run(source, out, settings, format=input_format, overwrite=overwrite, progress=progress,  # type: ignore[arg-type]
                       ray_address=ray, ray_workers=ray_workers)
        )
    except SynthError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
    summary = f"kept {report['kept']} of {report['dialogues']} dialogues in {out}; reasons in {out / 'dropped.jsonl'}"
    typer.echo(summary, err=as_json)


@app.command()
def stats(
    paths: list[str] = typer.Argument(
        ..., help="Datasets: a run folder, a synth .jsonl, or a ReDial / INSPIRED / PEARL / GoRecDial file; "
        "LABEL=PATH names a column."
    ),
    input_format: Optional[str] = typer.Option(
        None, "--format", help="synth, pearl, redial, inspired, gorecdial or iard [default: detected per path]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: one object, or a list of them for several paths."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write PNG plots into this folder."),
    sample: Optional[int] = typer.Option(
        None, min=2, help="Measure a seeded sample of this many dialogues per dataset (Dist-n falls as a corpus "
        "grows: compare datasets at the same size)."
    ),
    seed: int = typer.Option(0, help="Seed of the dialogue and similarity samples."),
    similarity_model: str = typer.Option(
        "sentence-transformers/all-MiniLM-L6-v2", help="Sentence embedding model for inter-dialogue similarity."
    ),
    similarity_sample: int = typer.Option(500, min=2, help="Dialogues embedded for the similarity (all their pairs)."),
    no_similarity: bool = typer.Option(False, "--no-similarity", help="Skip the inter-dialogue similarity."),
    acts: bool = typer.Option(
        False, "--acts", help="Add the dialogue acts (IARD seeker intents and recommender actions), act sequences "
        "and predicted satisfaction ('bench' and 'dense' extras)."
    ),
    acts_model: Optional[Path] = typer.Option(
        None, help="Folder of the act model [default: ~/.cache/synth/acts, trained from IARD on first use]."
    ),
) -> None:
    """Dataset statistics (DESIGN.md definitions) of generated runs and human datasets, side by side."""
    import json

    from rich.console import Console

    from synth.benchmarks.acts.profile import collect_acts
    from synth.benchmarks.acts.report import acts_plot, acts_tables
    from synth.benchmarks.stats.plots import write_plots
    from synth.benchmarks.stats.run import collect_stats, open_corpora, similarity_encoder
    from synth.benchmarks.stats.table import stats_table
    from synth.data.dialogue_formats import FORMATS

    if input_format is not None and input_format not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}", param_hint="--format")
    try:
        encoder = similarity_encoder(None if no_similarity else similarity_model)
        corpora = open_corpora(paths, input_format, sample=sample, seed=seed)
        all_stats, profiles = collect_stats(corpora, seed=seed, encoder=encoder, similarity_sample=similarity_sample)
        act_profiles = collect_acts(corpora, model_dir=acts_model) if acts else []
    except SynthError as exc:
        raise fail(str(exc)) from None
    if as_json:
        dumped = [s.model_dump(mode="json") for s in all_stats]
        for entry, found in zip(dumped, act_profiles):
            entry["acts"] = found.model_dump(mode="json")
        typer.echo(json.dumps(dumped[0] if len(dumped) == 1 else dumped, indent=2, ensure_ascii=False))
    else:
        console = Console(width=max(Console().width, 110))
        console.print(stats_table(all_stats))
        for table in acts_tables(act_profiles) if act_profiles else []:
            console.print(table)
    if plot is not None:
        written = write_plots(plot, all_stats, profiles)
        written += [acts_plot(plot / "acts.png", act_profiles)] if act_profiles else []
        for path in written:
            typer.echo(f"wrote {path}", err=as_json)


@app.command()
def report(
    run: Path = typer.Argument(..., help="A run folder: `synth generate`'s, or `synth filter`'s --out (then drops too)."),
    compare: Optional[list[str]] = typer.Option(
        None, "--compare", help="A dataset shown beside the run, LABEL=PATH or PATH: a run, or a ReDial / INSPIRED / "
        "PEARL / GoRecDial file (repeatable)."
    ),
    out: Optional[Path] = typer.Option(None, "--out", help="The HTML file [default: RUN/report.html]."),
    acts: Optional[bool] = typer.Option(
        None, "--acts/--no-acts", help="Dialogue acts ('bench' and 'dense' extras) [default: when `synth acts train` "
        "has saved a model]."
    ),
    acts_model: Optional[Path] = typer.Option(None, help="Folder of the act model [default: ~/.cache/synth/acts]."),
    max_dialogues: int = typer.Option(1000, min=1, help="Dialogues in the browser (a seeded sample beyond that)."),
    sample: Optional[int] = typer.Option(
        None, min=2, help="Measure a seeded sample of this many dialogues per dataset (the acts tag about 280 "
        "utterances/s on 2 cores) [default: all]."
    ),
    seed: int = typer.Option(0, help="Seed of the samples (browser, measures, similarity)."),
    similarity_model: str = typer.Option(
        "sentence-transformers/all-MiniLM-L6-v2", help="Sentence embedding model for inter-dialogue similarity."
    ),
    no_similarity: bool = typer.Option(False, "--no-similarity", help="Skip the inter-dialogue similarity."),
) -> None:
    """One self-contained HTML page: the run's model, prompts and cost, its statistics beside other datasets,
    the filter's drops with their reasons, dialogue acts, and a dialogue browser."""
    from synth.report.build import ReportOptions, write_report

    options = ReportOptions(
        compare=compare or [],
        acts=acts,
        acts_model=acts_model,
        max_dialogues=max_dialogues,
        sample=sample,
        seed=seed,
        similarity_model=None if no_similarity else similarity_model,
    )
    try:
        summary = write_report(run, out or run / "report.html", options)
    except SynthError as exc:
        raise fail(str(exc)) from None
    shown = f"{summary.dialogues_shown:,} of {summary.dialogues_total:,}"
    typer.echo(f"wrote {summary.path} ({summary.bytes / 1e6:.1f} MB): {shown} dialogues in the browser"
               + (f", compared with {', '.join(summary.compared)}" if summary.compared else "")
               + ("" if summary.acts else "; no dialogue acts (--acts adds them)"))


acts_app = typer.Typer(help="Dialogue acts: the IARD-trained act tagger and satisfaction predictor.", no_args_is_help=True)
app.add_typer(acts_app, name="acts")


@acts_app.command("train")
def acts_train(
    iard: Optional[Path] = typer.Option(
        None, help="IARD's umap2020_IARD_Cai.json [default: $SYNTH_SHARED_DATA/iard/umap2020_IARD_Cai.json]."
    ),
    out: Optional[Path] = typer.Option(None, "--out", help="Model folder [default: ~/.cache/synth/acts]."),
    folds: int = typer.Option(5, min=2, help="Folds of the dialogue-grouped cross-validation."),
    seed: int = typer.Option(0, help="Seed of the folds and the classifiers."),
    embedding_model: str = typer.Option("sentence-transformers/all-MiniLM-L6-v2", help="Sentence embedding model."),
    as_json: bool = typer.Option(False, "--json", help="Print the cross-validated scores as JSON."),
) -> None:
    """Train the act taggers and the satisfaction predictor on IARD, cross-validate them by dialogue, and save
    them (with evaluation.json and evaluation.md) for `synth stats --acts` and `synth filter`."""
    from rich.console import Console

    from synth.benchmarks.acts.model import default_iard_path, default_model_dir, load_encoder, train_act_model
    from synth.benchmarks.acts.report import evaluation_markdown, evaluation_tables

    folder = out or default_model_dir()
    try:
        source = iard or default_iard_path()
        model = train_act_model(source, load_encoder(embedding_model), folds=folds, seed=seed)
        path = model.save(folder)
    except SynthError as exc:
        raise fail(str(exc)) from None
    (folder / "evaluation.md").write_text(evaluation_markdown(model.evaluation) + "\n")
    if as_json:
        typer.echo(model.evaluation.model_dump_json(indent=2))
    else:
        console = Console(width=max(Console().width, 100))
        for table in evaluation_tables(model.evaluation):
            console.print(table)
    typer.echo(f"saved {path} ({model.evaluation.seconds:.0f} s)", err=as_json)


@app.command()
def benchmark(
    train: list[str] = typer.Option(
        ..., "--train", help="A training set: a run folder, a synth .jsonl, a ReDial / INSPIRED / PEARL file, or "
        "redial-train, redial-test, inspired-dev, inspired-test; LABEL=PATH names it, a label given twice pools "
        "both (repeatable)."
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
        "llm-rec, tfidf, dense-ranker, seq2seq, llm-response, or the groups rec, response, llm, default (all but "
        "the LLM), all."
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
    llm_cases: int = typer.Option(50, min=1, help="Cases per test set and task for the LLM baselines (seeded)."),
    seed: int = typer.Option(0, help="Seed of training and of the case samples."),
    embedding_model: Optional[str] = typer.Option(None, help="Sentence embedding model [default: all-MiniLM-L6-v2]."),
    backend: Optional[str] = typer.Option(None, help="LLM baselines' backend: llamacpp (default), openai or vllm."),
    model: Optional[str] = typer.Option(None, help="LLM baselines' model (as for `synth generate --model`)."),
    base_url: Optional[str] = typer.Option(None, help="LLM endpoint (openai backend) [env: OPENAI_BASE_URL]."),
    concurrency: Optional[int] = typer.Option(None, help="LLM calls in flight at once [default: 1]."),
    cache_dir: Path = typer.Option(
        Path("~/.cache/synth/benchmarks"), help="Fitted models and LLM answers, reused when nothing changed."
    ),
    refit: bool = typer.Option(False, "--refit", help="Train again even when a fitted model is cached."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
    folds: int = typer.Option(5, min=2, help="gorecdial: folds when a test set is the training set."),
    epochs: int = typer.Option(40, min=1, help="gorecdial: supervised epochs of each expert variant."),
    botplay_updates: int = typer.Option(150, min=0, help="gorecdial: bot-play updates (8 games each)."),
    llm_games: int = typer.Option(
        10, min=0, help="gorecdial: held-out games each expert plays against the LLM seeker (seeded); 0: none."
    ),
) -> None:
    """Baselines trained on each --train set and scored on each --test set. crs: recommendation (Recall@k,
    MRR, NDCG) and response generation (Dist-n, BLEU, ROUGE, F1). gorecdial: the expert's Turn@k, Chat@k,
    decision accuracy, F1, BLEU, and Goal, Score, Turn2Goal in games against a retrieval and an LLM seeker."""
    from synth.config import BackendSettings
    from synth.data.dialogue_formats import FORMATS

    if input_format is not None and input_format not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}", param_hint="--format")
    if suite not in ("crs", "gorecdial"):
        raise typer.BadParameter("expected crs or gorecdial", param_hint="--suite")
    llm = {"backend": backend, "model": model, "base_url": base_url, "concurrency": concurrency}
    llm_settings = BackendSettings(**{k: v for k, v in llm.items() if v is not None})
    if suite == "gorecdial":
        from synth.benchmarks.gorecdial import report as gorecdial_report
        from synth.benchmarks.gorecdial.botplay import BotPlayConfig
        from synth.benchmarks.gorecdial.expert import ExpertConfig
        from synth.benchmarks.gorecdial.run import GoRecDialSettings, run_gorecdial

        try:
            results = run_gorecdial(GoRecDialSettings(
                train=train, test=test, folds=folds, seed=seed, expert=ExpertConfig(epochs=epochs),
                botplay=BotPlayConfig(updates=botplay_updates), llm_games=llm_games, llm=llm_settings,
                embedding_model=embedding_model, progress=progress, format=input_format,
            ))
        except SynthError as exc:
            raise fail(str(exc)) from None
        write_results(out, results, gorecdial_report)
        return

    from synth.benchmarks.crs import report as crs_report
    from synth.benchmarks.crs.registry import resolve_models
    from synth.benchmarks.crs.run import BenchmarkSettings, run_benchmark

    try:
        settings = BenchmarkSettings(
            train=train, test=test, models=resolve_models(models), exclude_mentioned=exclude_mentioned,
            crslab_compat=crslab_compat, max_cases=max_cases, llm_cases=llm_cases, seed=seed,
            embedding_model=embedding_model, llm=llm_settings,
            cache_dir=cache_dir.expanduser(), refit=refit, progress=progress, format=input_format,
        )
        results = run_benchmark(settings)
    except SynthError as exc:
        raise fail(str(exc)) from None
    write_results(out, results, crs_report)


def write_results(out: Path, results: dict[str, Any], report: Any) -> None:
    """results.json, the report's results.md and plots in `out`, and its tables on the console."""
    import json

    from rich.console import Console

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    (out / "results.md").write_text(report.markdown(results))
    console = Console(width=max(Console().width, 200))  # the response table has up to 17 columns
    for table in report.console_tables(results):
        console.print(table)
    for path in [out / "results.json", out / "results.md", *report.plot(results, out)]:
        typer.echo(f"wrote {path}")


def card_options(pretty_name: str | None, license: str | None, split_seed: int, no_similarity: bool) -> CardOptions:
    """Dataset card settings; the statistics' similarity uses the default embedding model when installed."""
    from synth.benchmarks.stats.run import similarity_encoder
    from synth.export.card import CardOptions
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL

    encoder = similarity_encoder(None if no_similarity else DEFAULT_EMBEDDING_MODEL)
    return CardOptions(pretty_name=pretty_name, license=license, split_seed=split_seed, encoder=encoder)


SPLITS_HELP = "Splits by user as NAME=SHARE,... [default: train=0.8,validation=0.1,test=0.1]."
NO_SIMILARITY_HELP = "Leave the similarity out of the card's statistics."


@app.command()
def export(
    run: Path = typer.Argument(..., help="A run folder (or a filtered one), or its dialogues .jsonl."),
    out: Path = typer.Argument(..., help="Output folder."),
    to: str = typer.Option(
        ...,
        "--to",
        help="pearl (dialogues.json), redial (dialogues.jsonl + movies_with_mentions.csv) "
        "or hf (a DatasetDict saved with save_to_disk, and its README.md card).",
    ),
    splits: str = typer.Option("train=0.8,validation=0.1,test=0.1", help=SPLITS_HELP),
    split_seed: int = typer.Option(0, help="Seed of the split by user."),
    pretty_name: Optional[str] = typer.Option(None, help="The card's pretty_name [default: from the run folder]."),
    license: Optional[str] = typer.Option(None, help="The card's license id [default: from the data source]."),
    no_similarity: bool = typer.Option(False, "--no-similarity", help=NO_SIMILARITY_HELP),
    overwrite: bool = typer.Option(
        False, help="Replace an earlier export in OUT (a README.md card is kept and merged)."
    ),
) -> None:
    """Write a run as PEARL-style json, ReDial jsonl or a Hugging Face DatasetDict with a dataset card."""
    from synth.export.exporters import export_run
    from synth.export.splits import parse_splits

    try:
        options = card_options(pretty_name, license, split_seed, no_similarity or to != "hf")
        files = export_run(run, to, out, shares=parse_splits(splits), options=options, overwrite=overwrite)
    except SynthError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {len(files)} files to {out}")


@app.command()
def publish(
    run: Path = typer.Argument(..., help="A run folder (or a filtered one), or its dialogues .jsonl."),
    repo_id: str = typer.Option(..., "--repo-id", help="OWNER/NAME of the dataset repository on the Hub."),
    private: bool = typer.Option(False, "--private", help="Create the repository private."),
    dry_run: Optional[Path] = typer.Option(
        None, "--dry-run", help="Write what would be uploaded (data/*.parquet, README.md) into this folder instead."
    ),
    splits: str = typer.Option("train=0.8,validation=0.1,test=0.1", help=SPLITS_HELP),
    split_seed: int = typer.Option(0, help="Seed of the split by user."),
    pretty_name: Optional[str] = typer.Option(None, help="The card's pretty_name [default: from the run folder]."),
    license: Optional[str] = typer.Option(None, help="The card's license id [default: from the data source]."),
    no_similarity: bool = typer.Option(False, "--no-similarity", help=NO_SIMILARITY_HELP),
    overwrite: bool = typer.Option(False, help="Replace an earlier dry run's files in the --dry-run folder."),
) -> None:
    """Push the run's DatasetDict and dataset card to the Hugging Face Hub (token from HF_TOKEN, never printed)."""
    from synth.export.exporters import publish_run
    from synth.export.splits import parse_splits

    try:
        options = card_options(pretty_name, license, split_seed, no_similarity)
        published = publish_run(
            run, repo_id, private=private, dry_run=dry_run, shares=parse_splits(splits), options=options,
            overwrite=overwrite,
        )
    except SynthError as exc:
        raise fail(str(exc)) from None
    if dry_run is not None:
        typer.echo(f"dry run: wrote {len(published.files)} files for {repo_id} to {dry_run}; nothing was uploaded")
        for path in published.files:
            typer.echo(f"  {path.relative_to(dry_run)}")
    else:
        typer.echo(f"published {repo_id}: {published.url}")


@app.command()
def merge(
    shards: list[Path] = typer.Argument(..., help="The output folders of every shard of one run."),
    out: Path = typer.Option(..., "--out", help="An empty folder for the merged run."),
) -> None:
    """Join the shard folders of one run (`synth generate --shard I/N`), checking that no dialogue is
    missing or doubled."""
    from synth.shards import merge_runs

    try:
        manifest = merge_runs(shards, out)
    except SynthError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"merged {len(shards)} shards: {manifest['counts']['written']} dialogues in {out / 'dialogues.jsonl'}")
