"""The shared progress bar: drawn on a terminal when enabled, silent otherwise; and the registries' names
match what the configuration accepts."""

from __future__ import annotations

import io
from typing import get_args

from rich.console import Console

from synth.config import BackendName, GenerateConfig
from synth.llm.factory import BACKENDS
from synth.progress import progress_bar, track
from synth.retrievers.factory import RETRIEVERS


def console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100), out


def test_a_bar_draws_its_label_fields_and_count_on_a_terminal():
    screen, out = console(terminal=True)
    with progress_bar(True, "[bold]dialogues", "failed {task.fields[failed]}", eta=True, console=screen) as bar:
        task = bar.add_task("", total=3, failed=0)
        bar.update(task, advance=3, failed=1)
    drawn = out.getvalue()
    assert "dialogues" in drawn and "3/3" in drawn and "failed 1" in drawn and "eta" in drawn
    assert "[bold]" not in drawn


def test_a_bar_is_silent_when_disabled_or_not_on_a_terminal():
    for enabled, terminal in ((False, True), (True, False)):
        screen, out = console(terminal)
        with progress_bar(enabled, "filtering", console=screen) as bar:
            bar.update(bar.add_task("", total=2), advance=2)
        assert out.getvalue() == ""


def test_track_yields_every_item_and_takes_labels_literally():
    assert list(track(iter("abc"), "decode [x] {y}", True, total=3)) == ["a", "b", "c"]
    assert list(track([1, 2], "off", False)) == [1, 2]


def test_the_registries_cover_the_names_the_config_accepts():
    assert set(BACKENDS) == set(get_args(BackendName))
    assert set(RETRIEVERS) == set(get_args(GenerateConfig.model_fields["retriever"].annotation))
