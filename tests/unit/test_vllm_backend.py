"""The vllm backend's own logic without vLLM: batching concurrent calls, accounting, model resolution,
and the message when vLLM is missing. The engine itself runs in tests/vllm (marked `vllm`)."""

from __future__ import annotations

import asyncio
import importlib.util
from types import SimpleNamespace

import pytest

from synth.errors import SynthError
from synth.llm.hf_models import resolve_hf_model
from synth.llm.vllm_offline import VLLMBackend
from tests.helpers import run_synth


class EchoEngine:
    """Stands in for vllm.LLM.chat: answers each conversation with its last message, records batch sizes."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def chat(self, conversations, params, use_tqdm=False):
        self.batches.append(len(conversations))
        return [
            SimpleNamespace(
                prompt_token_ids=list(range(10)),
                num_cached_tokens=6,
                outputs=[SimpleNamespace(text=c[-1]["content"], token_ids=[1, 2, 3], finish_reason="stop")],
            )
            for c in conversations
        ]


class OfflineBackend(VLLMBackend):
    def __init__(self, engine: EchoEngine) -> None:
        super().__init__("unused")
        self._engine = engine

    def _load(self):
        return self._engine

    def _sampling_params(self, options, json_schema):
        return options


def test_concurrent_calls_share_a_batch_and_get_their_own_answer() -> None:
    engine = EchoEngine()

    async def play() -> list[str]:
        backend = OfflineBackend(engine)
        try:
            answers = await asyncio.gather(
                *(backend.complete([{"role": "user", "content": f"call {i}"}], max_tokens=5) for i in range(8))
            )
        finally:
            await backend.aclose()
        return answers

    answers = asyncio.run(play())
    assert [a.text for a in answers] == [f"call {i}" for i in range(8)]
    assert engine.batches == [8]
    assert answers[0].prompt_tokens == 10 and answers[0].completion_tokens == 3
    assert answers[0].prompt_tokens_evaluated == 4  # 6 of 10 came from vLLM's prefix cache


def test_calls_arriving_during_a_batch_form_the_next_one() -> None:
    engine = EchoEngine()

    async def dialogue(backend: VLLMBackend, name: str) -> None:
        for turn in range(3):
            await backend.complete([{"role": "user", "content": f"{name} {turn}"}], max_tokens=5)

    async def play() -> None:
        backend = OfflineBackend(engine)
        try:
            await asyncio.gather(*(dialogue(backend, f"d{i}") for i in range(4)))
        finally:
            await backend.aclose()

    asyncio.run(play())
    assert engine.batches == [4, 4, 4]


def test_a_failing_batch_fails_its_calls_not_the_backend() -> None:
    class Broken(EchoEngine):
        def chat(self, conversations, params, use_tqdm=False):
            if not self.batches:
                self.batches.append(0)
                raise RuntimeError("CUDA out of memory")
            return super().chat(conversations, params)

    async def play():
        backend = OfflineBackend(Broken())
        try:
            with pytest.raises(SynthError, match="CUDA out of memory"):
                await backend.complete([{"role": "user", "content": "first"}], max_tokens=5)
            return await backend.complete([{"role": "user", "content": "second"}], max_tokens=5)
        finally:
            await backend.aclose()

    assert asyncio.run(play()).text == "second"


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_without_vllm_the_error_says_what_to_install(tmp_path) -> None:
    result = run_synth("generate", "--backend", "vllm", "--n", "1", "--out", str(tmp_path), "--no-progress")
    assert result.returncode == 2
    assert "pip install 'synth-crs[vllm]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_vllm_arg_is_a_usage_error(tmp_path) -> None:
    result = run_synth("generate", "--backend", "vllm", "--vllm-arg", "no-equals-sign", "--out", str(tmp_path))
    assert result.returncode == 2 and "KEY=VALUE" in result.stderr


def test_model_resolution_for_vllm(tmp_path) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    with pytest.raises(SynthError, match="config.json"):
        resolve_hf_model(str(folder))
    (folder / "config.json").write_text("{}")
    assert resolve_hf_model(str(folder)) == folder
    assert resolve_hf_model("Qwen/Qwen2.5-7B-Instruct") == "Qwen/Qwen2.5-7B-Instruct"
    with pytest.raises(SynthError, match="unknown packaged model"):
        resolve_hf_model("packaged:nope")
    with pytest.raises(SynthError, match="not found"):
        resolve_hf_model(str(tmp_path / "missing.gguf"))
