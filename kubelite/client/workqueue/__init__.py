"""Work queues for controllers (client-go's `util/workqueue`): Queue (dirty and processing sets), DelayingQueue
(`add_after`), RateLimitingQueue (`add_rate_limited` with per-item backoff and an overall bucket)."""

from kubelite.client.workqueue.delaying import DelayingQueue
from kubelite.client.workqueue.metrics import InMemoryMetricsProvider, MetricsProvider
from kubelite.client.workqueue.queue import Queue, QueueShutDown
from kubelite.client.workqueue.rate_limiter import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
)
from kubelite.client.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "BucketRateLimiter",
    "DelayingQueue",
    "InMemoryMetricsProvider",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "MetricsProvider",
    "Queue",
    "QueueShutDown",
    "RateLimiter",
    "RateLimitingQueue",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
]
