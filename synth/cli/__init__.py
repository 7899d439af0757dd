"""The `synth` command line: the app, its commands (one module each) and the one error handler around them.

Commands import their heavy libraries (torch, datasets, the game) inside the function, so `synth --help`
stays fast."""

from __future__ import annotations

import logging
from collections.abc import Callable

import typer

from synth.cli import acts, benchmark, data, doctor, evaluate, exports, filter, generate, merge, rate, report, stats
from synth.cli.errors import one_line_errors

app = typer.Typer(
    help="Generate, filter and benchmark synthetic conversational-recommendation dialogues.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: rich markup would swallow the "[default: ...]" in help texts
    add_completion=False,
)
acts_app = typer.Typer(help="Dialogue acts: the IARD-trained act tagger and satisfaction predictor.", no_args_is_help=True)
app.add_typer(acts_app, name="acts")
data_app = typer.Typer(help="Public datasets synth reads: list, fetch into a per-user cache, verify.", no_args_is_help=True)
app.add_typer(data_app, name="data")
rate_app = typer.Typer(help="Human evaluation: blind rating pages for raters, then their ratings scored.", no_args_is_help=True)
app.add_typer(rate_app, name="rate")


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what synth does.")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


def register(group: typer.Typer, name: str, command: Callable[..., None]) -> None:
    """Add `command` to `group` as `name`, wrapped in the one error handler."""
    group.command(name)(one_line_errors()(command))


for name, command in [
    ("generate", generate.generate),
    ("merge", merge.merge),
    ("filter", filter.filter_command),
    ("stats", stats.stats),
    ("report", report.report),
    ("benchmark", benchmark.benchmark),
    ("evaluate", evaluate.evaluate),
    ("export", exports.export),
    ("publish", exports.publish),
    ("doctor", doctor.doctor),
]:
    register(app, name, command)
register(acts_app, "train", acts.train)
for name, command in [("list", data.list_datasets), ("fetch", data.fetch), ("verify", data.verify)]:
    register(data_app, name, command)
for name, command in [("pages", rate.pages), ("score", rate.score)]:
    register(rate_app, name, command)
