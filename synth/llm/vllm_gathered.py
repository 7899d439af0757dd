"""The gathered design of the vllm backend (`vllm_scheduling: gathered`): one `vllm.LLM`, calls batched.

`vllm.LLM` is synchronous and fastest when it gets many prompts at once, while synth's games ask one call
at a time each. `complete()` therefore queues its call and a batcher hands everything queued to one
`LLM.chat` call; with `--concurrency C`, up to C calls from different dialogues share a batch, and each
waits for the batch's slowest. The continuous design (vllm_continuous.py) removes that wait; this one stays
selectable so the two can be measured side by side (benchmarks/perf/vllm_batching.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from synth.errors import SynthError
from synth.llm.base import Message
from synth.llm.vllm_common import VLLM_EXTRA_HINT, VLLMEngineBackend, engine_failed


@dataclass
class _Request:
    messages: list[Message]
    params: Any  # vllm.SamplingParams
    done: asyncio.Future[Any] = field(repr=False)


class GatheredVLLMBackend(VLLMEngineBackend):
    """One `vllm.LLM` engine; concurrent calls are batched into single `LLM.chat` calls."""

    def __init__(
        self, model: str | None = None, *, max_model_len: int = 4096, max_batch: int = 256, **engine_args: Any
    ) -> None:
        super().__init__(model, max_model_len=max_model_len, **engine_args)
        self._max_batch = max_batch
        self._queue: asyncio.Queue[_Request] | None = None
        self._batcher: asyncio.Task[None] | None = None

    def _load(self) -> Any:
        try:
            from vllm import LLM
        except ImportError:
            raise SynthError(VLLM_EXTRA_HINT) from None
        return self._build(LLM)

    async def _started(self) -> None:
        self._queue = asyncio.Queue()  # bound to this event loop, as the batcher is
        self._batcher = asyncio.create_task(self._run_batches())

    async def _generate(self, messages: list[Message], params: Any) -> Any:
        request = _Request(messages, params, asyncio.get_running_loop().create_future())
        assert self._queue is not None
        await self._queue.put(request)
        return await request.done

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
                        request.done.set_exception(engine_failed(exc))
                continue
            for request, output in zip(batch, outputs, strict=True):
                if not request.done.done():
                    request.done.set_result(output)

    def _chat(self, batch: list[_Request]) -> list[Any]:
        return self._engine.chat([r.messages for r in batch], [r.params for r in batch], use_tqdm=False)

    async def aclose(self) -> None:
        """Stop the batcher and free the engine."""
        if self._batcher is not None:
            self._batcher.cancel()
            await asyncio.gather(self._batcher, return_exceptions=True)
            self._batcher = None
        self._engine = None
