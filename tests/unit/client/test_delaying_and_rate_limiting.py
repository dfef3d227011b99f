"""Delaying queue on a fake clock; rate limiters (exponential per item, fast/slow, token bucket, max-of)."""

from __future__ import annotations

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.flowcontrol import TokenBucket
from kubelite.client.workqueue import (
    BucketRateLimiter,
    DelayingQueue,
    InMemoryMetricsProvider,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimitingQueue,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
)
from tests.unit.client.support import run, settle


def test_add_after_waits_for_fake_time() -> None:
    clock = FakeClock()

    async def body() -> None:
        queue: DelayingQueue[str] = DelayingQueue(clock=clock)
        queue.add_after("later", 5)
        queue.add_after("sooner", 2)
        queue.add_after("now", 0)
        await settle()
        assert (len(queue), queue.waiting()) == (1, 2)
        clock.step(1.9)
        await settle()
        assert len(queue) == 1
        clock.step(0.1)
        await settle()
        assert len(queue) == 2
        clock.step(3)
        await settle()
        assert [await queue.get() for _ in range(3)] == ["now", "sooner", "later"]
        queue.shut_down()

    run(body)


@pytest.mark.parametrize(
    ("first", "second", "ready_at"),
    [(10, 3, 3), (3, 10, 3)],
    ids=["earlier-replaces", "later-is-ignored"],
)
def test_add_after_keeps_the_earlier_time(first: float, second: float, ready_at: float) -> None:
    clock = FakeClock()

    async def body() -> None:
        queue: DelayingQueue[str] = DelayingQueue(clock=clock)
        queue.add_after("x", first)
        queue.add_after("x", second)
        await settle()
        assert queue.waiting() == 1
        clock.step(ready_at - 0.5)
        await settle()
        assert len(queue) == 0
        clock.step(0.5)
        await settle()
        assert len(queue) == 1
        clock.step(20)
        await settle()
        assert len(queue) == 1  # added once
        queue.shut_down()

    run(body)


def test_shut_down_stops_delays() -> None:
    clock = FakeClock()

    async def body() -> None:
        queue: DelayingQueue[str] = DelayingQueue(clock=clock)
        queue.add_after("x", 1)
        await settle()
        queue.shut_down()
        clock.step(5)
        await settle()
        assert len(queue) == 0
        queue.add_after("y", 0)
        assert len(queue) == 0

    run(body)


def test_item_exponential_backoff() -> None:
    limiter = ItemExponentialFailureRateLimiter(0.001, 1.0)
    delays = [limiter.when("a") for _ in range(12)]
    assert delays == [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.0, 1.0]
    assert limiter.num_requeues("a") == 12
    assert limiter.when("b") == 0.001
    limiter.forget("a")
    assert (limiter.num_requeues("a"), limiter.when("a")) == (0, 0.001)


def test_exponential_backoff_does_not_overflow() -> None:
    limiter = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    for _ in range(100):
        delay = limiter.when("a")
    assert delay == 1000.0


def test_fast_slow() -> None:
    limiter = ItemFastSlowRateLimiter(0.1, 5.0, 2)
    assert [limiter.when("a") for _ in range(4)] == [0.1, 0.1, 5.0, 5.0]
    assert limiter.num_requeues("a") == 4


def test_token_bucket_and_bucket_limiter() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2.0, 3, clock=clock)
    assert [bucket.reserve() for _ in range(5)] == [0.0, 0.0, 0.0, 0.5, 1.0]
    clock.step(10)
    assert bucket.try_accept()
    limiter = BucketRateLimiter(1.0, 1, clock=clock)
    assert (limiter.when("a"), limiter.when("b"), limiter.num_requeues("a")) == (0.0, 1.0, 0)


def test_max_of_and_max_wait() -> None:
    clock = FakeClock()
    limiter = MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(1.0, 100.0), BucketRateLimiter(1.0, 1, clock=clock)
    )
    assert [limiter.when("a") for _ in range(3)] == [1.0, 2.0, 4.0]
    assert limiter.num_requeues("a") == 3
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0
    capped = WithMaxWaitRateLimiter(ItemExponentialFailureRateLimiter(1.0, 100.0), 3.0)
    assert [capped.when("a") for _ in range(4)] == [1.0, 2.0, 3.0, 3.0]


def test_default_controller_rate_limiter() -> None:
    limiter = default_controller_rate_limiter(clock=FakeClock())
    assert [limiter.when("a") for _ in range(3)] == [0.005, 0.01, 0.02]


def test_rate_limiting_queue_retries_with_backoff() -> None:
    clock = FakeClock()
    provider = InMemoryMetricsProvider()

    async def body() -> None:
        queue: RateLimitingQueue[str] = RateLimitingQueue(
            ItemExponentialFailureRateLimiter(1.0, 60.0), name="rl", metrics_provider=provider, clock=clock
        )
        queue.add("a")
        item = await queue.get()
        queue.add_rate_limited(item)  # first failure: 1s
        queue.done(item)
        await settle()
        assert len(queue) == 0
        clock.step(1)
        await settle()
        item = await queue.get()
        queue.add_rate_limited(item)  # second failure: 2s
        queue.done(item)
        clock.step(1.5)
        await settle()
        assert len(queue) == 0
        clock.step(0.5)
        await settle()
        assert (len(queue), queue.num_requeues("a")) == (1, 2)
        queue.forget("a")
        assert queue.num_requeues("a") == 0
        queue.shut_down()

    run(body)
    assert provider.queues["rl"].retries == 2
