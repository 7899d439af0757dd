"""Where the CLI prints: rich tables on stdout, and a spinner on stderr while a long step runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

PROGRESS_HELP = "Show progress on a terminal."


def progress_option() -> bool:
    """The `--progress/--no-progress` option, on by default (nothing is drawn when stderr is no terminal)."""
    return typer.Option(True, "--progress/--no-progress", help=PROGRESS_HELP)


def table_console(min_width: int) -> Console:
    """A stdout console at least `min_width` columns wide, so that wide tables keep their columns when piped."""
    return Console(width=max(Console().width, min_width))


@contextmanager
def working(text: str, enabled: bool) -> Iterator[None]:
    """A spinner with `text` on stderr while the block runs, for steps whose library code reports no progress
    of its own; stdout (tables, JSON) is left clean."""
    if not enabled:
        yield
        return
    with Console(stderr=True).status(text):
        yield
