"""Any OpenAI-compatible endpoint (hosted API, `vllm serve`, llama.cpp servers) via the openai SDK."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any, Literal

import openai

from synth.errors import SynthError
from synth.llm.base import Completion, Message, ModelInfo
from synth.llm.retries import RetryPolicy, describe
from synth.redaction import redact_url

log = logging.getLogger(__name__)

StructuredMode = Literal["auto", "json_schema", "json_object", "none"]
_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


class _Refused(Exception):
    """A server error that is the server's answer about a request field (not a transient fault)."""


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` payload for one structured mode."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": False}}
    if mode == "json_object":  # llama_cpp.server's dialect: a schema inside json_object
        return {"type": "json_object", "schema": schema}
    return None


class OpenAIBackend:
    """Async client whose every request, start-up checks included, goes through one RetryPolicy (transient faults
    only), with a concurrency cap."""

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        structured: StructuredMode = "auto",
        max_concurrency: int = 16,
        max_attempts: int = 6,
        timeout_s: float = 120.0,
        backoff_max_s: float = 30.0,
    ):
        self._base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._client = openai.AsyncOpenAI(base_url=self._base_url, api_key=key, max_retries=0, timeout=timeout_s)
        self._model = model
        self._structured: str = structured
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._policy = RetryPolicy(attempts=max_attempts, backoff_max_s=backoff_max_s)
        self._where = f"the OpenAI-compatible endpoint {redact_url(self._base_url)}"

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(
            name=self._model or "unknown",
            source=redact_url(self._base_url),
            extra={"structured": self._structured},
        )

    async def check(self) -> None:
        """Reach the server, pick the model when none was named, and probe the structured-output mode; a transient
        fault is tried again under the same policy as every request, never read as an answer."""
        try:
            models = await self._policy.run(self._client.models.list, self._where)
        except openai.AuthenticationError:
            raise SynthError(f"{self._where} refused the API key (HTTP 401); check OPENAI_API_KEY") from None
        except openai.APIError as exc:
            raise SynthError(f"cannot use {self._where}: {describe(exc)}") from None
        if self._model is None:
            ids = [m.id for m in models.data]
            if not ids:
                raise SynthError(f"{self._where} lists no models; pass --model")
            self._model = ids[0]
        if self._structured == "auto":
            self._structured = await self._probe_structured()
            log.info("structured output on %s: %s", redact_url(self._base_url), self._structured)

    async def _probe_structured(self) -> str:
        """The first structured mode the server accepts. A mode is refused only by the server's answer: a client
        error (4xx), or a server error whose message names the `response_format` it could not take (llama_cpp.server
        answers json_schema with a 500 that says so); any other fault is retried, never read as a refusal."""
        for mode in ("json_schema", "json_object"):

            async def ask(mode: str = mode) -> Any:
                try:
                    return await self._client.chat.completions.create(
                        model=self._model,
                        messages=[{"role": "user", "content": 'Answer {"ok": true}'}],
                        max_tokens=8,
                        temperature=0,
                        response_format=response_format(mode, _PROBE_SCHEMA),  # type: ignore[arg-type]
                    )
                except openai.APIStatusError as exc:
                    if exc.status_code >= 500 and "response_format" in exc.response.text:
                        raise _Refused(exc.status_code) from None
                    raise

            try:
                await self._policy.run(ask, self._where)
                return mode
            except (openai.APIStatusError, _Refused) as exc:  # transient faults were retried: this is an answer
                log.info("structured mode %s refused (HTTP %s)", mode, getattr(exc, "status_code", exc))
        return "none"

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
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if stop:
            kwargs["stop"] = stop
        if json_schema is not None and self._structured in ("json_schema", "json_object"):
            kwargs["response_format"] = response_format(self._structured, json_schema)
        elif grammar is not None:
            kwargs["extra_body"] = {"grammar": grammar}  # llama.cpp servers take GBNF this way
        async with self._semaphore:
            start = time.perf_counter()
            out = await self._policy.run(lambda: self._client.chat.completions.create(**kwargs), self._where)
            latency = time.perf_counter() - start
        choice = out.choices[0]
        usage = out.usage
        return Completion(
            text=choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            finish_reason=choice.finish_reason,
            latency_s=latency,
        )

    async def aclose(self) -> None:
        await self._client.close()

