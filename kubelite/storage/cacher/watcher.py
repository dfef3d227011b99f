"""CacheWatcher: one client's watch, fed by the cacher through a bounded queue.

The cacher never waits for a watcher: when a watcher's queue is full it is closed (the client re-watches
from its last resourceVersion, or re-lists on 410), so one slow client cannot grow the server's memory. A
watcher serving a client connection (see `attach`) writes events straight to it while the client keeps up,
and aborts the connection when it is cut off, so the socket and its unread kernel buffers go with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.storage.interface import EventType, StreamWriter, WatchEvent
from kubelite.storage.selection import selector_view

_CLOSED = object()


class CacheWatcher:
    def __init__(
        self,
        *,
        prefix: str,
        predicate: Callable[[Obj], bool] | None,
        queue_size: int,
        allow_bookmarks: bool,
        on_stop: Callable[[CacheWatcher], None],
        current_revision: Callable[[], int],
        transitions: bool = True,
    ) -> None:
        self._current_revision = current_revision
        self.prefix = prefix
        self.predicate = predicate
        self.allow_bookmarks = allow_bookmarks
        #: only events with a revision above this are sent (the watch's starting point)
        self.after_revision = 0
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=queue_size)
        self._on_stop = on_stop
        self.stopped = False
        #: True when the cacher cut this watcher off because it fell behind
        self.overflowed = False
        #: the client's connection, once attached: events go straight to it when they can (see `_put`)
        self.writer: StreamWriter | None = None
        #: its bound `write`, kept so the per-event path makes one call and no attribute lookup
        self._write: Callable[[WatchEvent], bool] | None = None
        #: with a predicate, whether an object entering or leaving it is an ADDED or DELETED (a client's
        #: watch, as kube's cacher sends) or is filtered on its new state alone (storage's watch)
        self.transitions = transitions
        #: storage's progress_notify: `progress` bookmarks reach this watcher
        self.progress_notify = False
        #: the value of the cacher's indexed field its selector pins, under which the cacher keeps it
        self.trigger_value: str | None = None

    def offer(self, event: WatchEvent) -> None:
        """Queue the event as this watcher should see it; close the watcher if it cannot keep up."""
        if self.stopped or event.revision <= self.after_revision or not event.key.startswith(self.prefix):
            return
        out = self._filter(event)
        if out is not None:
            self._put(out)

    def _filter(self, event: WatchEvent) -> WatchEvent | None:
        if self.predicate is None:
            return event
        if not self.transitions:
            return event if self.predicate(event.obj) else None
        return selector_view(event, self.predicate)

    def put_initial(self, event: WatchEvent) -> None:
        self._put(event)

    def bookmark(self, revision: int) -> None:
        if self.allow_bookmarks and not self.stopped and revision > self.after_revision:
            self._put(WatchEvent(EventType.BOOKMARK, "", {}, revision))

    def progress(self, revision: int) -> None:
        """Storage's progress notification: a bookmark, whether or not client bookmarks were asked for."""
        if not self.stopped and revision > self.after_revision:
            self._put(WatchEvent(EventType.BOOKMARK, "", {}, revision))

    def attach(self, writer: StreamWriter) -> None:
        self.writer = writer
        self._write = writer.write

    def owes(self, key: str) -> bool:
        """Whether an event of `key` waits in the queue (always, once stopped: what it held is dropped)."""
        if self.stopped:
            return True
        # asyncio.Queue offers no look at what it holds but its deque, `_queue`, which typeshed leaves out
        waiting = self._queue._queue  # type: ignore[attr-defined]
        return any(isinstance(item, WatchEvent) and item.key == key for item in waiting)

    def request_bookmark(self) -> None:
        """Send a bookmark at the cache's revision: every event up to it is already queued."""
        self.bookmark(self._current_revision())

    def _put(self, event: WatchEvent) -> None:
        # With nothing queued, the reader has written everything it took, so handing this event to the
        # client now keeps the order; it saves a task switch and a queue round trip per event and watcher.
        # The writer refuses (returns False) when the client's buffer is full, and the event queues.
        write = self._write
        if write is not None and self._queue.empty() and write(event):
            return
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            self.stop()
            writer = self.writer
            if writer is not None:
                # the client stopped reading: its connection would otherwise stay open with the kernel's
                # buffers full until its timeout, and the handler wait on it
                writer.abort()

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self._on_stop(self)
        # make room so the end marker always fits: the reader is told to finish
        while not self._queue.empty() and self.overflowed:
            self._queue.get_nowait()
        try:
            self._queue.put_nowait(_CLOSED)
        except asyncio.QueueFull:
            self._queue.get_nowait()
            self._queue.put_nowait(_CLOSED)

    def __aiter__(self) -> CacheWatcher:
        return self

    async def __anext__(self) -> WatchEvent:
        item: WatchEvent = await self._queue.get()  # an event, or the end marker checked for next
        if item is _CLOSED:
            self._queue.put_nowait(_CLOSED)
            raise StopAsyncIteration
        return item
