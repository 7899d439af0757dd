"""The demo catalog and reviews bundled with synth, so `synth generate` runs with no arguments."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def demo_path(name: str) -> Path:
    """Path of a bundled demo file ('catalog.jsonl' or 'reviews.jsonl')."""
    return Path(str(resources.files("synth.demo_data").joinpath("demo", name)))
