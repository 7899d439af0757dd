"""Shared fixtures: the bundled demo data, and a small run played on it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from synth.config import GenerateConfig
from synth.data.paths import shared_data_root
from synth.data.sources import SourceData, load_demo
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.records import Item, Review
from synth.runner import generate
from tests.helpers import ONE_THREAD, SHORT_SMOLLM_ARGS, first_lines, run_synth


@pytest.fixture(scope="session")
def demo() -> SourceData:
    return load_demo()


@pytest.fixture(scope="session")
def catalog(demo: SourceData) -> dict[str, Item]:
    return demo.catalog


@pytest.fixture(scope="session")
def reviews(demo: SourceData) -> list[Review]:
    return demo.reviews


@pytest.fixture(scope="session")
def scripted_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 20-dialogue run on the demo data, played by the scripted backend (game logic, not a model):
    14 users, some with two dialogues, on PEARL's fixed course (--strategy pearl) in free wording (the recommender's
    own [EOD], titles only in its turns), which the rule-following script models. Read it; copy it before
    changing it."""
    folder = tmp_path_factory.mktemp("scripted-run")
    config = GenerateConfig(n=20, seed=3, strategy="pearl", wording="free", progress=False)
    asyncio.run(generate(config, folder, backend=ScriptedBackend(rule_following_script)))
    return folder


@pytest.fixture(scope="session")
def short_smollm_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 2-dialogue run by the packaged SmolLM2-135M (SHORT_SMOLLM_ARGS, one dialogue at a time, one
    llama.cpp thread): what a killed-and-resumed or a Ray run of the same settings must equal. Read it; copy it
    before changing it."""
    folder = tmp_path_factory.mktemp("short-smollm")
    result = run_synth(*SHORT_SMOLLM_ARGS, *ONE_THREAD, "--n", "2", "--concurrency", "1", "--out", str(folder))
    assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture(scope="session")
def redial_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The first 60 dialogues of the shared ReDial train subset and 40 of its test split."""
    folder = tmp_path_factory.mktemp("redial-small")
    root = shared_data_root() / "redial"
    return (first_lines(root / "train_subset_kgsf_valid.jsonl", folder / "train.jsonl", 60),
            first_lines(root / "test_data.jsonl", folder / "test.jsonl", 40))
