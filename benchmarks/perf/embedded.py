"""The embedded backend measured in one process on one model: what `synth generate` adds to raw llama.cpp
calls (pipeline efficiency), and what keeping each role's context evaluated saves (KV reuse)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.config import GenerateConfig
from synth.llm.base import ChatBackend, Completion, Message, ModelInfo
from synth.llm.llamacpp import LlamaCppBackend
from synth.records import DialogueRecord
from synth.runner import generate
from synth.runs.layout import DIALOGUES_FILE
from synth.runs.records import finished_records


class RecordingBackend:
    """Passes every call to `inner` and keeps its messages and options, to replay them raw later."""

    def __init__(self, inner: ChatBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[list[Message], dict[str, Any]]] = []

    @property
    def model_info(self) -> ModelInfo:
        return self.inner.model_info

    async def complete(self, messages: list[Message], **options: Any) -> Completion:
        self.calls.append((messages, options))
        return await self.inner.complete(messages, **options)

    async def check(self) -> None:
        await self.inner.check()

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class RunFigures:
    """One `generate` run (model loading excluded) or one raw replay of its calls."""

    label: str
    dialogues: int
    wall_s: float
    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_evaluated: int | None = None
    evaluated_share_after_first: float | None = None  # the first dialogue warms the recommender's context

    @property
    def dialogues_per_s(self) -> float:
        return self.dialogues / self.wall_s

    @property
    def completion_tokens_per_s(self) -> float:
        return self.completion_tokens / self.wall_s


def _figures(label: str, records: list[DialogueRecord], wall_s: float) -> RunFigures:
    evaluated = [r.generation.prompt_tokens_evaluated or 0 for r in records]
    sent = [r.generation.prompt_tokens for r in records]
    return RunFigures(
        label=label,
        dialogues=len(records),
        wall_s=wall_s,
        prompt_tokens=sum(sent),
        completion_tokens=sum(r.generation.completion_tokens for r in records),
        prompt_tokens_evaluated=sum(evaluated),
        evaluated_share_after_first=sum(evaluated[1:]) / max(sum(sent[1:]), 1) if len(records) > 1 else None,
    )


async def _timed_generate(config: GenerateConfig, out: Path, backend: ChatBackend) -> tuple[float, list[DialogueRecord]]:
    await backend.check()  # loading the model is not part of the figure
    started = time.perf_counter()
    await generate(config, out, backend=backend, overwrite=True)
    wall = time.perf_counter() - started
    return wall, list(finished_records(out / DIALOGUES_FILE))


def replay_raw(
    model_path: Path, calls: list[tuple[list[Message], dict[str, Any]]], *, dialogues: int, n_ctx: int
) -> RunFigures:
    """The same calls straight through llama_cpp.Llama.create_chat_completion, one context per system
    prompt (two at most, as synth keeps), grammars converted beforehand."""
    from llama_cpp import Llama, LlamaGrammar, llama_perf_context
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    threads = os.cpu_count() or 1
    grammars = [json_schema_to_gbnf(json.dumps(o["json_schema"])) if o.get("json_schema") else None for _, o in calls]
    contexts: OrderedDict[str, Llama] = OrderedDict()
    contexts[""] = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=threads, verbose=False)
    prompt = completion = 0
    started = time.perf_counter()
    for (messages, options), grammar in zip(calls, grammars, strict=True):
        system = messages[0]["content"]
        if system in contexts:
            contexts.move_to_end(system)
        elif "" in contexts or len(contexts) < 2:
            contexts[system] = contexts.pop("", None) or Llama(
                model_path=str(model_path), n_ctx=n_ctx, n_threads=threads, verbose=False
            )
        else:
            contexts[system] = contexts.popitem(last=False)[1]
        out = contexts[system].create_chat_completion(
            messages=messages,
            max_tokens=options["max_tokens"],
            temperature=options.get("temperature", 0.0),
            seed=options.get("seed"),
            stop=options.get("stop") or [],
            grammar=LlamaGrammar.from_string(grammar, verbose=False) if grammar else None,
        )
        prompt += out["usage"]["prompt_tokens"]
        completion += out["usage"]["completion_tokens"]
    wall = time.perf_counter() - started
    evaluated = sum(int(llama_perf_context(c._ctx.ctx).n_p_eval) for c in contexts.values())
    for context in contexts.values():
        context.close()
    return RunFigures("raw llama.cpp, the same calls", dialogues, wall, prompt, completion, evaluated)


@dataclass
class EmbeddedFigures:
    model: str
    reuse: RunFigures  # synth generate, a context per role
    raw: RunFigures  # the reuse run's calls, replayed raw
    naive: RunFigures | None  # synth generate, one context for both roles (when asked for)

    @property
    def pipeline_efficiency(self) -> float:
        """Output tokens/s of synth generate over that of raw llama.cpp on the same calls."""
        return self.reuse.completion_tokens_per_s / self.raw.completion_tokens_per_s


def measure_embedded(
    model: str, n: int, scratch: Path, *, naive: bool = True, seed: int = 0, max_utterances: int | None = None
) -> EmbeddedFigures:
    """Runs on one model file: synth with KV reuse, its calls raw, and (`naive`) synth with one context."""
    config = GenerateConfig(
        n=n, seed=seed, model=model, progress=False, request_cache=False, max_utterances=max_utterances
    )
    recorder = RecordingBackend(LlamaCppBackend(model, n_ctx=config.n_ctx, n_contexts=2))
    wall, records = asyncio.run(_timed_generate(config, scratch / "reuse", recorder))
    reuse = _figures("synth generate, a context per role", records, wall)
    model_path = recorder.inner._resolved.path  # type: ignore[attr-defined]
    # on a thread of its own that then ends, as the backend does: llama.cpp's OpenMP keeps a thread team
    # per calling thread, and two teams alive at once slow both down on a small machine
    with ThreadPoolExecutor(max_workers=1) as thread:
        raw = thread.submit(replay_raw, model_path, recorder.calls, dialogues=reuse.dialogues, n_ctx=config.n_ctx).result()
    one_context = None
    if naive:
        single = LlamaCppBackend(model, n_ctx=config.n_ctx, n_contexts=1)
        wall, records = asyncio.run(_timed_generate(config, scratch / "naive", single))
        one_context = _figures("synth generate, one context (naive)", records, wall)
    return EmbeddedFigures(recorder.model_info.name, reuse, raw, one_context)

