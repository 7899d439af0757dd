"""Build the backend that a configuration names (heavy imports happen only for the one chosen)."""

from __future__ import annotations

from synth.config import BackendSettings
from synth.llm.base import ChatBackend


def make_backend(settings: BackendSettings) -> ChatBackend:
    """The embedded llama.cpp model, the vLLM offline engine or an OpenAI-compatible endpoint."""
    if settings.backend == "llamacpp":
        from synth.llm.llamacpp import LlamaCppBackend

        return LlamaCppBackend(settings.model, n_ctx=settings.n_ctx, n_threads=settings.n_threads)
    if settings.backend == "vllm":
        from synth.llm.vllm_offline import VLLMBackend

        return VLLMBackend(settings.model, max_model_len=settings.n_ctx, **settings.vllm_engine_args)
    from synth.llm.openai_compat import OpenAIBackend

    return OpenAIBackend(
        settings.model,
        base_url=settings.base_url,
        structured=settings.structured,
        max_concurrency=settings.concurrency,
        max_attempts=settings.api_max_attempts,
        timeout_s=settings.request_timeout_s,
    )
