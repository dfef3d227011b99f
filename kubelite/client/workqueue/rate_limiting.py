"""The rate-limited queue (client-go's `rate_limiting_queue.go`): a delaying queue whose `add_rate_limited`
waits as long as its rate limiter says, so a failing item is retried with backoff. A worker calls `forget`
after a success (the backoff starts over) and `done` after every attempt."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

from kubelite.client.clock import Clock
from kubelite.client.workqueue.delaying import DelayingQueue
from kubelite.client.workqueue.metrics import MetricsProvider
from kubelite.client.workqueue.rate_limiter import RateLimiter, default_controller_rate_limiter

T = TypeVar("T", bound=Hashable)


class RateLimitingQueue(DelayingQueue[T]):
    def __init__(
        self,
        rate_limiter: RateLimiter | None = None,
        *,
        name: str = "",
        metrics_provider: MetricsProvider | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(name=name, metrics_provider=metrics_provider, clock=clock)
        self.rate_limiter: RateLimiter = rate_limiter or default_controller_rate_limiter(clock=self.clock)

    def add_rate_limited(self, item: T) -> None:
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: T) -> None:
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self.rate_limiter.num_requeues(item)
