"""A small controller runtime: informers feed keys into a rate-limited work queue, workers reconcile them.

    informer events --(map to keys)--> RateLimitingQueue --> N workers --> reconcile(key)

Reconcile functions are level-triggered: they receive a key, read the current state from listers, and make the
world match. A key is never reconciled by two workers at once (the queue guarantees it); a reconcile that raises
is retried with the queue's backoff, up to `max_retries` times; one that returns a number of seconds is run
again after that long (periodic checks); one that returns None is done until the next event. `run()` waits for
the informers' caches before starting workers, so a reconcile never acts on an empty cache.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration, SharedIndexInformer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock, RealClock
from kubelite.client.workqueue.metrics import MetricsProvider
from kubelite.client.workqueue.queue import QueueShutDown
from kubelite.client.workqueue.rate_limiter import RateLimiter
from kubelite.client.workqueue.rate_limiting import RateLimitingQueue

log = logging.getLogger(__name__)

#: reconcile(key) -> None when done, or seconds after which to reconcile the key again
Reconcile = Callable[[str], Awaitable[float | None]]
#: the keys an object's change should reconcile (its own key by default; an owner's key, say)
KeyMapper = Callable[[Any], Iterable[str]]


def own_key(obj: Any) -> Iterable[str]:
    return [meta_namespace_key(obj)]


class Controller:
    def __init__(
        self,
        name: str,
        reconcile: Reconcile,
        *,
        workers: int = 1,
        max_retries: int | None = 15,
        rate_limiter: RateLimiter | None = None,
        metrics_provider: MetricsProvider | None = None,
        clock: Clock | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("a controller needs at least one worker")
        self.name = name
        self.reconcile = reconcile
        self.workers = workers
        self.max_retries = max_retries
        self.clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(
            rate_limiter, name=name, metrics_provider=metrics_provider, clock=self.clock
        )
        self._registrations: list[ResourceEventHandlerRegistration] = []

    def watch(
        self,
        informer: SharedIndexInformer,
        *,
        keys: KeyMapper = own_key,
        predicate: Callable[[Any], bool] | None = None,
    ) -> ResourceEventHandlerRegistration:
        """Enqueue the keys of every added, changed or deleted object of `informer` that `predicate` accepts.

        Updates that change nothing but the resourceVersion are still enqueued (they are resyncs, which exist to
        reconcile again)."""

        def enqueue(obj: Any) -> None:
            target = deleted_object(obj)
            if target is None or (predicate is not None and not predicate(target)):
                return
            for key in keys(target):
                self.queue.add(key)

        registration = informer.add_event_handler(
            ResourceEventHandlerFuncs(add=enqueue, update=lambda old, new: enqueue(new), delete=enqueue)
        )
        self._registrations.append(registration)
        return registration

    def has_synced(self) -> bool:
        return all(registration.has_synced() for registration in self._registrations)

    async def run(self) -> None:
        """Wait for the caches, then reconcile until cancelled (in-flight reconciles finish first)."""
        await wait_for_cache_sync(self.has_synced, clock=self.clock)
        log.info("%s: caches synced, starting %d workers", self.name, self.workers)
        workers = [
            asyncio.create_task(self._worker(), name=f"{self.name} worker {i}") for i in range(self.workers)
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            self.queue.shut_down()
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self) -> None:
        while True:
            try:
                key = await self.queue.get()
            except QueueShutDown:
                return
            try:
                await self._process(key)
            finally:
                self.queue.done(key)

    async def _process(self, key: str) -> None:
        try:
            again = await self.reconcile(key)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.max_retries is None or self.queue.num_requeues(key) < self.max_retries:
                log.info("%s: reconciling %s failed, will retry: %s", self.name, key, exc)
                self.queue.add_rate_limited(key)
            else:
                log.warning("%s: dropping %s after %d retries: %s", self.name, key, self.max_retries, exc)
                self.queue.forget(key)
            return
        self.queue.forget(key)
        if again is not None:
            self.queue.add_after(key, again)
