"""Pacing requests to a model server: `--rpm` and `--tpm` token buckets, and the limits the server states itself
(`Retry-After` on a 429 or 503, OpenAI's `x-ratelimit-remaining-*` / `x-ratelimit-reset-*` headers). Every
request waits here for its turn, in the order it arrived, before it may be sent.

`aiolimiter` is not used: its leaky bucket lets a burst up to the whole minute's rate through at once and refuses
a request larger than that, where these buckets space sends evenly, let a large request run into debt, and
also wait out what the server states."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping

CHARS_PER_TOKEN = 4  # a request's prompt tokens are estimated from its characters until the server counts them
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_SECONDS_PER_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def reset_seconds(value: str | None) -> float | None:
    """Seconds in an `x-ratelimit-reset-*` value: a plain number of seconds, or OpenAI's duration ("20ms", "1s",
    "6m0s", "1h2m3.5s"); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parts = _DURATION_PART.findall(value)
    if not parts or "".join(number + unit for number, unit in parts) != value:
        return None
    return sum(float(number) * _SECONDS_PER_UNIT[unit] for number, unit in parts)


class TokenBucket:
    """`per_minute` units refilled evenly, holding at most one: sends are spaced evenly from the first, so no
    burst lifts the rate over any stretch of time. A request for more than one unit takes the bucket into debt,
    and later requests wait the debt off, so the average holds whatever the sizes."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic):
        if per_minute <= 0:
            raise ValueError("a rate limit must be positive")
        self.per_second = per_minute / 60
        self.capacity = 1.0
        self._clock = clock
        self.level = self.capacity
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(self.capacity, self.level + (now - self._stamp) * self.per_second)
        self._stamp = now

    def delay(self, amount: float) -> float:
        """Seconds until `amount` may be taken (0: now)."""
        self._refill()
        needed = min(amount, self.capacity)
        if self.level >= needed - 1e-9:  # what a clock's rounding leaves short is not waited for
            return 0.0
        return (needed - self.level) / self.per_second

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount


class RateLimits:
    """The client's own limits (`rpm`, `tpm`) and the server's stated ones. `admit` waits until a request may
    go; `observe` reads a response's headers; `settle` corrects a request's token estimate once it is counted."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self.requests = TokenBucket(rpm, clock) if rpm else None
        self.tokens = TokenBucket(tpm, clock) if tpm else None
        self._paused_until = 0.0
        self._order = asyncio.Lock()  # requests are admitted in the order they ask
        self.waited_s = 0.0  # time requests spent waiting for their turn, summed over requests

    def delay(self, tokens: float) -> float:
        """Seconds until a request estimated at `tokens` may be sent (0: now)."""
        waits = [self._paused_until - self._clock()]
        if self.requests is not None:
            waits.append(self.requests.delay(1))
        if self.tokens is not None:
            waits.append(self.tokens.delay(tokens))
        return max(0.0, *waits)

    async def admit(self, tokens: float) -> None:
        """Wait for this request's turn under every limit (behind the requests that asked first), then count it."""
        asked = self._clock()
        async with self._order:
            while (wait := self.delay(tokens)) > 0:
                await asyncio.sleep(wait)
            self.waited_s += self._clock() - asked
            if self.requests is not None:
                self.requests.take(1)
            if self.tokens is not None:
                self.tokens.take(tokens)

    def settle(self, estimated: float, counted: int) -> None:
        """The server counted `counted` tokens for a request admitted at `estimated`: take or give back the rest."""
        if self.tokens is not None:
            self.tokens.take(counted - estimated)

    def pause(self, seconds: float) -> None:
        """Send nothing for `seconds` (a server's Retry-After, or its limit reached until a reset)."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    def observe(self, headers: Mapping[str, str], next_tokens: float) -> None:
        """Honour the server's `x-ratelimit-*` headers: with no requests left, or fewer tokens left than a request
        like the last (`next_tokens`), pause until the server says its limit resets."""
        for kind, needed in (("requests", 1.0), ("tokens", next_tokens)):
            try:
                remaining = float(headers[f"x-ratelimit-remaining-{kind}"])
            except (KeyError, ValueError):
                continue
            reset = reset_seconds(headers.get(f"x-ratelimit-reset-{kind}"))
            if remaining < needed and reset:
                self.pause(reset)


def estimate_tokens(messages: list[dict[str, str]], max_tokens: int) -> float:
    """A request's tokens before the server counts them: its prompt's characters / 4, plus the reply's ceiling."""
    return sum(len(message.get("content") or "") for message in messages) / CHARS_PER_TOKEN + max_tokens
