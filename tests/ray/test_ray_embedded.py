"""The embedded model (the packaged SmolLM2-135M in llama.cpp) in Ray workers writes the records that the
local runner writes with the same seed."""

from __future__ import annotations

import json

import pytest

from synth.config import GenerateConfig
from synth.ray_runner import ray_generate
from tests.helpers import comparable, read_records

pytestmark = pytest.mark.integration


def test_embedded_model_on_ray_matches_the_local_run(cluster, tmp_path, short_smollm_run):
    """The local run is `short_smollm_run`: the same settings from the command line (one thread per llama.cpp,
    as each of the two workers sharing the 2 cores computes; no reply re-samples, tested elsewhere)."""
    config = GenerateConfig(n=2, seed=3, max_utterances=2, model="packaged:smollm2-135m", n_threads=1, progress=False,
                            reply_resamples=0)
    local = json.loads((short_smollm_run / "manifest.json").read_text())
    assert GenerateConfig.model_validate(local["config"]).model_dump(exclude={"progress"}) == config.model_dump(
        exclude={"progress"})
    on_ray = ray_generate(config, tmp_path / "ray", workers=2, shards=2)
    records = read_records(tmp_path / "ray")
    assert comparable(records) == comparable(read_records(short_smollm_run))
    assert len(records) == 2 and on_ray.tokens.completion > 0
    # the same calls; only the prompt tokens llama.cpp re-evaluated differ (KV reuse depends on the process)
    assert (on_ray.tokens.prompt, on_ray.tokens.completion) == (local["tokens"]["prompt"], local["tokens"]["completion"])
    assert on_ray.tokens.prompt_evaluated > 0
    assert on_ray.model.model_dump(mode="json") == local["model"] and on_ray.model.source == "packaged:smollm2-135m"
    assert len(on_ray.ray.workers) == 2
