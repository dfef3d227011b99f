"""Exponential backoff with jitter that forgets after a quiet spell (apimachinery's
`wait.NewExponentialBackoffManager`).

The client's reflector waits 0.8s, 1.6s, ... up to 30s between failed attempts, and the watch cache waits the
same way between failed relists; both start from the initial delay again once `reset_after` seconds pass
without a failure. Time is read from an injected clock, so tests step it.
"""

from __future__ import annotations

import random
import time
from typing import Protocol


class MonotonicClock(Protocol):
    def monotonic(self) -> float: ...


class _ProcessClock:
    def monotonic(self) -> float:
        return time.monotonic()


class ExponentialBackoff:
    def __init__(
        self,
        *,
        initial: float = 0.8,
        cap: float = 30.0,
        reset_after: float = 120.0,
        factor: float = 2.0,
        jitter: float = 1.0,
        clock: MonotonicClock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.initial = initial
        self.cap = cap
        self.reset_after = reset_after
        self.factor = factor
        self.jitter = jitter
        self._clock = clock or _ProcessClock()
        self._rng = rng or random.Random()
        #: the un-jittered delay the next call starts from
        self._current = initial
        self._last: float | None = None

    def next(self) -> float:
        """The next delay to wait (jittered up by at most `jitter` times itself)."""
        now = self._clock.monotonic()
        if self._last is not None and now - self._last > self.reset_after:
            self._current = self.initial
        self._last = now
        delay = self._current
        self._current = min(self._current * self.factor, self.cap)
        if self.jitter > 0:
            delay += self._rng.random() * self.jitter * delay
        return delay

    def reset(self) -> None:
        self._current = self.initial
        self._last = None
