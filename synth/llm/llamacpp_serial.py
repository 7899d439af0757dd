"""The embedded backend as it was before batching: one call at a time through llama-cpp-python's
`create_chat_completion`, the grammar applied to the whole vocabulary at every token. Kept as
`--backend llamacpp-serial`, the baseline that `benchmarks/perf/embedded.py` measures the default against."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from synth.errors import SynthError
from synth.llm.base import Completion, Message, ModelInfo
from synth.llm.engine_check import load_llama
from synth.llm.gguf_models import ResolvedModel, embedded_model_info, resolve_model
from synth.llm.llamacpp import EMBEDDED_EXTRA_HINT, grammar_for

T = TypeVar("T")


def _prompt_text(messages: list[Message]) -> str:
    return "\x00".join(f"{m['role']}\x01{m['content']}" for m in messages)


@dataclass
class _Slot:
    """One llama.cpp context and the prompt it evaluated last."""

    context: Any
    prompt: str = ""
    used: int = 0

    def shared_prefix(self, text: str) -> int:
        return len(os.path.commonprefix([self.prompt, text]))


class SerialLlamaCppBackend:
    """One in-process model; calls are serialised and run off the event loop.

    A dialogue's prompts grow by a turn at a time, but the seeker and the recommender alternate with
    different prompts, so one context would re-read the whole prompt on every call. A small pool of
    contexts sharing the memory-mapped weights avoids that: each call goes to the context whose last
    prompt shares the longest prefix with it (as llama-server picks a slot), and llama.cpp evaluates only
    the tokens after that prefix. With two contexts, one dialogue at a time (calls are serialised, so
    more in flight gain nothing here) keeps each role's transcript evaluated, and the recommender's
    instructions stay evaluated across dialogues.
    """

    name = "llamacpp-serial"

    def __init__(
        self, model: str | None = None, *, n_ctx: int = 4096, n_threads: int | None = None, n_contexts: int = 2
    ):
        self._spec = model
        self._n_ctx = n_ctx
        self._n_threads = n_threads or os.cpu_count() or 1
        self._n_contexts = max(1, n_contexts)
        self._clock = 0
        self._resolved: ResolvedModel | None = None
        self._contexts: list[_Slot] = []
        # Every llama.cpp call runs on this one thread, in order: llama.cpp (built with OpenMP) keeps a
        # thread team per calling thread, and teams on several threads fight over the cores. The order
        # also means aclose() frees the contexts only after a call in flight (cancelled by Ctrl-C) ends.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llamacpp")
        self._evaluated: dict[int, tuple[int, float]] = {}  # id(context) -> prompt tokens evaluated, their ms

    @property
    def model_info(self) -> ModelInfo:
        return embedded_model_info(self._spec, self._resolved, self._n_ctx)

    def _new_context(self) -> Any:
        if importlib.util.find_spec("llama_cpp") is None:
            raise SynthError(EMBEDDED_EXTRA_HINT)
        if self._resolved is None:
            self._resolved = resolve_model(self._spec)
        try:
            return load_llama(self._resolved.path, n_ctx=self._n_ctx, n_threads=self._n_threads, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise SynthError(f"cannot load model {self._resolved.path}: {exc}") from None

    def _context_for(self, messages: list[Message]) -> Any:
        """The context whose last prompt shares the longest prefix with these messages, when that covers
        the whole system prompt; else an unused or new context while the pool has room, else the least
        recently used one."""
        text = _prompt_text(messages)
        system_chars = len(_prompt_text(messages[:1])) if messages and messages[0]["role"] == "system" else 1
        self._clock += 1
        best = max(self._contexts, key=lambda slot: (slot.shared_prefix(text), -slot.used), default=None)
        if best is None or best.shared_prefix(text) < system_chars:
            unused = [slot for slot in self._contexts if not slot.prompt]
            if unused:
                best = unused[0]
            elif len(self._contexts) < self._n_contexts:
                best = _Slot(self._new_context())
                self._contexts.append(best)
            else:
                best = min(self._contexts, key=lambda slot: slot.used)
        best.prompt, best.used = text, self._clock
        return best.context

    async def _on_llama_thread(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)

    async def check(self) -> None:
        """Resolve and load the model once, so a missing or broken file fails before any dialogue."""
        if not self._contexts:
            self._contexts.append(_Slot(await self._on_llama_thread(self._new_context)))

    def _complete_sync(self, messages: list[Message], kwargs: dict[str, Any]) -> tuple[dict[str, Any], int, float]:
        """The completion, how many prompt tokens llama.cpp evaluated for it (the rest came from the
        context's KV cache: the longest prefix shared with what the context held) and the seconds it took."""
        from llama_cpp import llama_perf_context

        context = self._context_for(messages)
        out = context.create_chat_completion(messages=messages, **kwargs)
        perf = llama_perf_context(context._ctx.ctx)  # cumulative per context
        evaluated_before, prompt_ms_before = self._evaluated.get(id(context), (0, 0.0))
        self._evaluated[id(context)] = (int(perf.n_p_eval), float(perf.t_p_eval_ms))
        return out, int(perf.n_p_eval) - evaluated_before, (float(perf.t_p_eval_ms) - prompt_ms_before) / 1000

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: list[str] | None = None,
        grammar: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        from llama_cpp import LlamaGrammar

        await self.check()
        if json_schema is not None and grammar is None:
            grammar = grammar_for(json_schema)
        kwargs: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature, "stop": stop or []}
        if seed is not None:
            kwargs["seed"] = seed
        if grammar is not None:
            kwargs["grammar"] = LlamaGrammar.from_string(grammar, verbose=False)
        start = time.perf_counter()
        out, evaluated, prompt_s = await self._on_llama_thread(self._complete_sync, messages, kwargs)
        latency = time.perf_counter() - start
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"]["content"] or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            finish_reason=choice.get("finish_reason"),
            latency_s=latency,
            prompt_tokens_evaluated=evaluated,
            decode_s=max(latency - prompt_s, 0.0),
        )

    async def aclose(self) -> None:
        """Free the contexts, after the call in flight (if Ctrl-C cancelled its task) has finished."""
        await self._on_llama_thread(self._close_contexts)
        self._thread.shutdown(wait=True)  # the thread ends, and its OpenMP team with it

    def _close_contexts(self) -> None:
        for slot in self._contexts:
            slot.context.close()
        self._contexts.clear()
