"""Fan-out from one informer to its handlers (client-go's sharedProcessor and processorListener).

Each handler gets a listener: an unbounded buffer and a task that feeds the handler one notification at a time.
The informer appends without waiting, so a slow handler delays only itself, never the cache or other handlers.
A listener tracks its own resync schedule (handlers may ask for different periods) and its own `has_synced`:
true once the informer has synced and this handler has finished every add of the initial list (or, for a
handler added later, every synthetic add it was given).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubelite.client.cache.handlers import ResourceEventHandler
from kubelite.client.clock import Clock
from kubelite.client.notify import Wakeup

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AddNotification:
    obj: Any
    is_in_initial_list: bool


@dataclass(frozen=True, slots=True)
class UpdateNotification:
    old: Any
    new: Any


@dataclass(frozen=True, slots=True)
class DeleteNotification:
    obj: Any


Notification = AddNotification | UpdateNotification | DeleteNotification


class ProcessorListener:
    def __init__(
        self,
        handler: ResourceEventHandler,
        *,
        requested_resync_period: float,
        resync_period: float,
        clock: Clock,
        upstream_has_synced: Callable[[], bool],
        name: str = "",
    ) -> None:
        self.handler = handler
        self.requested_resync_period = requested_resync_period
        self.resync_period = resync_period
        self.name = name
        self._clock = clock
        self._upstream_has_synced = upstream_has_synced
        self._pending: deque[Notification] = deque()
        self._wakeup = Wakeup()
        #: initial-list adds handed to this listener and not yet finished by its handler
        self._initial_in_flight = 0
        self._next_resync = clock.monotonic() + resync_period
        self._task: asyncio.Task[None] | None = None
        #: notifications handled (tests and metrics read it)
        self.handled = 0

    def add(self, notification: Notification) -> None:
        if isinstance(notification, AddNotification) and notification.is_in_initial_list:
            self._initial_in_flight += 1
        self._pending.append(notification)
        self._wakeup.notify()

    def has_synced(self) -> bool:
        return self._upstream_has_synced() and self._initial_in_flight == 0

    def pending(self) -> int:
        return len(self._pending)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"informer handler {self.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _run(self) -> None:
        while True:
            while not self._pending:
                await self._wakeup.wait()
            notification = self._pending.popleft()
            try:
                await self._dispatch(notification)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("informer handler %s failed on %s", self.name, type(notification).__name__)
            finally:
                self.handled += 1
                if isinstance(notification, AddNotification) and notification.is_in_initial_list:
                    self._initial_in_flight -= 1

    async def _dispatch(self, notification: Notification) -> None:
        if isinstance(notification, AddNotification):
            result = self.handler.on_add(notification.obj, notification.is_in_initial_list)
        elif isinstance(notification, UpdateNotification):
            result = self.handler.on_update(notification.old, notification.new)
        else:
            result = self.handler.on_delete(notification.obj)
        if inspect.isawaitable(result):
            await result

    # -- resync schedule ---------------------------------------------------------------------------------------

    def should_resync(self, now: float) -> bool:
        return self.resync_period > 0 and now >= self._next_resync

    def determine_next_resync(self, now: float) -> None:
        self._next_resync = now + self.resync_period

    def set_resync_period(self, period: float) -> None:
        self.resync_period = period


class SharedProcessor:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        #: every listener, with whether it is due for the resync being delivered now
        self._listeners: dict[ProcessorListener, bool] = {}
        self._started = False

    @property
    def listeners(self) -> list[ProcessorListener]:
        return list(self._listeners)

    def add_listener(self, listener: ProcessorListener) -> None:
        self._listeners[listener] = True
        if self._started:
            listener.start()

    async def remove_listener(self, listener: ProcessorListener) -> None:
        if self._listeners.pop(listener, None) is not None:
            await listener.stop()

    def distribute(self, notification: Notification, *, sync: bool) -> None:
        """To every listener, or for a resync only to those whose resync is due."""
        for listener, syncing in self._listeners.items():
            if not sync or syncing:
                listener.add(notification)

    def should_resync(self) -> bool:
        """Mark the listeners whose resync is due; the reflector resyncs if any is."""
        now = self._clock.monotonic()
        due = False
        for listener in self._listeners:
            if listener.should_resync(now):
                due = True
                self._listeners[listener] = True
                listener.determine_next_resync(now)
            else:
                self._listeners[listener] = False
        return due

    def start(self) -> None:
        self._started = True
        for listener in self._listeners:
            listener.start()

    async def stop(self) -> None:
        self._started = False
        for listener in self._listeners:
            await listener.stop()
