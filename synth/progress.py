"""Progress bars for every long job: one look, drawn on stderr (never mixed into a command's output) and only
when stderr is a terminal, so logs, pipes and CI stay clean. Library code takes `progress: bool` from its
caller (the CLI's `--progress/--no-progress`) and builds its bar here."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    RenderableColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

T = TypeVar("T")


def progress_bar(
    enabled: bool,
    label: str,
    *fields: str,
    eta: bool = False,
    transient: bool = False,
    console: Console | None = None,
) -> Progress:
    """A bar reading `label`, the bar, done/total, one column per template in `fields` (filled from the
    task's fields, e.g. "failed {task.fields[failed]}"), the time elapsed and, with `eta`, the time left.
    `label` may hold rich markup. Disabled, or on a console that is no terminal, it draws nothing; `transient`
    bars vanish when done."""
    columns: list[ProgressColumn] = [
        RenderableColumn(Text.from_markup(label)),
        BarColumn(),
        MofNCompleteColumn(),
        *(TextColumn(template) for template in fields),
        TimeElapsedColumn(),
    ]
    if eta:
        columns += [TextColumn("eta"), TimeRemainingColumn()]
    console = console or Console(stderr=True)
    return Progress(*columns, disable=not (enabled and console.is_terminal), transient=transient, console=console)


def track(items: Iterable[T], label: str, enabled: bool, *, total: int | None = None) -> Iterator[T]:
    """`items`, one at a time, behind a transient bar reading `label` (plain text, no markup)."""
    with progress_bar(enabled, Text(label).markup, transient=True) as bar:
        yield from bar.track(items, total=total)
