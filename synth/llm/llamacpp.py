"""The embedded default backend: llama.cpp in this process, several dialogues decoded together.

With `--concurrency K`, the K dialogues in flight share each forward pass (`synth.llm.llama_batch`): one
llama.cpp context with a sequence per dialogue and role, so each role's growing transcript
stays evaluated and only the new turn is read. Replies under a JSON schema follow it through llguidance at
almost no cost per token, and the tokens it forces are read at prompt speed instead of decoded.

Batching changes the floating-point rounding of the matrix products, so a reply can depend on which other
requests shared its batches (a greedy near-tie decided the other way): with K > 1 two runs with the same
seed can differ; with K = 1 they are the same. The request cache replays every finished call exactly, so
a resumed run keeps what it wrote. See docs/generation.md.
"""

from __future__ import annotations

import asyncio
import json
import os
from functools import lru_cache
from typing import Any

from synth.errors import SynthError
from synth.llm.base import Completion, Message, ModelInfo
from synth.llm.gguf_models import ResolvedModel, embedded_model_info, resolve_model

# A sequence per dialogue and role (the seeker's and the recommender's transcripts), and one more, so that a
# new dialogue's seeker need not take the slot that holds the recommender's instructions.
SPARE_SLOTS = 1
EMBEDDED_EXTRA_HINT = "the embedded backend needs llama-cpp-python: pip install 'synth-crs[embedded]'"


@lru_cache(maxsize=256)
def _schema_json_to_gbnf(schema_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(schema_json)


def grammar_for(json_schema: dict[str, Any]) -> str:
    """GBNF grammar text for a JSON schema (llama.cpp's own converter). The properties keep their order,
    which is the order the model must write them in (a recommender's "think" before its "item")."""
    return _schema_json_to_gbnf(json.dumps(json_schema))


class LlamaCppBackend:
    """One model in this process; up to `parallel` calls decode together, the rest wait their turn."""

    name = "llamacpp"

    def __init__(
        self, model: str | None = None, *, n_ctx: int = 4096, n_threads: int | None = None, parallel: int = 1
    ) -> None:
        self._spec = model
        self._n_ctx = n_ctx
        self._n_threads = n_threads or os.cpu_count() or 1
        self._parallel = max(1, parallel)
        self._resolved: ResolvedModel | None = None
        self._engine: Any = None
        self._formatter: Any = None
        self._starting = asyncio.Lock()

    @property
    def model_info(self) -> ModelInfo:
        return embedded_model_info(self._spec, self._resolved, self._n_ctx)

    def _start(self) -> None:
        try:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            from synth.llm.llama_batch import BatchEngine
        except ImportError:
            raise SynthError(EMBEDDED_EXTRA_HINT) from None
        if self._resolved is None:
            self._resolved = resolve_model(self._spec)
        try:
            engine = BatchEngine(
                str(self._resolved.path), n_ctx=self._n_ctx, slots=2 * self._parallel + SPARE_SLOTS,
                n_threads=self._n_threads,
            )
        except (ValueError, RuntimeError) as exc:
            raise SynthError(f"cannot load model {self._resolved.path}: {exc}") from None
        llama = engine.llama
        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            engine.close()
            raise SynthError(f"{self._resolved.path} has no chat template in its metadata")
        eos = llama.token_eos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=llama._model.token_get_text(eos),
            bos_token=llama._model.token_get_text(llama.token_bos()),
            stop_token_ids=[eos],
        )
        self._engine = engine

    async def check(self) -> None:
        """Resolve and load the model once, so a missing or broken file fails before any dialogue."""
        async with self._starting:
            if self._engine is None:
                await asyncio.to_thread(self._start)

    def prompt_tokens(self, messages: list[Message]) -> list[int]:
        """The chat rendered by the model's own template, as tokens."""
        rendered = self._formatter(messages=messages)
        return self._engine.llama.tokenize(rendered.prompt.encode(), add_bos=not rendered.added_special, special=True)

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
        from synth.llm.llama_batch import Request

        await self.check()
        request = Request(
            prompt=self.prompt_tokens(messages), max_tokens=max_tokens, temperature=temperature, seed=seed,
            stop=stop or [], grammar=grammar,
            json_schema=json.dumps(json_schema) if json_schema is not None and grammar is None else None,
        )
        loop = asyncio.get_running_loop()
        started = loop.time()
        result = await asyncio.wrap_future(self._engine.submit(request))
        return Completion(
            text=result.text,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            finish_reason=result.finish_reason,
            latency_s=loop.time() - started,
            prompt_tokens_evaluated=result.prompt_tokens_evaluated,
            decode_s=result.decode_s,
            completion_tokens_forced=result.forced_tokens,
        )

    async def aclose(self) -> None:
        """Finish the calls in flight (Ctrl-C cancels their tasks, not their requests), then free the model."""
        if self._engine is not None:
            await asyncio.to_thread(self._engine.close)
            self._engine = None
