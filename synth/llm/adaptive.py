"""How many requests may be in flight at once: additive increase, multiplicative decrease (AIMD), as TCP
does. The limit starts at the ceiling (`--concurrency`), halves when the server answers 429 and grows back by
one for each round of requests answered without one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class AdaptiveConcurrency:
    """A semaphore whose size follows the server's answers. One 429 halves the limit once per round: requests
    sent before the last decrease do not decrease it again, so a burst of 429s from one round counts once."""

    def __init__(self, ceiling: int):
        if ceiling < 1:
            raise ValueError("the concurrency ceiling must be at least 1")
        self.ceiling = ceiling
        self.limit = float(ceiling)
        self.in_flight = 0
        self.decreases = 0
        self.lowest = ceiling
        self._round = 0  # increased by every decrease
        self._changed = asyncio.Condition()

    @property
    def allowed(self) -> int:
        """Requests that may be in flight now."""
        return max(1, int(self.limit))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold one place in flight; yields the round it was taken in (for `rate_limited`)."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.allowed)
            self.in_flight += 1
        try:
            yield self._round
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    def answered(self) -> None:
        """A request was answered without a rate limit: grow by one per `limit` answers, up to the ceiling."""
        self.limit = min(float(self.ceiling), self.limit + 1 / self.limit)

    def rate_limited(self, taken_in_round: int) -> None:
        """A request taken in `taken_in_round` was answered 429: halve the limit, once per round."""
        if taken_in_round != self._round:
            return
        self._round += 1
        self.limit = max(1.0, self.limit / 2)
        self.decreases += 1
        self.lowest = min(self.lowest, self.allowed)
