"""Any OpenAI-compatible endpoint (hosted API, `vllm serve`, llama.cpp servers) via the openai SDK."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import httpx2
import openai
from openai._constants import RAW_RESPONSE_HEADER
from openai.types.chat import ChatCompletion

from synth.errors import SynthError
from synth.llm.adaptive import AdaptiveConcurrency
from synth.llm.base import Completion, Message, ModelInfo
from synth.llm.rate_limits import RateLimits, estimate_tokens
from synth.llm.retries import NotACompletion, RetryPolicy, closed_before_answer, describe, is_transient, retry_after
from synth.llm.traffic import Traffic
from synth.redaction import redact_url

log = logging.getLogger(__name__)

StructuredMode = Literal["auto", "json_schema", "json_object", "none"]
Transport = Literal["aiohttp", "httpx"]
KEEPALIVE_S = 3.0  # an idle connection is closed before the common servers' idle timeout (uvicorn's, vLLM's: 5 s)
RESENDS = 4  # times a request that met a connection the server had closed goes out again at once
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


def http_client(transport: Transport, concurrency: int, timeout_s: float) -> Any:
    """The SDK's HTTP client on `transport`, with a kept-alive connection for every request in flight: aiohttp by
    default (httpx's pool checks every idle connection for each request, which grows with the concurrency)."""
    limits = httpx2.Limits(max_connections=max(concurrency, 100), max_keepalive_connections=max(concurrency, 20),
                           keepalive_expiry=KEEPALIVE_S)
    client = openai.DefaultAioHttpClient if transport == "aiohttp" else openai.DefaultAsyncHttpxClient
    return client(limits=limits, timeout=timeout_s)


def chat_body(model: str | None, messages: list[Message], *, max_tokens: int, temperature: float,
              seed: int | None = None, stop: list[str] | None = None) -> dict[str, Any]:
    """A chat completion request's JSON body, in the wire format."""
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature}
    if seed is not None:
        body["seed"] = seed
    if stop:
        body["stop"] = stop
    return body


def _is_completion(answer: Any) -> bool:
    return isinstance(answer, ChatCompletion) and bool(answer.choices)


def _parsed(raw: Any, accept: Callable[[Any], bool]) -> Any:
    """The answer in a 200 response; NotACompletion (a transient fault) when its body is not what was asked for:
    an error page (which the SDK hands back as text, or fails on), an error object, an empty body."""
    try:
        answer = raw.parse()
    except Exception as exc:  # noqa: BLE001 - whatever the SDK makes of a body that is not an answer
        raise NotACompletion(f"the answer could not be read: {type(exc).__name__}") from None
    if not accept(answer):
        raise NotACompletion("the answer is not what was asked for")
    return answer


class OpenAIBackend:
    """Async client whose every request, start-up checks included, goes through one RetryPolicy (transient faults
    only), is paced by the rate limits (`rpm`, `tpm`, the server's own) and holds a place under an adaptive
    concurrency limit (halved on a 429, grown back after); `traffic` counts what they met."""

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        structured: StructuredMode = "auto",
        max_concurrency: int = 16,
        max_attempts: int = 10,
        timeout_s: float = 120.0,
        backoff_max_s: float = 30.0,
        rpm: float | None = None,
        tpm: float | None = None,
        transport: Transport = "aiohttp",
    ):
        self._base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._client = openai.AsyncOpenAI(base_url=self._base_url, api_key=key, max_retries=0, timeout=timeout_s,
                                          http_client=http_client(transport, max_concurrency, timeout_s))
        self._model = model
        self._structured: str = structured
        self._timeout_s = timeout_s
        self.traffic = Traffic(AdaptiveConcurrency(max_concurrency), RateLimits(rpm, tpm))
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
            models = await self._request(self._client.models.with_raw_response.list, 1, lambda page: hasattr(page, "data"))
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
                    return await self._client.chat.completions.with_raw_response.create(
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
                await self._request(ask, 16, _is_completion)
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
        body = chat_body(self._model, messages, max_tokens=max_tokens, temperature=temperature, seed=seed, stop=stop)
        if json_schema is not None and self._structured in ("json_schema", "json_object"):
            body["response_format"] = response_format(self._structured, json_schema)
        elif grammar is not None:
            body["grammar"] = grammar  # llama.cpp servers take GBNF this way
        tokens = estimate_tokens(messages, max_tokens)
        start = time.perf_counter()
        out = await self._request(lambda: self._post_chat(body), tokens, _is_completion)
        latency = time.perf_counter() - start
        choice = out.choices[0]
        usage = out.usage
        prompt_tokens = usage.prompt_tokens if usage else 0
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None)
        return Completion(
            text=choice.message.content or "",
            prompt_tokens=prompt_tokens,
            completion_tokens=usage.completion_tokens if usage else 0,
            finish_reason=choice.finish_reason,
            latency_s=latency,
            prompt_tokens_evaluated=None if cached is None else max(0, prompt_tokens - cached),  # where the server says
        )

    def _post_chat(self, body: dict[str, Any]) -> Awaitable[Any]:
        """POST the body as it is, for the raw response (as `chat.completions.with_raw_response.create` would):
        the SDK's typed transform of the parameters, which changes nothing in a body already in the wire format,
        walks every message and schema node and cost more CPU than the rest of the request at concurrency 64."""
        return self._client.post("/chat/completions", cast_to=ChatCompletion, body=body,
                                 options={"headers": {RAW_RESPONSE_HEADER: "true"}})

    async def _request(self, send: Callable[[], Awaitable[Any]], tokens: float, accept: Callable[[Any], bool]) -> Any:
        """`send()` (a raw-response call) under the retry policy; each attempt holds a place in flight, waits its
        turn under the rate limits and has the whole request timeout to finish. Returns the parsed answer."""
        self.traffic.requests += 1
        return await self._policy.run(lambda: self._attempt(send, tokens, accept), self._where)

    async def _attempt(self, send: Callable[[], Awaitable[Any]], tokens: float, accept: Callable[[Any], bool]) -> Any:
        traffic = self.traffic
        async with traffic.concurrency.slot() as round_taken:
            await traffic.limits.admit(tokens)
            traffic.attempts += 1
            try:
                raw = await asyncio.wait_for(self._send_on_open_connection(send), self._timeout_s)
                answer = _parsed(raw, accept)
            except Exception as exc:
                if is_transient(exc):
                    traffic.faults += 1
                    traffic.fault_kinds[describe(exc)] += 1
                if isinstance(exc, openai.RateLimitError):
                    traffic.rate_limited += 1
                    traffic.concurrency.rate_limited(round_taken)
                if (asked := retry_after(exc)) is not None:
                    traffic.limits.pause(asked)  # every request waits, not only this one
                raise
            traffic.concurrency.answered()  # before the place is given back, so a waiter sees the grown limit
        traffic.limits.observe(raw.headers, tokens)
        usage = getattr(answer, "usage", None)
        if usage is not None:
            traffic.limits.settle(tokens, usage.total_tokens)
        return answer

    async def _send_on_open_connection(self, send: Callable[[], Awaitable[Any]]) -> Any:
        """`send()`, sent again at once (up to RESENDS times) when it went out on a kept-alive connection the
        server had closed: the server never read it, so waiting out a backoff would only hold the dialogue back."""
        for _ in range(RESENDS):
            try:
                return await send()
            except Exception as exc:
                if not closed_before_answer(exc):
                    raise
                self.traffic.closed_connections += 1
        return await send()

    async def aclose(self) -> None:
        await self._client.close()

