"""Waiting for caches: `wait_for_cache_sync` polls `has_synced` functions (informers', or handler
registrations') until all are true, as client-go's `cache.WaitForCacheSync` does every 100ms."""

from __future__ import annotations

from collections.abc import Callable

from kubelite.client.clock import Clock, RealClock

POLL_INTERVAL = 0.1


async def wait_for_cache_sync(
    *has_synced: Callable[[], bool],
    timeout: float | None = None,
    clock: Clock | None = None,
    poll_interval: float = POLL_INTERVAL,
) -> bool:
    """True once every function returns True; False if `timeout` seconds pass first."""
    source = clock or RealClock()
    deadline = None if timeout is None else source.monotonic() + timeout
    while True:
        if all(check() for check in has_synced):
            return True
        if deadline is not None and source.monotonic() >= deadline:
            return False
        await source.sleep(poll_interval)
