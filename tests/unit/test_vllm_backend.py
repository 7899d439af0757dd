"""The vllm backend's own logic without vLLM: the continuous design (calls join a running async engine and
return when their own sequence ends) against the gathered one (calls batched into `LLM.chat`), accounting,
failures, shutdown, the choice between the two, model resolution and the message when vLLM is missing.
The engine itself runs in tests/vllm (marked `vllm`)."""

from __future__ import annotations

import asyncio
import importlib.util
import time
from types import SimpleNamespace

import pytest

from synth.cli import generate as generate_cli
from synth.config import BackendConfig
from synth.errors import SynthError
from synth.llm.factory import make_backend
from synth.llm.hf_models import resolve_hf_model
from synth.llm.vllm_common import VLLMEngineBackend
from synth.llm.vllm_continuous import ContinuousVLLMBackend
from synth.llm.vllm_gathered import GatheredVLLMBackend
from tests.helpers import run_synth

TICK_S = 0.01  # the fake engines decode a token in this time


def request_output(prompt_token_ids: list[int], text: str, cached: int = 6) -> SimpleNamespace:
    """What vLLM returns for a finished request (the fields synth reads)."""
    return SimpleNamespace(
        prompt_token_ids=prompt_token_ids,
        num_cached_tokens=cached,
        outputs=[SimpleNamespace(text=text, token_ids=[1, 2, 3], finish_reason="stop")],
    )


def ask(backend: VLLMEngineBackend, content: str, max_tokens: int = 5):
    return backend.complete([{"role": "user", "content": content}], max_tokens=max_tokens)


# ---- fakes of the two vLLM engines ---------------------------------------------------------------------------


