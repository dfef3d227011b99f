"""The delaying queue (client-go's `delaying_queue.go`): `add_after(item, delay)` adds the item once the delay
has passed. Waiting items sit in a heap ordered by when they are due; an item already waiting keeps the earlier
of its two due times. One task per queue (started on the first delayed add) moves due items into the queue,
sleeping on the queue's clock until the next is due or an earlier one arrives.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Hashable
from typing import TypeVar

from kubelite.client.clock import Clock
from kubelite.client.notify import Wakeup
from kubelite.client.workqueue.metrics import MetricsProvider
from kubelite.client.workqueue.queue import Queue

T = TypeVar("T", bound=Hashable)


class DelayingQueue(Queue[T]):
    def __init__(
        self, *, name: str = "", metrics_provider: MetricsProvider | None = None, clock: Clock | None = None
    ) -> None:
        super().__init__(name=name, metrics_provider=metrics_provider, clock=clock)
        # Invariant: _ready_at holds exactly the items in _heap with a live entry; an entry (due, seq, item)
        # is live iff _ready_at[item] == due; stale entries are skipped when they reach the top.
        self._heap: list[tuple[float, int, T]] = []
        self._ready_at: dict[T, float] = {}
        self._sequence = itertools.count()
        self._new_waiting = Wakeup()
        self._loop_task: asyncio.Task[None] | None = None

    def add_after(self, item: T, delay: float) -> None:
        if self._shutting_down:
            return
        self._metrics.retry()
        if delay <= 0:
            self.add(item)
            return
        due = self.clock.monotonic() + delay
        current = self._ready_at.get(item)
        if current is not None and current <= due:
            return
        self._ready_at[item] = due
        heapq.heappush(self._heap, (due, next(self._sequence), item))
        self._new_waiting.notify()
        if self._loop_task is None:
            self._loop_task = asyncio.create_task(self._waiting_loop(), name=f"workqueue {self.name} delays")

    def waiting(self) -> int:
        """How many items wait for their delay."""
        return len(self._ready_at)

    def _move_due(self) -> float | None:
        """Add every item that is due; return when the next one is, if any."""
        now = self.clock.monotonic()
        while self._heap:
            due, _, item = self._heap[0]
            if self._ready_at.get(item) != due:
                heapq.heappop(self._heap)
                continue
            if due > now:
                return due
            heapq.heappop(self._heap)
            del self._ready_at[item]
            self.add(item)
        return None

    async def _waiting_loop(self) -> None:
        while not self._shutting_down:
            # register for arrivals before looking at the heap, so an add_after in between is not missed
            arrival = self._new_waiting.future()
            next_due = self._move_due()
            waits: set[asyncio.Future[None]] = {arrival}
            if next_due is not None:
                waits.add(asyncio.ensure_future(self._sleep_until(next_due)))
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waits:
                    waiter.cancel()

    async def _sleep_until(self, due: float) -> None:
        await self.clock.sleep(due - self.clock.monotonic())

    def shut_down(self) -> None:
        super().shut_down()
        self._new_waiting.notify()
        if self._loop_task is not None:
            self._loop_task.cancel()
            self._loop_task = None

    async def shut_down_with_drain(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            self._loop_task = None
        await super().shut_down_with_drain()
