"""Watch: the hub that fans committed writes out to watchers, and the watcher itself.

Everything here runs on the event loop. The writer hands each committed batch to `WatchHub.publish`, in
revision order; a new watcher is registered synchronously and records the hub's revision L at that moment:
every event above L will reach it live, and everything at or below L is already committed, so it reads
(from, L] from the log and then switches to its queue. No event is missed or repeated at the switch because
registration and publishing are both loop steps.

Each watcher's queue is bounded. While it is still replaying history, an overflow only discards the queued
live events and moves L up to the newest one (they are in the log and will be read from there); once live,
an overflow cuts the watcher off (`cut_off` becomes True and iteration ends) instead of growing memory.

History is read in pages. If a compaction passes the replay position meanwhile, rows the replay still needs
may be gone, so iteration raises TooOldResourceVersion (as etcd ends a watch with "compacted").
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Awaitable, Callable

import orjson

from kubelite.storage.errors import StorageError, TooOldResourceVersion
from kubelite.storage.interface import Obj, WatchEvent
from kubelite.storage.sqlite.writer import Record

#: (prefix, after, until, limit) -> (events, revision read up to)
ReadHistory = Callable[[str, int, int, int], Awaitable[tuple[list[WatchEvent], int]]]

HISTORY_PAGE = 500


class WatchHub:
    def __init__(self, revision: int) -> None:
        #: the newest revision published to watchers
        self.revision = revision
        self._watchers: set[SQLiteWatcher] = set()

    def add(self, watcher: SQLiteWatcher) -> None:
        self._watchers.add(watcher)

    def remove(self, watcher: SQLiteWatcher) -> None:
        self._watchers.discard(watcher)

    def __len__(self) -> int:
        return len(self._watchers)

    def publish(self, records: list[Record]) -> None:
        for rec in records:
            self.revision = rec.revision
            if not self._watchers:
                continue
            event: WatchEvent | None = None
            for watcher in list(self._watchers):
                if not watcher.wants(rec.key, rec.revision):
                    continue
                if event is None:
                    # Decoded once, shared by every watcher (read-only by contract).
                    prev = orjson.loads(rec.prev_value) if rec.prev_value is not None else None
                    event = WatchEvent(rec.type, rec.key, orjson.loads(rec.value), rec.revision, prev=prev)
                watcher.push(event)

    def stop_all(self) -> None:
        for watcher in list(self._watchers):
            watcher.stop()


class SQLiteWatcher:
    """Events under a prefix with revision > from_revision; see the module docstring."""

    def __init__(
        self,
        hub: WatchHub,
        prefix: str,
        from_revision: int,
        predicate: Callable[[Obj], bool] | None,
        queue_size: int,
        read_history: ReadHistory,
        compacted: Callable[[], int],
    ) -> None:
        self._hub = hub
        self._prefix = prefix
        self._from = from_revision
        self._predicate = predicate
        self._queue_size = queue_size
        self._read_history = read_history
        self._compacted = compacted
        self._queue: collections.deque[WatchEvent] = collections.deque()
        #: events at or below this revision come from the log, above it from the queue
        self._history_until = hub.revision
        self._live = False
        self._stopped = False
        self._iterating = False
        self._waiter: asyncio.Future[None] | None = None
        #: True when the watcher fell too far behind and was stopped
        self.cut_off = False
        #: set when a predicate raised while the event was published; iteration re-raises it
        self.error: BaseException | None = None
        hub.add(self)

    def wants(self, key: str, revision: int) -> bool:
        return revision > self._from and key.startswith(self._prefix)

    def push(self, event: WatchEvent) -> None:
        if self._stopped:
            return
        try:
            if self._predicate is not None and not self._predicate(event.obj):
                return
        except Exception as exc:
            self.error = exc
            self.stop()
            return
        if len(self._queue) >= self._queue_size:
            if not self._live:
                # Still replaying: drop the buffer and read these events from the log instead.
                self._queue.clear()
                self._history_until = event.revision
                return
            self.cut_off = True
            self.stop()
            return
        self._queue.append(event)
        self._wake()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._queue.clear()
        self._hub.remove(self)
        self._wake()

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        if self._iterating:
            raise RuntimeError("a watcher can be iterated once")
        self._iterating = True
        return self._events()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def _events(self) -> AsyncIterator[WatchEvent]:
        try:
            position = self._from
            while not self._stopped and position < self._history_until:
                try:
                    events, done = await self._read_history(
                        self._prefix, position, self._history_until, HISTORY_PAGE
                    )
                except StorageError:
                    if self._stopped:
                        return  # the storage closed under the replay
                    raise
                oldest = self._compacted()
                if oldest > position:
                    raise TooOldResourceVersion(position, oldest)
                for event in events:
                    if self._stopped:
                        return
                    if self._predicate is None or self._predicate(event.obj):
                        yield event
                position = done
            # No await between the last check of _history_until and this: the switch is atomic.
            self._live = True
            while True:
                if self._stopped:
                    if self.error is not None:
                        raise self.error
                    return
                if self._queue:
                    yield self._queue.popleft()
                    continue
                self._waiter = asyncio.get_running_loop().create_future()
                await self._waiter
                self._waiter = None
        finally:
            self.stop()
