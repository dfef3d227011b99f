"""The client's clock: the server's injectable clock (kubelite.util.clock), read in epoch seconds.

Reflectors back off, work queues delay items, rate limiters refill and leader electors judge leases, all by
the clock they are given. Production code uses `RealClock`; tests use `FakeClock` and step time forward instead
of sleeping. The sleeping, stepping and deadlines are kubelite.util.clock's; the one difference is that the
client's `now()` is wall time in seconds since the epoch (a float), the unit the client's leases and event
names are computed in.
"""

from __future__ import annotations

import time
from typing import Protocol

from kubelite.util import clock as _server_clock
from kubelite.util.clock import with_deadline

__all__ = ["Clock", "FakeClock", "RealClock", "with_deadline"]


class Clock(Protocol):
    def now(self) -> float:
        """Wall time in seconds since the epoch."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back; only differences mean anything."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class RealClock(_server_clock.RealClock):
    """The process's clocks and the event loop's sleep."""

    # the client reads wall time as epoch seconds (its Clock), where the server's clock stamps datetimes
    def now(self) -> float:  # type: ignore[override]
        return time.time()


class FakeClock(_server_clock.FakeClock):
    """kubelite.util.clock.FakeClock with wall time in epoch seconds."""

    # the client reads wall time as epoch seconds (its Clock), where the server's clock stamps datetimes
    def now(self) -> float:  # type: ignore[override]
        return self._wall_offset + self._now
