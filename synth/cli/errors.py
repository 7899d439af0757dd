"""The CLI's one error handler: a SynthError becomes one line on stderr and exit code 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from synth.errors import SynthError

EXIT_ERROR = 2  # bad input, a missing model, an unreachable server: something the user can fix
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


@contextmanager
def one_line_errors(interrupted: str | None = None) -> Iterator[None]:
    """Turn a SynthError into `error: MESSAGE` on stderr and exit 2 (no traceback). With `interrupted`,
    Ctrl-C prints that line and exits 130 instead of click's bare 'Aborted!'.

    Every command is wrapped in it when it is registered (`synth.cli`); a command that must say what an
    interrupt left behind uses it once more, as a `with` block, naming that."""
    try:
        yield
    except SynthError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=EXIT_ERROR) from None
    except KeyboardInterrupt:
        if interrupted is None:
            raise
        typer.echo(interrupted, err=True)
        raise typer.Exit(code=EXIT_INTERRUPTED) from None
