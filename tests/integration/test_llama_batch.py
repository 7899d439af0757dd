"""The embedded backend's batch engine on the real packaged SmolLM2 (llama.cpp through llama-cpp-python):
calls in flight share batches and stay in format (the tokens the grammar forces read, not decoded), each
role's prompt is evaluated once, and limits, stop strings and bad requests behave."""

from __future__ import annotations

import asyncio
import json

import pytest

from synth.errors import SynthError
from synth.llm.llamacpp import LlamaCppBackend
from tests.helpers import SMOLLM

pytestmark = pytest.mark.integration

SCHEMA = {
    "type": "object",
    "properties": {"think": {"type": "string", "maxLength": 60}, "utterance": {"type": "string", "maxLength": 80}},
    "required": ["think", "utterance"],
}


def chat(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def run(backend: LlamaCppBackend, work):
    async def go():
        try:
            return await work(backend)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_calls_in_flight_share_batches_and_each_keeps_its_grammar() -> None:
    backend = LlamaCppBackend(SMOLLM, n_ctx=1024, parallel=3)
    users = ["I love heist movies.", "Something scary for tonight?", "A cartoon for my kids, please."]

    async def work(b: LlamaCppBackend):
        calls = [
            b.complete(chat("You recommend movies. Answer in JSON.", u), max_tokens=96, seed=i, json_schema=SCHEMA)
            for i, u in enumerate(users)
        ]
        return await asyncio.gather(*calls), b._engine.widest_step

    completions, widest = run(backend, work)
    assert widest >= 2, "the three calls never shared a batch"
    for completion in completions:
        reply = json.loads(completion.text)  # the grammar keeps even the tiny model in format
        assert list(reply) == ["think", "utterance"] and completion.text.startswith('{"think": "')
        assert completion.finish_reason == "stop" and completion.completion_tokens > 0
        # the keys, quotes and separators were forced: read with the sampled tokens, not decoded one by one
        assert 0 < completion.completion_tokens_forced < completion.completion_tokens


def test_a_growing_prompt_is_evaluated_only_past_what_its_slot_holds() -> None:
    backend = LlamaCppBackend(SMOLLM, n_ctx=1024)
    system = "You are a movie recommender who asks short questions. " * 4
    first = chat(system, "The conversation so far:\nSeeker: Hi!\nWrite your next message.")
    later = chat(system, "The conversation so far:\nSeeker: Hi!\nRecommender: What do you like?\nSeeker: Heists.\n"
                 "Write your next message.")
    other_role = chat("You play a movie fan who loves heists and hates horror. " * 4, "Say hello.")

    async def work(b: LlamaCppBackend):
        out = [await b.complete(first, max_tokens=8)]
        out.append(await b.complete(other_role, max_tokens=8))  # takes the other slot, not the recommender's
        out.append(await b.complete(later, max_tokens=8))
        return out, b.prompt_tokens(first), b.prompt_tokens(later)

    (one, other, three), first_tokens, later_tokens = run(backend, work)
    assert one.prompt_tokens_evaluated == one.prompt_tokens
    assert other.prompt_tokens_evaluated == other.prompt_tokens
    shared = next(i for i, (a, b) in enumerate(zip(first_tokens, later_tokens)) if a != b)
    assert three.prompt_tokens_evaluated == three.prompt_tokens - shared < three.prompt_tokens / 2


def test_one_call_at_a_time_gives_the_same_replies_in_a_new_process_state() -> None:
    """The same seed gives the same sampled replies from a fresh engine, and the seed is what decides them: other
    seeds give other replies (a sampler that ignored the seed, or drew greedily, would repeat itself)."""
    prompts = [chat("You recommend movies.", f"Suggest a movie about {topic}.") for topic in ("space", "dogs")]

    def with_seed(seed: int):
        async def work(b: LlamaCppBackend):
            return [(await b.complete(p, max_tokens=24, temperature=0.8, seed=seed)).text for p in prompts]

        return work

    first = run(LlamaCppBackend(SMOLLM, n_ctx=1024), with_seed(5))
    assert all(text.strip() for text in first) and first[0] != first[1]
    assert run(LlamaCppBackend(SMOLLM, n_ctx=1024), with_seed(5)) == first
    others = [tuple(run(LlamaCppBackend(SMOLLM, n_ctx=1024), with_seed(seed))) for seed in (6, 7, 8)]
    assert any(replies != tuple(first) for replies in others), "other seeds gave the seed-5 replies"


def test_max_tokens_stop_strings_and_bad_requests() -> None:
    backend = LlamaCppBackend(SMOLLM, n_ctx=256)
    prompt = chat("You count.", "Count from 1 to 50, separated by commas.")

    async def work(b: LlamaCppBackend):
        limited = await b.complete(prompt, max_tokens=5)
        stopped = await b.complete(prompt, max_tokens=60, stop=["5"])
        with pytest.raises(SynthError, match="could not parse the reply's grammar"):
            await b.complete(prompt, max_tokens=5, grammar="root ::= (")
        with pytest.raises(SynthError, match="exceeds the context of 256 tokens"):
            await b.complete(chat("x", "word " * 400), max_tokens=5)
        after = await b.complete(prompt, max_tokens=5)  # the engine still serves
        return limited, stopped, after

    limited, stopped, after = run(backend, work)
    assert limited.finish_reason == "length" and limited.completion_tokens == 5
    assert stopped.finish_reason == "stop" and "5" not in stopped.text
    assert after.finish_reason == "length" and after.completion_tokens == 5


def test_a_missing_model_fails_at_check() -> None:
    backend = LlamaCppBackend("/nonexistent/model.gguf")
    with pytest.raises(SynthError):
        asyncio.run(backend.check())


def test_a_cancelled_call_stops_and_frees_its_slot() -> None:
    backend = LlamaCppBackend(SMOLLM, n_ctx=1024)  # 3 slots
    prompt = chat("You tell long stories.", "Tell me a very long story about a lighthouse keeper.")

    async def work(b: LlamaCppBackend):
        await b.check()
        long_calls = [asyncio.create_task(b.complete(prompt, max_tokens=900, seed=i)) for i in range(3)]
        while b._engine.widest_step < 3:  # all three are decoding
            await asyncio.sleep(0.05)
        for task in long_calls:
            task.cancel()
        after = await b.complete(prompt, max_tokens=5)
        # had the cancelled calls gone on to 900 tokens, they would still hold their slots now
        return after, [task.cancelled() for task in long_calls], len(b._engine._free)

    after, cancelled, free_slots = run(backend, work)
    assert cancelled == [True, True, True]
    assert after.completion_tokens == 5 and free_slots == 3
