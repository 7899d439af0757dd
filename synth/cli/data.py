"""`synth data list | fetch | verify`: the public datasets synth reads, in a per-user cache."""

from __future__ import annotations

from typing import Optional

import typer


def list_datasets() -> None:
    """The datasets synth can fetch: name, what it is, size, terms, and whether it is in the cache."""
    from synth.data.fetch import verify
    from synth.data.paths import data_dir
    from synth.data.registry import DATASETS

    typer.echo(f"cache: {data_dir()} (SYNTH_DATA_DIR moves it)")
    for entry in DATASETS.values():
        states = {state.state for state in verify(entry.name)}
        here = "fetched" if states == {"ok"} else "not fetched" if states == {"missing"} else "incomplete"
        sizes = ", ".join(dict.fromkeys(file.size for file in entry.files))  # each size once
        typer.echo(f"\n{entry.name} [{here}]: {entry.title}\n  {sizes}; read by {entry.used_by}\n  terms: {entry.license}")


def fetch(
    names: list[str] = typer.Argument(..., help="Datasets to fetch (see `synth data list`)."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Show a download bar on a terminal."),
) -> None:
    """Download datasets into the cache, checked against their checksums; print each file's URL, checksum, size
    and terms first. Files already there and intact are not downloaded again."""
    import sys

    from synth.data.fetch import dataset, url_of
    from synth.data.fetch import fetch as fetch_dataset

    entries = [dataset(name) for name in names]  # an unknown name stops before any download
    for entry in entries:
        typer.echo(f"{entry.name}: {entry.title}\n  terms: {entry.license}\n  cite: {entry.citation}")
        for file in entry.files:
            if not file.pinned:
                checksum = "no checksum in the registry: the sha256 received is recorded and verified later"
            else:
                checksum = file.checksum or "members " + ", ".join(f"{m} {c}" for m, c in file.members)
            typer.echo(f"  {url_of(entry, file)}\n    {file.size}; {checksum}")
        paths = fetch_dataset(entry.name, progress=sys.stderr.isatty() if progress is None else progress)
        typer.echo(f"  fetched into {paths[0].parent}")


def verify(names: Optional[list[str]] = typer.Argument(None, help="Datasets to check [default: every fetched one].")) -> None:
    """Check the files in the cache against their checksums; exit 2 when one is missing or does not match."""
    from synth.data.fetch import verify as verify_dataset
    from synth.data.registry import DATASETS
    from synth.errors import SynthError

    states = [state for name in (names or DATASETS) for state in verify_dataset(name)]
    if not names:
        fetched = {s.dataset for s in states if s.state != "missing"}
        states = [s for s in states if s.dataset in fetched]
    for state in states:
        typer.echo(f"{state.dataset}/{state.file}: {state.state}")
    bad = [s for s in states if s.state != "ok"]
    if bad:
        raise SynthError(f"{len(bad)} of {len(states)} files missing or damaged; run `synth data fetch "
                         f"{' '.join(sorted({s.dataset for s in bad}))}` again")
