"""The one retry policy for every request synth sends to a model server, start-up checks included: which faults
are transient (rate limits, server errors, timeouts, dropped connections, a 200 whose body is not a completion, a
request past its deadline), how long to wait (the server's Retry-After when it sends one, else jittered exponential
backoff), and what happens when the attempts run out (EndpointUnavailable: one line naming the endpoint and the last
error)."""

from __future__ import annotations

import errno
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import aiohttp
import httpx2
import openai
from tenacity import AsyncRetrying, RetryCallState, RetryError, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_random_exponential

from synth.errors import SynthError

T = TypeVar("T")
TRANSIENT_STATUS = {408, 409, 425, 429}  # and every 5xx
RETRY_AFTER_MAX_S = 120.0  # a Retry-After longer than this is waited only this long


class NotACompletion(Exception):
    """A 200 whose body is not what was asked for (a proxy's error page, an error object): a transient fault."""


class EndpointUnavailable(SynthError):
    """A request's attempts ran out on transient faults: the server, not the dialogue, is the problem, so a run
    stops (its records kept, a resume goes on) rather than write the dialogue as failed."""


def is_transient(exc: BaseException) -> bool:
    """A fault worth trying again: rate limits, server errors, timeouts, dropped connections and a 200 whose body
    is not a completion (a proxy's error page); never a 4xx client error, which is an answer."""
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, openai.APIResponseValidationError)):
        return True
    if isinstance(exc, (json.JSONDecodeError, NotACompletion, TimeoutError)):  # TimeoutError: the request's deadline
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in TRANSIENT_STATUS or exc.status_code >= 500
    return False


def closed_before_answer(exc: BaseException) -> bool:
    """The request went out on a kept-alive connection the server had already closed: the server dropped the
    connection (or reset it) before any answer came. A client whose event loop runs behind (a busy process with
    hundreds of requests in flight) picks such a connection after the server's idle timeout (5 s in uvicorn,
    which vLLM serves through) has closed it, before the loop has read the close."""
    chain: list[BaseException] = []
    while exc is not None and len(chain) < 10:
        chain.append(exc)
        exc = exc.__cause__
    for error in chain:
        if isinstance(error, (aiohttp.ServerDisconnectedError, aiohttp.ClientConnectionResetError)):
            return True
        if isinstance(error, OSError) and error.errno in (errno.ECONNRESET, errno.EPIPE):
            return True  # aiohttp's ClientOSError, or the socket's own ConnectionResetError under it
        if isinstance(error, httpx2.RemoteProtocolError) and "without sending a response" in str(error):
            return True
    return False


def describe(exc: BaseException) -> str:
    """A fault in a few words, without the request (which may carry credentials)."""
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    if isinstance(exc, (json.JSONDecodeError, NotACompletion)):
        return "a response that is not a completion"
    if isinstance(exc, TimeoutError):
        return "no whole answer before the request's deadline"
    name = type(exc).__name__.removeprefix("API")
    cause = exc.__cause__
    while cause is not None and cause.__cause__ is not None:  # the transport's own error, where the SDK wraps one
        cause = cause.__cause__
    return f"{name}: {type(cause).__name__}" if cause is not None else name


def retry_after(exc: BaseException | None) -> float | None:
    """The seconds a 429 or 503 asks to wait (Retry-After in seconds), capped; None when it asks nothing."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(max(float(value), 0.0), RETRY_AFTER_MAX_S) if value is not None else None
    except ValueError:
        return None  # an HTTP date: back off as usual


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to try a request again on a transient fault."""

    attempts: int = 6
    backoff_max_s: float = 30.0

    def _wait(self, state: RetryCallState) -> float:
        outcome = state.outcome
        asked = retry_after(outcome.exception() if outcome is not None else None)
        return asked if asked is not None else wait_random_exponential(multiplier=0.5, max=self.backoff_max_s)(state)

    async def run(self, call: Callable[[], Awaitable[T]], where: str) -> T:
        """`call()` until it succeeds, a non-transient error (raised as it is), or the attempts run out on a
        transient fault: then a SynthError naming `where` (an endpoint, credentials removed) and the last error."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(is_transient),
            reraise=False,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    result = await call()
        except RetryError as exc:
            last = exc.last_attempt.exception()
            message = f"{where}: no answer after {self.attempts} attempts (last error: {describe(last)})"
            raise EndpointUnavailable(message) from None
        return result
