"""`synth export` and `synth publish`: a run in the files the field's code reads (ReDial, PEARL, CRSLab,
DialogueKit) or as a Hugging Face DatasetDict with its dataset card, written to a folder or pushed to the Hub."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from synth.cli.console import progress_option
from synth.export.splits import DEFAULT_SPLITS

if TYPE_CHECKING:
    from synth.export.card import CardOptions

SPLITS = ",".join(f"{name}={share:g}" for name, share in DEFAULT_SPLITS.items())
SPLITS_HELP = "Splits by user as NAME=SHARE,..."
NO_SIMILARITY_HELP = "Leave the similarity out of the card's statistics."
PRETTY_NAME_HELP = "The card's pretty_name [default: from the run folder]."
LICENSE_HELP = "The card's license id [default: from the data source]."
RUN_HELP = "A run folder (or a filtered one), or its dialogues .jsonl."


def card_options(pretty_name: str | None, license: str | None, split_seed: int, no_similarity: bool) -> CardOptions:
    """Dataset card settings; the statistics' similarity uses the default embedding model when installed."""
    from synth.analysis.stats.run import similarity_encoder
    from synth.export.card import CardOptions
    from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL

    encoder = similarity_encoder(None if no_similarity else DEFAULT_EMBEDDING_MODEL)
    return CardOptions(pretty_name=pretty_name, license=license, split_seed=split_seed, encoder=encoder)


def show_hub_progress(enabled: bool) -> None:
    """The progress bars of `datasets` (saving, parquet) and `huggingface_hub` (uploads): left on, or off."""
    if enabled:
        return
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()
    try:
        import datasets
    except ImportError:  # the export itself names the missing 'hub' extra
        return
    datasets.disable_progress_bars()


def export(
    run: Path = typer.Argument(..., help=RUN_HELP),
    out: Path = typer.Argument(..., help="Output folder."),
    to: str = typer.Option(
        ...,
        "--to",
        help="redial ({train,valid,test}_data.jsonl, movies_with_mentions.csv, movie_ids.csv), pearl "
        "({train,valid,test}.json), crslab ({train,valid,test}_data.json and its side files), dialoguekit "
        "(UserSimCRS / DialogueKit json, items and ratings) or hf (a DatasetDict saved with save_to_disk, and its "
        "README.md card). See docs/exports.md.",
    ),
    splits: str = typer.Option(SPLITS, help=SPLITS_HELP),
    split_seed: int = typer.Option(0, help="Seed of the split by user."),
    pretty_name: Optional[str] = typer.Option(None, help=PRETTY_NAME_HELP),
    license: Optional[str] = typer.Option(None, help=LICENSE_HELP),
    no_similarity: bool = typer.Option(False, "--no-similarity", help=NO_SIMILARITY_HELP),
    overwrite: bool = typer.Option(
        False, help="Replace an earlier export in OUT (a README.md card is kept and merged)."
    ),
    progress: bool = progress_option(),
) -> None:
    """Write a run, split by user, in a format the field's code reads (ReDial, PEARL, CRSLab, DialogueKit) or as a
    Hugging Face DatasetDict with a dataset card."""
    from synth.export.exporters import export_run
    from synth.export.splits import parse_splits

    if to == "hf":
        show_hub_progress(progress)
    options = card_options(pretty_name, license, split_seed, no_similarity or to != "hf")
    exported = export_run(run, to, out, shares=parse_splits(splits), options=options, overwrite=overwrite)
    counts = ", ".join(f"{name} {count}" for name, count in exported.facts["splits"].items())
    typer.echo(f"wrote {len(exported.files)} files to {out} ({counts} dialogues)")
    mentions = exported.facts.get("mentions")
    if mentions:
        typer.echo(f"item mentions: {mentions['summary']}")


def publish(
    run: Path = typer.Argument(..., help=RUN_HELP),
    repo_id: str = typer.Option(..., "--repo-id", help="OWNER/NAME of the dataset repository on the Hub."),
    private: bool = typer.Option(False, "--private", help="Create the repository private."),
    dry_run: Optional[Path] = typer.Option(
        None, "--dry-run", help="Write what would be uploaded (data/*.parquet, README.md) into this folder instead."
    ),
    splits: str = typer.Option(SPLITS, help=SPLITS_HELP),
    split_seed: int = typer.Option(0, help="Seed of the split by user."),
    pretty_name: Optional[str] = typer.Option(None, help=PRETTY_NAME_HELP),
    license: Optional[str] = typer.Option(None, help=LICENSE_HELP),
    no_similarity: bool = typer.Option(False, "--no-similarity", help=NO_SIMILARITY_HELP),
    overwrite: bool = typer.Option(False, help="Replace an earlier dry run's files in the --dry-run folder."),
    progress: bool = progress_option(),
) -> None:
    """Push the run's DatasetDict and dataset card to the Hugging Face Hub (token from HF_TOKEN, never printed)."""
    from synth.export.exporters import publish_run
    from synth.export.splits import parse_splits

    show_hub_progress(progress)
    options = card_options(pretty_name, license, split_seed, no_similarity)
    published = publish_run(
        run, repo_id, private=private, dry_run=dry_run, shares=parse_splits(splits), options=options,
        overwrite=overwrite,
    )
    if dry_run is not None:
        typer.echo(f"dry run: wrote {len(published.files)} files for {repo_id} to {dry_run}; nothing was uploaded")
        for path in published.files:
            typer.echo(f"  {path.relative_to(dry_run)}")
    else:
        typer.echo(f"published {repo_id}: {published.url}")
