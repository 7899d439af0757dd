"""What a server backend's requests met: attempts, faults, rate limits, the adaptive concurrency, the time spent
waiting for limits. The run shows it in its progress bar and keeps it in the manifest."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from synth.llm.adaptive import AdaptiveConcurrency
from synth.llm.base import ChatBackend
from synth.llm.rate_limits import RateLimits


@dataclass
class Traffic:
    """Counts of one backend's requests since it was built."""

    concurrency: AdaptiveConcurrency
    limits: RateLimits
    requests: int = 0  # calls made by the games (each may take several attempts)
    attempts: int = 0  # HTTP requests sent for them
    faults: int = 0  # attempts that met a transient fault (and were tried again, or ran out)
    rate_limited: int = 0  # of the faults, 429s
    fault_kinds: Counter[str] = field(default_factory=Counter)  # the faults by `retries.describe`
    closed_connections: int = 0  # sends that met a kept-alive connection the server had closed, sent again at once

    def summary(self) -> str:
        """One line for a progress bar."""
        allowed = f"{self.concurrency.allowed}/{self.concurrency.ceiling} requests allowed in flight"
        return f"{allowed} · {self.faults} faults ({self.rate_limited} rate-limited)"

    def as_counts(self) -> dict[str, int | float]:
        """The manifest's `requests` section."""
        return {
            "requests": self.requests,
            "attempts": self.attempts,
            "retries": self.attempts - self.requests,
            "faults": self.faults,
            "rate_limited": self.rate_limited,
            "concurrency_ceiling": self.concurrency.ceiling,
            "concurrency_decreases": self.concurrency.decreases,
            "concurrency_lowest": self.concurrency.lowest,
            "waited_for_limits_s": round(self.limits.waited_s, 3),
            "fault_kinds": dict(self.fault_kinds.most_common()),
            "closed_connections": self.closed_connections,
        }


def traffic_of(backend: ChatBackend) -> Traffic | None:
    """The Traffic of a server backend (looking inside a request cache); None for an embedded model."""
    inner = getattr(backend, "inner", backend)
    traffic = getattr(inner, "traffic", None)
    return traffic if isinstance(traffic, Traffic) else None
