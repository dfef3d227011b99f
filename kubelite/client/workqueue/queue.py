"""The work queue (client-go's `util/workqueue/queue.go`): items to reconcile, with two guarantees that make
controllers simple:

- an item is never handed to two workers at once: while one processes it, a new `add` only marks it dirty,
  and `done` re-queues it (once, however many adds came in between);
- an item waiting in the queue is there once, however often it was added (adds collapse).

Items are keys (usually `namespace/name`), so the worker reads the current state from a lister instead of
acting on a stale event. `shut_down` stops handing out items; `shut_down_with_drain` also waits until every
item being processed is done. This is an asyncio queue: `add` and `done` are plain calls, `get` awaits.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from kubelite.client.clock import Clock, RealClock
from kubelite.client.notify import Wakeup
from kubelite.client.workqueue.metrics import MetricsProvider, NoQueueMetrics, QueueMetrics

T = TypeVar("T", bound=Hashable)


class QueueShutDown(Exception):
    """`get` on a queue that is shutting down and has nothing left to hand out."""


class Queue(Generic[T]):
    def __init__(
        self, *, name: str = "", metrics_provider: MetricsProvider | None = None, clock: Clock | None = None
    ) -> None:
        self.name = name
        self.clock = clock or RealClock()
        self._metrics: QueueMetrics = (
            QueueMetrics(metrics_provider, name, self.clock)
            if metrics_provider is not None
            else NoQueueMetrics()
        )
        # Invariants: every item in _queue is in _dirty and not in _processing, and appears once;
        # an item in both _dirty and _processing goes back into _queue when done() is called for it.
        self._queue: deque[T] = deque()
        #: items that need processing (queued, or re-added while processing)
        self._dirty: set[T] = set()
        #: items handed out by get() and not yet done()
        self._processing: set[T] = set()
        self._shutting_down = False
        #: shut_down_with_drain is waiting for _processing to empty
        self._drain = False
        self._wakeup = Wakeup()

    def add(self, item: T) -> None:
        if self._shutting_down:
            return
        if item in self._dirty:
            return
        self._metrics.add(item)
        self._dirty.add(item)
        if item in self._processing:
            return
        self._queue.append(item)
        self._wakeup.notify()

    def __len__(self) -> int:
        return len(self._queue)

    async def get(self) -> T:
        """The next item (mark it `done` when finished); raises QueueShutDown once shut down and empty."""
        while not self._queue:
            if self._shutting_down:
                raise QueueShutDown(self.name)
            await self._wakeup.wait()
        item = self._queue.popleft()
        self._metrics.get(item)
        self._processing.add(item)
        self._dirty.discard(item)
        return item

    def done(self, item: T) -> None:
        self._metrics.done(item)
        self._processing.discard(item)
        if item in self._dirty:
            self._queue.append(item)
        self._wakeup.notify()

    def shut_down(self) -> None:
        """Stop: adds are ignored, get raises QueueShutDown once what is queued is handed out."""
        self._shutting_down = True
        self._drain = False
        self._wakeup.notify()

    async def shut_down_with_drain(self) -> None:
        """Shut down, then wait until every item handed out has been marked done."""
        self._shutting_down = True
        self._drain = True
        self._wakeup.notify()
        while self._processing and self._drain:
            await self._wakeup.wait()

    def shutting_down(self) -> bool:
        return self._shutting_down

    def update_unfinished_work(self) -> None:
        """Refresh the unfinished-work metrics (call periodically, e.g. when metrics are scraped)."""
        self._metrics.update_unfinished_work()

    def check_invariants(self) -> None:
        if len(set(self._queue)) != len(self._queue):
            raise AssertionError(f"duplicates in the queue: {list(self._queue)}")
        for item in self._queue:
            if item not in self._dirty or item in self._processing:
                raise AssertionError(f"queued item {item!r} must be dirty and not processing")
