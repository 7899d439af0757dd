"""Any OpenAI-compatible endpoint (hosted API, `vllm serve`, llama.cpp servers) via the openai SDK."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from typing import Any, Literal

import openai
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from synth.errors import SynthError
from synth.llm.base import Completion, Message, ModelInfo
from synth.redaction import redact_url

log = logging.getLogger(__name__)

StructuredMode = Literal["auto", "json_schema", "json_object", "none"]
_RETRYABLE_STATUS = {408, 409, 429}
_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def is_retryable(exc: BaseException) -> bool:
    """Rate limits, server errors, timeouts, dropped connections and a 200 whose body is not a completion
    (a proxy's error page); never 4xx client errors."""
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, openai.APIResponseValidationError)):
        return True
    if isinstance(exc, json.JSONDecodeError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRYABLE_STATUS or exc.status_code >= 500
    return False


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` payload for one structured mode."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": False}}
    if mode == "json_object":  # llama_cpp.server's dialect: a schema inside json_object
        return {"type": "json_object", "schema": schema}
    return None


class OpenAIBackend:
    """Async client with tenacity retries on retryable errors only, and a concurrency cap."""

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
        self._max_attempts = max_attempts
        self._backoff_max_s = backoff_max_s

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(
            name=self._model or "unknown",
            source=redact_url(self._base_url),
            extra={"structured": self._structured},
        )

    def _retrying(self, attempts: int | None = None) -> AsyncRetrying:
        return AsyncRetrying(
            stop=stop_after_attempt(attempts or self._max_attempts),
            wait=wait_random_exponential(multiplier=0.5, max=self._backoff_max_s),
            retry=retry_if_exception(is_retryable),
            reraise=True,
        )

    async def check(self) -> None:
        """Reach the server, pick the model when none was named, and probe the structured-output mode."""
        where = redact_url(self._base_url)
        try:
            async for attempt in self._retrying(attempts=3):
                with attempt:
                    models = await self._client.models.list()
        except openai.AuthenticationError:
            raise SynthError(f"the endpoint {where} refused the API key (HTTP 401); check OPENAI_API_KEY") from None
        except openai.APIError as exc:
            raise SynthError(f"cannot reach the OpenAI-compatible endpoint {where}: {_describe(exc)}") from None
        if self._model is None:
            ids = [m.id for m in models.data]
            if not ids:
                raise SynthError(f"the endpoint {where} lists no models; pass --model")
            self._model = ids[0]
        if self._structured == "auto":
            self._structured = await self._probe_structured()
            log.info("structured output on %s: %s", where, self._structured)

    async def _probe_structured(self) -> str:
        for mode in ("json_schema", "json_object"):
            try:
                await self._client.chat.completions.create(
                    model=self._model,
                    messages=[{"role": "user", "content": 'Answer {"ok": true}'}],
                    max_tokens=8,
                    temperature=0,
                    response_format=response_format(mode, _PROBE_SCHEMA),  # type: ignore[arg-type]
                )
                return mode
            except openai.APIStatusError as exc:
                log.info("structured mode %s refused (HTTP %s)", mode, exc.status_code)
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
            async for attempt in self._retrying():
                with attempt:
                    out = await self._client.chat.completions.create(**kwargs)
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


def _describe(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__.removeprefix("API")
