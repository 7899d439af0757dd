"""The one async chat-backend interface every LLM backend implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}


@dataclass(frozen=True)
class Completion:
    """One model answer with its token accounting."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    latency_s: float = 0.0
    prompt_tokens_evaluated: int | None = None  # computed, not served from a KV cache (None: unknown)
    decode_s: float | None = None  # of latency_s, the time spent generating the reply's tokens (None: unknown)
    completion_tokens_forced: int | None = None  # of completion_tokens, those the grammar forced, read not decoded


@dataclass(frozen=True)
class ModelInfo:
    """What a run records about the model it used."""

    name: str
    source: str  # a path, 'hf:REPO/FILE', a package name or a URL
    sha256: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ChatBackend(Protocol):
    """An async chat model. Implementations batch or run concurrently inside."""

    name: str

    @property
    def model_info(self) -> ModelInfo: ...

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
        """Answer one chat. `grammar` (GBNF) or `json_schema` constrains the reply where supported."""
        ...

    async def check(self) -> None:
        """Fail fast with a SynthError when the backend cannot serve (missing model, unreachable URL)."""
        ...

    async def aclose(self) -> None:
        """Release the model or the connection pool."""
        ...
