"""`synth acts train`: the IARD-trained dialogue-act taggers and satisfaction predictor."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from synth.cli.console import progress_option, table_console
from synth.cli.settings import EMBEDDING_MODEL_DEFAULT_HELP
from synth.errors import SynthError


def train(
    iard: Optional[Path] = typer.Option(
        None, help="IARD's umap2020_IARD_Cai.json [default: fetched by `synth data fetch iard`, else "
        "$SYNTH_SHARED_DATA/iard/umap2020_IARD_Cai.json]."
    ),
    out: Optional[Path] = typer.Option(None, "--out", help="Model folder [default: ~/.cache/synth/acts]."),
    folds: int = typer.Option(5, min=2, help="Folds of the dialogue-grouped cross-validation."),
    seed: int = typer.Option(0, help="Seed of the folds and the classifiers."),
    embedding_model: Optional[str] = typer.Option(None, help=f"Sentence embedding model {EMBEDDING_MODEL_DEFAULT_HELP}."),
    as_json: bool = typer.Option(False, "--json", help="Print the cross-validated scores as JSON."),
    progress: bool = progress_option(),
) -> None:
    """Train the act taggers and the satisfaction predictor on IARD, cross-validate them by dialogue, and save
    them (with evaluation.json and evaluation.md) for `synth stats --acts` and `synth filter`."""
    from synth.analysis.acts.model import default_iard_path, default_model_dir, load_encoder, train_act_model
    from synth.analysis.acts.tables import evaluation_markdown, evaluation_tables

    folder = out or default_model_dir()
    source = iard or default_iard_path()
    if not source.exists():
        raise SynthError(f"no IARD data at {source}: run `synth data fetch iard`, or pass --iard PATH of a copy")
    model = train_act_model(source, load_encoder(embedding_model), folds=folds, seed=seed, progress=progress)
    path = model.save(folder)
    (folder / "evaluation.md").write_text(evaluation_markdown(model.evaluation) + "\n")
    if as_json:
        typer.echo(model.evaluation.model_dump_json(indent=2))
    else:
        console = table_console(100)
        for table in evaluation_tables(model.evaluation):
            console.print(table)
    typer.echo(f"saved {path} ({model.evaluation.seconds:.0f} s)", err=as_json)