class EchoLLM:
    """Stands in for vllm.LLM.chat: answers each conversation with its last message after decoding the batch's
    longest answer (max_tokens ticks), records batch sizes."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def chat(self, conversations, params, use_tqdm=False):
        self.batches.append(len(conversations))
        time.sleep(max(p["max_tokens"] for p in params) * TICK_S)
        return [request_output(list(range(10)), c[-1]["content"]) for c in conversations]


class WordTokenizer:
    """A chat template of 'role: content' lines and one token id per word."""

    def apply_chat_template(self, messages, tokenize, add_generation_prompt):
        assert tokenize is False and add_generation_prompt is True
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant:"

    def encode(self, text, add_special_tokens):
        assert add_special_tokens is False  # the template has its own special tokens
        return list(range(len(text.split())))


class EchoAsyncEngine:
    """Stands in for vllm's AsyncLLMEngine: each request decodes max_tokens ticks on its own and ends with one
    final output (FINAL_ONLY) that says how many tokens its prompt has; the request ids in `failing` fail."""

    def __init__(self) -> None:
        self.loads = 0
        self.request_ids: list[str] = []
        self.aborted: list[str] = []
        self.failing: set[str] = set()
        self.shut_down = False

    def get_tokenizer(self) -> WordTokenizer:
        return WordTokenizer()

    async def generate(self, prompt, params, request_id):
        self.request_ids.append(request_id)
        ids = prompt["prompt_token_ids"]
        try:
            await asyncio.sleep(params["max_tokens"] * TICK_S)
        except asyncio.CancelledError:
            self.aborted.append(request_id)
            raise
        if request_id in self.failing:  # as vLLM does: EngineGenerateError() from the cause
            raise RuntimeError() from ValueError("the prompt is too long")
        yield request_output(ids, f"{len(ids)} tokens", cached=len(ids) - 2)

    def shutdown(self) -> None:
        self.shut_down = True


class FakeGathered(GatheredVLLMBackend):
    def __init__(self, engine: EchoLLM) -> None:
        super().__init__("unused")
        self.fake = engine

    def _load(self):
        return self.fake

    def _sampling_params(self, options, json_schema):
        return options


class FakeContinuous(ContinuousVLLMBackend):
    def __init__(self, engine: EchoAsyncEngine) -> None:
        super().__init__("unused")
        self.fake = engine

    def _load(self):
        self.fake.loads += 1
        return self.fake

    def _sampling_params(self, options, json_schema):
        return options


def play(backend: VLLMEngineBackend, game):
    """Run `game(backend)` in a fresh event loop and close the backend after it."""

    async def run():
        try:
            return await game(backend)
        finally:
            await backend.aclose()

    return asyncio.run(run())


# ---- continuous (the default) against gathered ---------------------------------------------------------------


async def long_then_short(backend: VLLMEngineBackend) -> tuple[list[str], dict[str, float]]:
    """A long call, then a short one while the long one decodes; the order they return in and their latencies."""
    finished: list[str] = []
    latency: dict[str, float] = {}

    async def call(name: str, max_tokens: int) -> None:
        answer = await ask(backend, name, max_tokens)
        finished.append(name)
        latency[name] = answer.latency_s

    long = asyncio.create_task(call("long", 40))
    await asyncio.sleep(5 * TICK_S)
    await call("short", 2)
    await long
    return finished, latency


def test_continuous_a_short_call_returns_while_a_long_one_goes_on() -> None:
    finished, latency = play(FakeContinuous(EchoAsyncEngine()), long_then_short)
    assert finished == ["short", "long"]
    assert latency["short"] < 10 * TICK_S < 30 * TICK_S < latency["long"]


def test_gathered_a_short_call_waits_for_the_long_one() -> None:
    finished, latency = play(FakeGathered(EchoLLM()), long_then_short)
    assert finished == ["long", "short"]  # the short call waited for the long batch, then ran in the next one
    assert latency["short"] > 30 * TICK_S


def test_continuous_calls_get_their_own_answers_and_token_accounting() -> None:
    engine = EchoAsyncEngine()

    async def game(backend):
        return await asyncio.gather(*(ask(backend, "word " * i) for i in range(1, 5)))

    answers = play(FakeContinuous(engine), game)
    # 'user: word ... word' and 'assistant:' on the template's lines: i + 2 tokens
    assert [a.text for a in answers] == [f"{i + 2} tokens" for i in range(1, 5)]
    assert [a.prompt_tokens for a in answers] == [3, 4, 5, 6]
    assert answers[3].completion_tokens == 3 and answers[3].finish_reason == "stop"
    assert [a.prompt_tokens_evaluated for a in answers] == [2, 2, 2, 2]  # the rest came from the prefix cache
    assert len(set(engine.request_ids)) == 4 and engine.loads == 1  # one engine, a request id per call


def test_continuous_a_failed_request_fails_its_call_not_the_backend() -> None:
    engine = EchoAsyncEngine()
    engine.failing = {"synth-0"}

    async def game(backend):
        with pytest.raises(SynthError, match="vLLM failed: ValueError: the prompt is too long"):
            await ask(backend, "first")
        return await ask(backend, "second")

    assert play(FakeContinuous(engine), game).text == "3 tokens"


def test_continuous_a_cancelled_call_is_aborted_in_the_engine() -> None:
    engine = EchoAsyncEngine()

    async def game(backend):
        call = asyncio.create_task(ask(backend, "long", 100))
        await asyncio.sleep(5 * TICK_S)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        return await ask(backend, "next")

    assert play(FakeContinuous(engine), game).text == "3 tokens"
    assert engine.aborted == ["synth-0"]


def test_continuous_aclose_shuts_the_engine_down_once() -> None:
    engine = EchoAsyncEngine()
    backend = FakeContinuous(engine)

    async def game(backend):
        await ask(backend, "hi")
        await backend.aclose()
        assert engine.shut_down
        engine.shut_down = False

    play(backend, game)  # play's own aclose finds nothing left to stop
    assert not engine.shut_down
    asyncio.run(FakeContinuous(EchoAsyncEngine()).aclose())  # never started: nothing to stop


def test_gathered_concurrent_calls_share_a_batch_and_get_their_own_answer() -> None:
    engine = EchoLLM()

    async def game(backend):
        return await asyncio.gather(*(ask(backend, f"call {i}") for i in range(8)))

    answers = play(FakeGathered(engine), game)
    assert [a.text for a in answers] == [f"call {i}" for i in range(8)]
    assert engine.batches == [8]
    assert answers[0].prompt_tokens == 10 and answers[0].completion_tokens == 3
    assert answers[0].prompt_tokens_evaluated == 4  # 6 of 10 came from vLLM's prefix cache


def test_gathered_calls_arriving_during_a_batch_form_the_next_one() -> None:
    engine = EchoLLM()

    async def dialogue(backend, name: str) -> None:
        for turn in range(3):
            await ask(backend, f"{name} {turn}")

    async def game(backend):
        await asyncio.gather(*(dialogue(backend, f"d{i}") for i in range(4)))

    play(FakeGathered(engine), game)
    assert engine.batches == [4, 4, 4]


def test_gathered_a_failing_batch_fails_its_calls_not_the_backend() -> None:
    class Broken(EchoLLM):
        def chat(self, conversations, params, use_tqdm=False):
            if not self.batches:
                self.batches.append(0)
                raise RuntimeError("CUDA out of memory")
            return super().chat(conversations, params)

    async def game(backend):
        with pytest.raises(SynthError, match="CUDA out of memory"):
            await ask(backend, "first")
        return await ask(backend, "second")

    assert play(FakeGathered(Broken()), game).text == "second"


# ---- choosing the design, missing vLLM, models ---------------------------------------------------------------


def test_vllm_scheduling_picks_the_design_and_set_reaches_it() -> None:
    assert BackendConfig().vllm_scheduling == "continuous"
    assert isinstance(make_backend(BackendConfig(backend="vllm")), ContinuousVLLMBackend)
    settings = generate_cli.generate_settings(None, {}, ["backend=vllm", "vllm_scheduling=gathered"])
    assert isinstance(make_backend(settings), GatheredVLLMBackend)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
@pytest.mark.parametrize("design", [ContinuousVLLMBackend, GatheredVLLMBackend])
def test_without_vllm_check_says_what_to_install(design) -> None:
    with pytest.raises(SynthError, match=r"pip install 'synth-crs\[vllm\]'"):
        asyncio.run(design("unused").check())


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
