"""The pieces that pace requests to a server: token buckets (--rpm, --tpm), the server's stated limits
(x-ratelimit-*, Retry-After) and the adaptive concurrency (AIMD). Time is a fake clock that sleeping advances."""

import asyncio

import pytest

from synth.llm import rate_limits
from synth.llm.adaptive import AdaptiveConcurrency
from synth.llm.rate_limits import RateLimits, TokenBucket, estimate_tokens, reset_seconds


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now

    async def sleep(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(rate_limits.asyncio, "sleep", fake.sleep)
    return fake


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("2.5", 2.5), ("0", 0.0),
     ("soon", None), ("1s later", None), (None, None)],
)
def test_reset_values_as_servers_send_them(value, seconds):
    assert reset_seconds(value) == seconds


def test_a_bucket_spaces_units_evenly_and_lets_debt_be_waited_off(clock):
    bucket = TokenBucket(60, clock)  # one a second
    assert bucket.delay(1) == 0
    bucket.take(1)
    assert bucket.delay(1) == pytest.approx(1.0)
    clock.now += 0.25
    assert bucket.delay(1) == pytest.approx(0.75)
    clock.now += 10  # idle time saves up at most one unit: no burst afterwards
    bucket.take(1)
    assert bucket.delay(1) == pytest.approx(1.0)
    bucket.take(5)  # a large request goes once the bucket is full, then its debt is waited off
    assert bucket.delay(1) == pytest.approx(6.0)


def test_requests_per_minute_are_sent_at_the_rate_and_no_faster(clock):
    limits = RateLimits(rpm=600, clock=clock)
    sent = []

    async def send_all():
        for _ in range(31):
            await limits.admit(100)
            sent.append(clock.now)

    asyncio.run(send_all())
    rate = 60 * (len(sent) - 1) / (sent[-1] - sent[0])
    assert rate == pytest.approx(600)
    assert min(b - a for a, b in zip(sent, sent[1:])) == pytest.approx(0.1)


def test_tokens_per_minute_count_the_servers_figure_not_the_estimate(clock):
    limits = RateLimits(tpm=6000, clock=clock)  # 100 tokens a second

    async def go():
        await limits.admit(500)  # estimated 500 ...
        limits.settle(500, 200)  # ... the server counted 200: 300 given back
        start = clock.now
        await limits.admit(10)
        return clock.now - start

    assert asyncio.run(go()) == pytest.approx(2.0)  # 200 tokens at 100/s (less the one the bucket held)
    assert limits.waited_s == pytest.approx(2.0)


def test_the_servers_stated_limits_pause_every_request(clock):
    limits = RateLimits(clock=clock)
    limits.observe({"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "2s"}, 100)
    assert limits.delay(100) == 0
    limits.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2s"}, 100)
    assert limits.delay(100) == pytest.approx(2.0)
    clock.now += 2
    limits.observe({"x-ratelimit-remaining-tokens": "90", "x-ratelimit-reset-tokens": "1m0s"}, 100)
    assert limits.delay(100) == pytest.approx(60.0)  # fewer tokens left than one more request needs
    limits.pause(90)  # a Retry-After
    assert limits.delay(100) == pytest.approx(90.0)


def test_a_token_estimate_counts_the_prompt_and_the_replys_ceiling():
    assert estimate_tokens([{"role": "user", "content": "x" * 400}], max_tokens=50) == 150


def test_concurrency_halves_once_per_round_of_429s_and_grows_back():
    limit = AdaptiveConcurrency(8)
    limit.rate_limited(0)
    assert (limit.allowed, limit.decreases) == (4, 1)
    limit.rate_limited(0)  # another request of the round before the decrease: no second halving
    assert (limit.allowed, limit.decreases) == (4, 1)
    limit.rate_limited(1)
    limit.rate_limited(2)
    limit.rate_limited(3)
    assert (limit.allowed, limit.decreases, limit.lowest) == (1, 4, 1)  # never below one
    answers = 0
    while limit.allowed < 8:
        limit.answered()
        answers += 1
    assert 20 < answers < 40  # about one more per round of `limit` answers: 1 + 2 + ... + 7
    for _ in range(100):
        limit.answered()
    assert limit.allowed == 8  # not past the ceiling


def test_a_request_waits_for_a_place_in_flight():
    async def go():
        limit = AdaptiveConcurrency(8)
        limit.rate_limited(0)
        limit.rate_limited(1)  # 8 -> 4 -> 2 places
        most, inside = 0, 0

        async def request():
            nonlocal most, inside
            async with limit.slot():
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.01)
                inside -= 1

        await asyncio.gather(*(request() for _ in range(6)))
        return most

    assert asyncio.run(go()) == 2
