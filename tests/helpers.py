"""Helpers for tests that drive the real `synth` command."""

from __future__ import annotations

import json
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


SMOLLM = "packaged:smollm2-135m"  # the fast packaged model (incoherent text, real llama.cpp)


def generate_smollm(out: Path, *extra: str) -> subprocess.CompletedProcess:
    """`synth generate` with SmolLM2 (2 dialogues, seed 11 unless `extra` overrides); fails on a non-zero exit."""
    result = run_synth(
        "generate", "--n", "2", "--seed", "11", "--out", str(out), "--model", SMOLLM, "--no-progress", *extra
    )
    assert result.returncode == 0, result.stderr
    return result


def first_candidate_script(messages: list[dict[str, str]], schema: dict) -> str:
    """Game logic only (a scripted backend): the recommender picks its first choice at once, the seeker
    accepts whatever it is offered."""
    props = schema["properties"]
    if "item" in props:
        return json.dumps({"think": "t", "item": props["item"]["enum"][0], "utterance": "Try it."})
    if "accept" in props:
        return json.dumps({"utterance": "Sure!", "accept": True})
    return json.dumps({"utterance": "Anything."})
