"""The continuous design of the vllm backend (the default, `vllm_scheduling: continuous`): vLLM's async engine.

Each `complete()` renders its chat with the model's template and hands it to `AsyncLLMEngine.generate`.
vLLM's scheduler adds the new sequence to the batch it is decoding at its next step, and the call returns as
soon as its own sequence finishes while the others go on: with `--concurrency C`, up to C dialogues' calls
decode together and none waits for another's (the gathered design, vllm_gathered.py, waits for the slowest
call of its batch).
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any

from synth.errors import SynthError
from synth.llm.base import Message
from synth.llm.vllm_common import VLLM_EXTRA_HINT, VLLMEngineBackend, engine_failed


class ContinuousVLLMBackend(VLLMEngineBackend):
    """One vLLM async engine; each call joins its running batch and returns when its own sequence ends."""

    def __init__(self, model: str | None = None, *, max_model_len: int = 4096, **engine_args: Any) -> None:
        super().__init__(model, max_model_len=max_model_len, **engine_args)
        self._tokenizer: Any = None
        self._request_ids = itertools.count()

    def _load(self) -> Any:
        try:
            from vllm import AsyncEngineArgs, AsyncLLMEngine
        except ImportError:
            raise SynthError(VLLM_EXTRA_HINT) from None

        def make_engine(**arguments: Any) -> Any:
            # vllm.LLM's default: no engine stats kept; --vllm-arg disable_log_stats=false keeps them
            return AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**{"disable_log_stats": True, **arguments}))

        return self._build(make_engine)

    async def _started(self) -> None:
        tokenizer = self._engine.get_tokenizer()
        self._tokenizer = await tokenizer if inspect.isawaitable(tokenizer) else tokenizer  # a coroutine in older vLLMs

    def _sampling_params(self, options: dict[str, Any], json_schema: dict[str, Any] | None) -> Any:
        from vllm.sampling_params import RequestOutputKind

        # the finished sequence only: no output per decoded token to pass along
        return super()._sampling_params({**options, "output_kind": RequestOutputKind.FINAL_ONLY}, json_schema)

    def _prompt(self, messages: list[Message]) -> dict[str, list[int]]:
        """The chat as token ids, rendered as `LLM.chat` renders it: the model's template, no second BOS."""
        text = self._tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return {"prompt_token_ids": self._tokenizer.encode(text, add_special_tokens=False)}

    async def _generate(self, messages: list[Message], params: Any) -> Any:
        final = None
        request_id = f"synth-{next(self._request_ids)}"
        try:
            async for output in self._engine.generate(self._prompt(messages), params, request_id):
                final = output
        except Exception as exc:  # vLLM wraps the cause of a failed request (EngineGenerateError from the cause)
            raise engine_failed(exc.__cause__ or exc) from exc
        return final

    async def aclose(self) -> None:
        """Shut the engine down: its core process ends and its memory is freed."""
        if self._engine is not None:
            self._engine.shutdown()
            self._engine = None
