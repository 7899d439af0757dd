"""Every command line the README and the quick start quote is one synth can run: each `synth ...` line of their
code blocks names a command that exists, and every option it passes is one that command's `--help` lists (and
`--help` renders); each `python -m synth...` names a module that exists. Nothing is run for real, so the test
takes a second; a doc that drifts from the CLI fails here."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from synth.cli import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/quickstart.md")
FENCE = re.compile(r"^```.*?$(.*?)^```", re.MULTILINE | re.DOTALL)


def code_lines(text: str) -> list[str]:
    """The lines of a Markdown text's code: indented four spaces (outside lists) or inside ``` fences."""
    fenced = [line for block in FENCE.findall(text) for line in block.splitlines()]
    indented = [line[4:] for line in FENCE.sub("", text).splitlines() if line.startswith("    ") and line.strip()]
    return [line.strip() for line in fenced + indented if line.strip()]


def quoted_commands(doc: str) -> list[str]:
    """Each `synth ...` or `python -m synth...` command in the doc's code, a `&&` chain split into its commands
    and a trailing `# comment` left off."""
    commands = []
    for line in code_lines((ROOT / doc).read_text()):
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words[:1] == ["synth"] or words[:3] == ["python", "-m", "synth"] or (
                words[:2] == ["python", "-m"] and len(words) > 2 and words[2].startswith("synth.")
            ):
                commands.append(shlex.join(words))
    return commands


QUOTED = [(doc, command) for doc in DOCS for command in quoted_commands(doc)]


def test_the_docs_quote_the_commands_this_test_checks():
    quoted = {command.split(" --")[0] for _, command in QUOTED}
    assert {"synth generate", "synth filter runs/demo", "synth data fetch movielens-small rt-critics redial",
            "synth acts train", "synth benchmark"} <= quoted, quoted


@pytest.mark.parametrize(("doc", "command"), QUOTED, ids=[f"{doc}: {command}" for doc, command in QUOTED])
def test_a_quoted_command_names_a_command_and_options_that_exist(doc, command):
    words = shlex.split(command)
    if words[0] == "python":
        assert importlib.util.find_spec(words[2]) is not None, f"{doc}: no module {words[2]}"
        return
    group = typer.main.get_command(app)  # a group has `commands` (typer ships its own click)
    path: list[str] = []
    rest = words[1:]
    while hasattr(group, "commands") and rest and rest[0] in group.commands:
        path.append(rest[0])
        group, rest = group.commands[rest[0]], rest[1:]
    assert path and not hasattr(group, "commands"), f"{doc}: `{command}` names no synth command"
    known = {name for param in group.params for name in (*param.opts, *param.secondary_opts)}
    used = [word.split("=", 1)[0] for word in rest if word.startswith("-")]
    assert not set(used) - known, f"{doc}: `{command}`: `synth {' '.join(path)}` has no {sorted(set(used) - known)}"
    shown = CliRunner().invoke(app, [*path, "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown.output)
    assert all(option in plain for option in used), f"{doc}: `synth {' '.join(path)} --help` lists not all of {used}"
