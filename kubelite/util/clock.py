"""The server's clock: one injectable source of time for everything that stamps, waits or times out.

The watch cache's bookmark timer and its relist backoff, the registry's creationTimestamp and graceful-deletion
deadlines, and the controllers' resyncs all read the clock they are given. Production code uses `RealClock`;
tests use `FakeClock` and `step` time forward instead of sleeping, as Kubernetes' tests do with
`k8s.io/utils/clock/testing`. Two readings answer two questions: `now()` stamps objects (an aware UTC
datetime), `monotonic()` measures intervals (immune to wall-clock jumps).

The API is deliberately small and stable: `now()`, `monotonic()`, `async sleep(seconds)`, and the fake's
`step(seconds)`.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Protocol, TypeVar

T = TypeVar("T")


class Sleeper(Protocol):
    async def sleep(self, seconds: float) -> None: ...


class Clock(Sleeper, Protocol):
    def now(self) -> datetime:
        """The wall time, timezone-aware in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back; only differences mean anything."""
        ...


class RealClock:
    """The process's clocks and the event loop's sleep."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0))


class FakeClock:
    """Time that moves only when a test calls `step` (or `set`); sleepers wake when their deadline is reached.

    `sleep(0)` or a negative sleep yields once to the loop without registering, as asyncio.sleep(0) does.
    Wall time is the monotonic reading plus `wall_offset` seconds since the epoch.
    """

    def __init__(self, start: float = 1_000.0, *, wall_offset: float = 1_700_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall_offset
        # a heap of (deadline, sequence, future); cancelled sleepers are left in and skipped when popped
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._sequence = itertools.count()

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._wall_offset + self._now, UTC)

    def monotonic(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._sequence), future))
        await future

    def step(self, seconds: float) -> None:
        """Advance time and wake every sleeper whose deadline has come."""
        self.set(self._now + seconds)

    def set(self, monotonic: float) -> None:
        if monotonic < self._now:
            raise ValueError("a fake clock does not go back")
        self._now = monotonic
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    def has_waiters(self) -> bool:
        """Whether anyone sleeps on this clock (after discarding sleepers that were cancelled)."""
        self._sleepers = [entry for entry in self._sleepers if not entry[2].done()]
        heapq.heapify(self._sleepers)
        return bool(self._sleepers)

    def next_deadline(self) -> float | None:
        """When the earliest sleeper wakes, or None."""
        return self._sleepers[0][0] if self.has_waiters() else None


async def with_deadline(clock: Sleeper, seconds: float, awaitable: Awaitable[T]) -> T:
    """Await `awaitable`, giving up after `seconds` of `clock` time with TimeoutError (the work is cancelled).

    asyncio.timeout reads the loop's clock; this reads the injected one, so fake time can expire it.
    """
    work = asyncio.ensure_future(awaitable)
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait({work, timer}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        work.cancel()
        raise
    finally:
        timer.cancel()
    if work.done():
        return work.result()
    work.cancel()
    await asyncio.wait({work})
    raise TimeoutError(f"deadline of {seconds}s exceeded")
