"""SharedIndexInformer: one reflector and one cache per resource, shared by any number of handlers
(client-go's `shared_informer.go` with the `controller.go` loop it runs).

    reflector --(deltas)--> queue --pop--> handle_deltas: update the indexer, then notify every listener

The indexer is updated before handlers hear of a change, so a handler (or a lister it calls) always finds the
object in the cache; handlers run in their own tasks and never block the cache (see processor.py). A handler
added after start receives the current cache as synthetic adds, marked as part of the initial list, and its
registration's `has_synced` turns true once it has handled them.

The queue is a `RealFIFO` by default (every event in order; see fifo.py for why) or a `DeltaFIFO` with
`queue="delta"`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Literal

from kubelite.client.cache.delta_fifo import DeltaFIFO
from kubelite.client.cache.fifo import Delta, DeltaType, FIFOClosedError, Queue, TransformFunc
from kubelite.client.cache.handlers import ResourceEventHandler
from kubelite.client.cache.keys import KeyFunc, meta_namespace_key, resource_version
from kubelite.client.cache.listwatch import ListerWatcher
from kubelite.client.cache.processor import (
    AddNotification,
    DeleteNotification,
    ProcessorListener,
    SharedProcessor,
    UpdateNotification,
)
from kubelite.client.cache.real_fifo import RealFIFO
from kubelite.client.cache.reflector import Reflector, WatchErrorHandler, default_watch_error_handler
from kubelite.client.cache.store import NAMESPACE_INDEX, Indexer, IndexFunc, meta_namespace_index_func
from kubelite.client.clock import Clock, RealClock

log = logging.getLogger(__name__)

#: a handler may not ask for resyncs more often than this
MINIMUM_RESYNC_PERIOD = 1.0

QueueKind = Literal["real", "delta"]


class ResourceEventHandlerRegistration:
    """What `add_event_handler` returns: a handle to remove the handler and to ask whether it has synced."""

    def __init__(self, informer: SharedIndexInformer, listener: ProcessorListener) -> None:
        self.informer = informer
        self.listener = listener

    def has_synced(self) -> bool:
        return self.listener.has_synced()


class SharedIndexInformer:
    def __init__(
        self,
        lister_watcher: ListerWatcher,
        *,
        name: str = "informer",
        resync_period: float = 0.0,
        indexers: Mapping[str, IndexFunc] | None = None,
        key_func: KeyFunc = meta_namespace_key,
        queue: QueueKind = "real",
        use_watch_list: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.lister_watcher = lister_watcher
        self.name = name
        self.clock = clock or RealClock()
        self.key_func = key_func
        self.queue_kind: QueueKind = queue
        self.use_watch_list = use_watch_list
        self.indexer = Indexer(key_func, {NAMESPACE_INDEX: meta_namespace_index_func, **(indexers or {})})
        #: the default resync period of handlers that name none
        self.default_event_handler_resync_period = resync_period
        #: how often the reflector asks the handlers whether one is due (the smallest period asked for)
        self.resync_check_period = resync_period
        self.processor = SharedProcessor(self.clock)
        self.transform: TransformFunc | None = None
        self.watch_error_handler: WatchErrorHandler = default_watch_error_handler
        self.queue: Queue | None = None
        self.reflector: Reflector | None = None
        self._started = False
        self._stopped = False
        self._task: asyncio.Task[None] | None = None

    # -- configuration (before start) -------------------------------------------------------------------------

    def set_transform(self, transform: TransformFunc | None) -> None:
        self._refuse_if_started("set_transform")
        self.transform = transform

    def set_watch_error_handler(self, handler: WatchErrorHandler) -> None:
        self._refuse_if_started("set_watch_error_handler")
        self.watch_error_handler = handler

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        self.indexer.add_indexers(indexers)

    def _refuse_if_started(self, what: str) -> None:
        if self._started:
            raise RuntimeError(f"{what}: the informer {self.name} has already started")

    # -- state ------------------------------------------------------------------------------------------------

    def get_store(self) -> Indexer:
        return self.indexer

    get_indexer = get_store

    def has_synced(self) -> bool:
        return self.queue is not None and self.queue.has_synced()

    @property
    def last_sync_resource_version(self) -> str:
        return self.reflector.last_sync_resource_version if self.reflector else ""

    @property
    def is_stopped(self) -> bool:
        return self._stopped

    # -- handlers ---------------------------------------------------------------------------------------------

    def add_event_handler(
        self, handler: ResourceEventHandler, *, resync_period: float | None = None
    ) -> ResourceEventHandlerRegistration:
        if self._stopped:
            raise RuntimeError(f"the informer {self.name} has stopped; handlers cannot be added")
        period = self.default_event_handler_resync_period if resync_period is None else resync_period
        if period > 0:
            period = max(period, MINIMUM_RESYNC_PERIOD)
            if period < self.resync_check_period:
                if self._started:
                    # the reflector's timer already runs; the handler resyncs as often as it fires
                    period = self.resync_check_period
                else:
                    self.resync_check_period = period
                    for existing in self.processor.listeners:
                        existing.set_resync_period(
                            _effective_period(existing.requested_resync_period, period)
                        )
        requested = period
        period = _effective_period(requested, self.resync_check_period)
        listener = ProcessorListener(
            handler,
            requested_resync_period=requested,
            resync_period=period,
            clock=self.clock,
            upstream_has_synced=self.has_synced,
            name=f"{self.name}/{len(self.processor.listeners)}",
        )
        if self._started:
            # the current cache, as adds; nothing else can be delivered in between (no await here)
            for obj in self.indexer.list():
                listener.add(AddNotification(obj, True))
        self.processor.add_listener(listener)
        return ResourceEventHandlerRegistration(self, listener)

    async def remove_event_handler(self, registration: ResourceEventHandlerRegistration) -> None:
        await self.processor.remove_listener(registration.listener)

    # -- the loop ---------------------------------------------------------------------------------------------

    def _handle_deltas(self, deltas: list[Delta], is_in_initial_list: bool) -> None:
        for delta in deltas:
            obj = delta.object
            if delta.type is DeltaType.DELETED:
                self.indexer.delete(obj)
                self.processor.distribute(DeleteNotification(obj), sync=False)
                continue
            old = self.indexer.get(obj)
            if old is not None:
                self.indexer.update(obj)
                # an unchanged resourceVersion means a resync or a relist that found nothing new
                is_sync = resource_version(old) == resource_version(obj)
                self.processor.distribute(UpdateNotification(old, obj), sync=is_sync)
            else:
                self.indexer.add(obj)
                self.processor.distribute(AddNotification(obj, is_in_initial_list), sync=False)

    def _new_queue(self) -> Queue:
        if self.queue_kind == "delta":
            return DeltaFIFO(
                key_func=self.key_func,
                known_objects=self.indexer,
                emit_delta_type_replaced=True,
                transformer=self.transform,
            )
        return RealFIFO(known_objects=self.indexer, key_func=self.key_func, transformer=self.transform)

    async def run(self) -> None:
        """Run until cancelled: the reflector, the queue's consumer and the handlers."""
        self._refuse_if_started("run")
        self._started = True
        queue = self.queue = self._new_queue()
        self.reflector = Reflector(
            self.lister_watcher,
            queue,
            name=self.name,
            resync_period=self.resync_check_period,
            should_resync=self.processor.should_resync,
            use_watch_list=self.use_watch_list,
            clock=self.clock,
            watch_error_handler=self.watch_error_handler,
        )
        self.processor.start()
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(self.reflector.run(), name=f"{self.name} reflector")
                group.create_task(self._process_loop(queue), name=f"{self.name} queue")
        finally:
            queue.close()
            await self.processor.stop()
            self._stopped = True

    async def _process_loop(self, queue: Queue) -> None:
        while True:
            try:
                await queue.pop(self._handle_deltas)
            except FIFOClosedError:
                return
            except Exception:
                log.exception("%s: applying deltas failed", self.name)

    def start(self) -> asyncio.Task[None]:
        """Run in a new task (cancel it, or call `stop`, to stop)."""
        self._task = asyncio.create_task(self.run(), name=f"informer {self.name}")
        return self._task

    async def stop(self) -> None:
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass


def _effective_period(requested: float, check_period: float) -> float:
    """A handler's resync period under the informer's check period (client-go's determineResyncPeriod): none if
    either is zero (an informer made without resync never resyncs), never more often than the check fires."""
    if requested == 0 or check_period == 0:
        return 0.0
    return max(requested, check_period)
