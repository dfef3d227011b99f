"""The fake clock, deadlines on it, and the reflector's backoff."""

from __future__ import annotations

import asyncio
import random

import pytest

from kubelite.client.backoff import ExponentialBackoff
from kubelite.client.clock import FakeClock, with_deadline
from tests.unit.client.support import run, settle


def test_fake_clock_wakes_sleepers_in_deadline_order() -> None:
    clock = FakeClock()
    woke: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(name)

    async def body() -> None:
        tasks = [asyncio.create_task(sleeper(n, s)) for n, s in (("c", 3), ("a", 1), ("b", 2))]
        await settle()
        assert clock.next_deadline() == clock.monotonic() + 1
        clock.step(2)
        await settle()
        assert woke == ["a", "b"]
        tasks[0].cancel()
        await settle()
        assert not clock.has_waiters()
        with pytest.raises(ValueError):
            clock.set(0)

    run(body)


def test_with_deadline() -> None:
    clock = FakeClock()

    async def body() -> None:
        assert await with_deadline(clock, 5, asyncio.sleep(0, result="fast")) == "fast"
        slow = asyncio.create_task(with_deadline(clock, 5, clock.sleep(10)))
        await settle()
        clock.step(5)
        with pytest.raises(TimeoutError):
            await slow

    run(body)


def test_backoff_doubles_caps_and_resets() -> None:
    clock = FakeClock()
    backoff = ExponentialBackoff(initial=1, cap=8, reset_after=60, jitter=0, clock=clock)
    assert [backoff.next() for _ in range(6)] == [1, 2, 4, 8, 8, 8]
    clock.step(61)
    assert backoff.next() == 1
    jittered = ExponentialBackoff(initial=1, cap=8, jitter=1.0, clock=clock, rng=random.Random(3))
    assert all(1 <= jittered.next() < 2 for _ in range(1))
