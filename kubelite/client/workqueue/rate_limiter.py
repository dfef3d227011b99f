"""Rate limiters for re-queueing failed items (client-go's `default_rate_limiters.go`).

`when(item)` says how long to wait before the item's next attempt and counts the attempt; `forget(item)` clears
the item's history after a success; `num_requeues(item)` is that count. The default controller limiter is the
larger of a per-item exponential backoff (5ms doubling to 1000s) and an overall token bucket (10 qps, burst
100), so one failing item backs off on its own and many failing items together cannot flood the server.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from kubelite.client.clock import Clock
from kubelite.client.flowcontrol import TokenBucket


class RateLimiter(Protocol):
    def when(self, item: Hashable) -> float: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...


class ItemExponentialFailureRateLimiter:
    """base_delay * 2^failures, capped at max_delay, per item."""

    def __init__(self, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable) -> float:
        exponent = self._failures.get(item, 0)
        self._failures[item] = exponent + 1
        if exponent > 62:  # beyond any cap; also keeps the float finite
            return self.max_delay
        return min(self.base_delay * (2**exponent), self.max_delay)

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


class ItemFastSlowRateLimiter:
    """`fast_delay` for the first `max_fast_attempts` attempts of an item, `slow_delay` after."""

    def __init__(self, fast_delay: float, slow_delay: float, max_fast_attempts: int) -> None:
        self.fast_delay = fast_delay
        self.slow_delay = slow_delay
        self.max_fast_attempts = max_fast_attempts
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable) -> float:
        self._failures[item] = self._failures.get(item, 0) + 1
        return self.fast_delay if self._failures[item] <= self.max_fast_attempts else self.slow_delay

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter:
    """An overall token bucket: items wait for a token, whichever item they are."""

    def __init__(self, qps: float = 10.0, burst: int = 100, *, clock: Clock | None = None) -> None:
        self.bucket = TokenBucket(qps, burst, clock=clock)

    def when(self, item: Hashable) -> float:
        return self.bucket.reserve()

    def forget(self, item: Hashable) -> None:
        pass

    def num_requeues(self, item: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """The longest wait of several limiters (each counts the attempt)."""

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self.limiters = limiters

    def when(self, item: Hashable) -> float:
        return max(limiter.when(item) for limiter in self.limiters)

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)


class WithMaxWaitRateLimiter:
    """Another limiter's wait, never longer than `max_delay`."""

    def __init__(self, limiter: RateLimiter, max_delay: float) -> None:
        self.limiter = limiter
        self.max_delay = max_delay

    def when(self, item: Hashable) -> float:
        return min(self.limiter.when(item), self.max_delay)

    def forget(self, item: Hashable) -> None:
        self.limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return self.limiter.num_requeues(item)


def default_controller_rate_limiter(*, clock: Clock | None = None) -> MaxOfRateLimiter:
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(10.0, 100, clock=clock)
    )
