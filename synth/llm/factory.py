"""The backend registry: each name a configuration may give maps to the function that builds it (heavy
imports happen inside, only for the one chosen). Every registry in synth has this style: a module-level
dict from name to class or builder, in the order it is listed; see also `synth.retrievers.factory.RETRIEVERS`,
`synth.filters.config.FILTERS` and `synth.benchmarks.crs.registry`."""

from __future__ import annotations

from collections.abc import Callable

from synth.config import BackendConfig
from synth.llm.base import ChatBackend


def _llamacpp(settings: BackendConfig) -> ChatBackend:
    from synth.llm.llamacpp import LlamaCppBackend

    return LlamaCppBackend(settings.model, n_ctx=settings.n_ctx, n_threads=settings.n_threads, parallel=settings.concurrency)


def _llamacpp_serial(settings: BackendConfig) -> ChatBackend:
    from synth.llm.llamacpp_serial import SerialLlamaCppBackend

    return SerialLlamaCppBackend(settings.model, n_ctx=settings.n_ctx, n_threads=settings.n_threads)


def _vllm(settings: BackendConfig) -> ChatBackend:
    if settings.vllm_scheduling == "gathered":
        from synth.llm.vllm_gathered import GatheredVLLMBackend as VLLMBackend
    else:
        from synth.llm.vllm_continuous import ContinuousVLLMBackend as VLLMBackend
    return VLLMBackend(settings.model, max_model_len=settings.n_ctx, **settings.vllm_engine_args)


def _openai(settings: BackendConfig) -> ChatBackend:
    from synth.llm.openai_compat import OpenAIBackend

    return OpenAIBackend(
        settings.model,
        base_url=settings.base_url,
        structured=settings.structured,
        max_concurrency=settings.concurrency,
        max_attempts=settings.api_max_attempts,
        timeout_s=settings.request_timeout_s,
        rpm=settings.rpm,
        tpm=settings.tpm,
    )


# The embedded llama.cpp model (the default; dialogues in flight decode together), the same model one call at a
# time as before batching (the speed benchmark's baseline), the vLLM offline engine, an OpenAI-compatible endpoint.
BACKENDS: dict[str, Callable[[BackendConfig], ChatBackend]] = {
    "llamacpp": _llamacpp,
    "llamacpp-serial": _llamacpp_serial,
    "vllm": _vllm,
    "openai": _openai,
}


def make_backend(settings: BackendConfig) -> ChatBackend:
    """The backend that `settings.backend` names, built from `settings`."""
    return BACKENDS[settings.backend](settings)
