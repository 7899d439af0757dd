"""A real local Ray cluster for the tests here, started once with ray.init(num_cpus=2), and a scripted run that
the basic filters cut."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from synth.config import GenerateConfig
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate

ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
REPO = Path(__file__).resolve().parents[2]
REPEATED_REFUSAL = "No, that one is not for me."  # long enough (4+ words) for the repetition filter


@pytest.fixture(scope="package")
def cluster():
    """Workers import this repository's tests (the backends the tests define) through PYTHONPATH."""
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    yield ray
    ray.shutdown()


def refusing_in_one_phrase(messages: list[dict[str, str]], schema: dict | None) -> str:
    """The rule-following game, but the seeker turns every wrong suggestion down with the same sentence."""
    reply = json.loads(rule_following_script(messages, schema))
    if reply.get("accept") is False:
        reply["utterance"] = REPEATED_REFUSAL
    return json.dumps(reply)


@pytest.fixture(scope="package")
def repetitive_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 20-dialogue scripted run (seed 7) in which the basic filters drop every dialogue whose seeker
    refused twice (the repetition filter) or nearly repeats an earlier kept one (dedup), and keep the others (2
    of 20). Read it; do not change it."""
    folder = tmp_path_factory.mktemp("repetitive-run")
    config = GenerateConfig(n=20, seed=7, strategy="pearl", wording="free", progress=False)  # the script's protocol
    asyncio.run(generate(config, folder, backend=ScriptedBackend(refusing_in_one_phrase, keep_calls=False)))
    return folder
