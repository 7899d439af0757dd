"""Helpers for tests that drive the real `synth` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from synth.records import DialogueRecord


def synth_command() -> str:
    """The installed console script next to this interpreter."""
    script = Path(sys.executable).parent / "synth"
    assert script.exists(), "synth is not installed in this environment: pip install -e '.[embedded,dense,langchain,hub,bench,ray,dev]'"
    return str(script)


def run_synth(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [synth_command(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def read_records(out: Path) -> list[DialogueRecord]:
    lines = (out / "dialogues.jsonl").read_text().splitlines()
    return [DialogueRecord.model_validate_json(line) for line in lines]
