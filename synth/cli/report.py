"""`synth report`: one self-contained HTML page about a run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from synth.cli.console import progress_option
from synth.cli.stats import FIDELITY_RESAMPLES_HELP, PER_MESSAGE_HELP, SIMILARITY_MODEL_HELP


def report(
    run: Path = typer.Argument(..., help="A run folder: `synth generate`'s, or `synth filter`'s --out (then drops too)."),
    compare: Optional[list[str]] = typer.Option(
        None, "--compare", help="A dataset shown beside the run, LABEL=PATH or PATH: a run, a ReDial / INSPIRED / "
        "PEARL / GoRecDial file, or a shared set by name (redial-test, inspired-test, ...; repeatable)."
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
    similarity_model: Optional[str] = typer.Option(None, help=SIMILARITY_MODEL_HELP),
    no_similarity: bool = typer.Option(False, "--no-similarity", help="Skip the inter-dialogue similarity."),
    per_message: bool = typer.Option(False, "--per-message", help=PER_MESSAGE_HELP),
    fidelity_resamples: int = typer.Option(1000, min=10, help=FIDELITY_RESAMPLES_HELP),
    ratings: Optional[Path] = typer.Option(
        None, "--ratings", help="Scored human ratings (`synth rate score --out`) [default: RUN/rating_scores.json, "
        "when there]."
    ),
    progress: bool = progress_option(),
) -> None:
    """One self-contained HTML page: the run's model, prompts and cost, its statistics beside other datasets,
    the filter's drops with their reasons, dialogue acts (with each column's act fidelity to the first compared
    human dataset), scored human ratings (`synth rate`), and a dialogue browser."""
    from synth.report.build import ReportOptions, write_report
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL

    options = ReportOptions(
        compare=compare or [],
        acts=acts,
        acts_model=acts_model,
        max_dialogues=max_dialogues,
        sample=sample,
        seed=seed,
        similarity_model=None if no_similarity else similarity_model or DEFAULT_EMBEDDING_MODEL,
        unit="message" if per_message else "turn",
        fidelity_resamples=fidelity_resamples,
        progress=progress,
        ratings=ratings,
    )
    summary = write_report(run, out or run / "report.html", options)
    shown = f"{summary.dialogues_shown:,} of {summary.dialogues_total:,}"
    typer.echo(f"wrote {summary.path} ({summary.bytes / 1e6:.1f} MB): {shown} dialogues in the browser"
               + (f", compared with {', '.join(summary.compared)}" if summary.compared else "")
               + ("" if summary.acts else "; no dialogue acts (--acts adds them)"))
