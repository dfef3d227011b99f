"""kubelite.util.clock: the fake clock moves only when stepped, and the client's clock is the same machinery."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from kubelite.client import clock as client_clock
from kubelite.util.clock import FakeClock, RealClock, with_deadline


def test_real_clock_now_is_aware_utc() -> None:
    now = RealClock().now()
    assert now.tzinfo is UTC


def test_fake_clock_now_follows_steps() -> None:
    clock = FakeClock(start=10.0, wall_offset=1_700_000_000.0)
    assert clock.now() == datetime.fromtimestamp(1_700_000_010.0, UTC)
    clock.step(2.5)
    assert clock.monotonic() == 12.5
    assert clock.now() == datetime.fromtimestamp(1_700_000_012.5, UTC)
    with pytest.raises(ValueError, match="does not go back"):
        clock.set(1.0)


async def test_sleepers_wake_only_at_their_deadline() -> None:
    clock = FakeClock()
    woke: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(name)

    tasks = [asyncio.create_task(sleeper("late", 5)), asyncio.create_task(sleeper("early", 1))]
    await asyncio.sleep(0)
    assert clock.next_deadline() == clock.monotonic() + 1
    clock.step(0.5)
    await asyncio.sleep(0)
    assert woke == []
    clock.step(0.5)
    await asyncio.sleep(0)
    assert woke == ["early"]
    clock.step(4)
    await asyncio.gather(*tasks)
    assert woke == ["early", "late"]
    assert not clock.has_waiters()


async def test_with_deadline_expires_on_fake_time() -> None:
    clock = FakeClock()
    never = asyncio.get_running_loop().create_future()
    waiting = asyncio.create_task(with_deadline(clock, 3, never))
    await asyncio.sleep(0)
    clock.step(3)
    with pytest.raises(TimeoutError):
        await waiting
    assert never.cancelled()


def test_client_clock_reads_epoch_seconds_from_the_same_machinery() -> None:
    clock = client_clock.FakeClock(start=0.0, wall_offset=100.0)
    assert isinstance(clock, FakeClock)
    clock.step(1)
    assert clock.now() == 101.0
