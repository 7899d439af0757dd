"""`synth merge`: join the shard folders of one run."""

from __future__ import annotations

from pathlib import Path

import typer


def merge(
    shards: list[Path] = typer.Argument(..., help="The output folders of every shard of one run."),
    out: Path = typer.Option(..., "--out", help="An empty folder for the merged run."),
) -> None:
    """Join the shard folders of one run (`synth generate --shard I/N`), checking that no dialogue is
    missing or doubled."""
    from synth.shards import merge_runs

    manifest = merge_runs(shards, out)
    typer.echo(f"merged {len(shards)} shards: {manifest.counts.written} dialogues in {out / 'dialogues.jsonl'}")
