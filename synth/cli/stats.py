"""`synth stats`: dataset statistics of generated runs and human datasets, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from synth.cli.console import progress_option, table_console, working
from synth.cli.settings import EMBEDDING_MODEL_DEFAULT_HELP, check_format

SIMILARITY_MODEL_HELP = f"Sentence embedding model for inter-dialogue similarity {EMBEDDING_MODEL_DEFAULT_HELP}."
PER_MESSAGE_HELP = ("Count each chat message as an utterance; by default a speaker's consecutive messages are one "
                    "turn (ReDial and INSPIRED split turns into messages; synth's turns are single messages).")
FIDELITY_RESAMPLES_HELP = "Bootstrap resamples of the fidelity's 95% intervals (with --acts)."


def stats(
    paths: list[str] = typer.Argument(
        ..., help="Datasets: a run folder, a synth .jsonl, a ReDial / INSPIRED / PEARL / GoRecDial file, or a "
        "shared set by name (redial-test, redial-train, inspired-test, inspired-dev); LABEL=PATH names a column."
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
    similarity_model: Optional[str] = typer.Option(None, help=SIMILARITY_MODEL_HELP),
    similarity_sample: int = typer.Option(500, min=2, help="Dialogues embedded for the similarity (all their pairs)."),
    no_similarity: bool = typer.Option(False, "--no-similarity", help="Skip the inter-dialogue similarity."),
    self_bleu_sample: int = typer.Option(
        200, min=2, help="Dialogues per dataset for self-BLEU (each against the others; fewer when a compared "
        "dataset is smaller)."
    ),
    acts: bool = typer.Option(
        False, "--acts", help="Add the dialogue acts (IARD seeker intents and recommender actions), act sequences "
        "and predicted satisfaction ('bench' and 'dense' extras)."
    ),
    acts_model: Optional[Path] = typer.Option(
        None, help="Folder of the act model [default: ~/.cache/synth/acts, trained from IARD on first use]."
    ),
    per_message: bool = typer.Option(False, "--per-message", help=PER_MESSAGE_HELP),
    fidelity_resamples: int = typer.Option(1000, min=10, help=FIDELITY_RESAMPLES_HELP),
    progress: bool = progress_option(),
) -> None:
    """Dataset statistics of generated runs and human datasets, side by side (definitions: see
    docs/statistics.md). With --acts and several datasets, each one after the first gets its act fidelity to
    the first (the reference)."""
    import json

    from synth.analysis.acts.profile import collect_acts
    from synth.analysis.acts.tables import acts_plot, acts_tables
    from synth.analysis.stats.plots import write_plots
    from synth.analysis.stats.run import collect_stats, open_corpora, similarity_encoder
    from synth.analysis.stats.table import defects_table, diversity_table, stats_table
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL

    check_format(input_format)
    unit = "message" if per_message else "turn"
    with working("reading the datasets", progress):
        encoder = similarity_encoder(None if no_similarity else similarity_model or DEFAULT_EMBEDDING_MODEL)
        corpora = open_corpora(paths, input_format, sample=sample, seed=seed)
    all_stats, profiles = collect_stats(
        corpora, seed=seed, encoder=encoder, similarity_sample=similarity_sample, self_bleu_sample=self_bleu_sample,
        unit=unit, progress=progress,
    )
    with working("tagging dialogue acts", progress and acts):
        act_profiles = collect_acts(
            corpora, model_dir=acts_model, unit=unit, resamples=fidelity_resamples, seed=seed
        ) if acts else []
    if as_json:
        dumped = [s.model_dump(mode="json") for s in all_stats]
        for entry, found in zip(dumped, act_profiles):
            entry["acts"] = found.model_dump(mode="json")
        typer.echo(json.dumps(dumped[0] if len(dumped) == 1 else dumped, indent=2, ensure_ascii=False))
    else:
        console = table_console(110)
        console.print(stats_table(all_stats))
        console.print(diversity_table(all_stats))
        console.print(defects_table(all_stats))
        for table in acts_tables(act_profiles) if act_profiles else []:
            console.print(table)
    if plot is not None:
        written = write_plots(plot, all_stats, profiles)
        written += [acts_plot(plot / "acts.png", act_profiles)] if act_profiles else []
        for path in written:
            typer.echo(f"wrote {path}", err=as_json)
