"""Watch: the hub that fans committed writes out to watchers, and the watcher itself.

Everything here runs on the event loop. The writer hands each committed batch to `WatchHub.publish`, in
revision order; a new watcher is registered synchronously and records the hub's revision L at that moment:
every event above L will reach it live, and everything at or below L is already committed, so it reads
(from, L] from the log and then switches to its queue. No event is missed or repeated at the switch because
registration and publishing are both loop steps.

Each watcher's queue is bounded. While it is still replaying history, an overflow only discards the queued
live events and moves L up to the newest one (they are in the log and will be read from there); once live,
an overflow cuts the watcher off (`cut_off` becomes True and iteration ends) instead of growing memory.

A watcher opened with `progress_notify` also receives BOOKMARK events (key "", empty object) when
`WatchHub.request_progress` runs: "nothing under your prefix up to this revision", as etcd's progress
notifications, so a watch cache learns it is current although its resource was not written. A bookmark
still last in the queue is moved forward rather than followed by another.

History is read in pages. If a compaction passes the replay position meanwhile, rows the replay still needs
may be gone, so iteration raises TooOldResourceVersion (as etcd ends a watch with "compacted").
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Awaitable, Callable

import orjson

from kubelite.apimachinery.meta import Obj
from kubelite.storage.errors import StorageError, TooOldResourceVersion
from kubelite.storage.interface import EventType, WatchEvent
from kubelite.storage.sqlite.writer import Record

#: (prefix, after, until, limit) -> (events, revision read up to)
ReadHistory = Callable[[str, int, int, int], Awaitable[tuple[list[WatchEvent], int]]]

HISTORY_PAGE = 500


class WatchHub:
    def __init__(self, revision: int) -> None:
        #: the newest revision published to watchers
        self.revision = revision
        self._watchers: set[SQLiteWatcher] = set()
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def add(self, watcher: SQLiteWatcher) -> None:
        self._watchers.add(watcher)

    def remove(self, watcher: SQLiteWatcher) -> None:
        self._watchers.discard(watcher)

    def __len__(self) -> int:
        return len(self._watchers)

    def publish(self, records: list[Record]) -> None:
        try:
            self._publish(records)
        finally:
            if self._waiting:
                self._release_waiters()

    def _publish(self, records: list[Record]) -> None:
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

    async def wait_published(self, revision: int) -> None:
        """Until every revision up to `revision` has been published."""
        if self.revision >= revision:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((revision, future))
        await future

    def request_progress(self) -> None:
        """A bookmark at the published revision for every progress-notify watcher that is behind it."""
        for watcher in list(self._watchers):
            watcher.progress(self.revision)

    def _release_waiters(self, everyone: bool = False) -> None:
        keep = []
        for revision, future in self._waiting:
            if everyone or revision <= self.revision:
                if not future.done():
                    future.set_result(None)
            else:
                keep.append((revision, future))
        self._waiting = keep

    def stop_all(self) -> None:
        for watcher in list(self._watchers):
            watcher.stop()
        self._release_waiters(everyone=True)


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
        progress_notify: bool = False,
    ) -> None:
        self._hub = hub
        self._progress_notify = progress_notify
        #: the revision of the newest event or bookmark queued (or `from_revision`)
        self._pushed = from_revision
        #: key -> how many of its events are queued, not yet handed over
        self._owed: dict[str, int] = {}
        self._bookmark: WatchEvent | None = None
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
                self._owed.clear()
                self._bookmark = None
                self._history_until = event.revision
                self._pushed = event.revision
                return
            self.cut_off = True
            self.stop()
            return
        self._queue.append(event)
        self._owed[event.key] = self._owed.get(event.key, 0) + 1
        self._pushed = event.revision
        self._wake()

    def _hand_over(self, key: str) -> None:
        left = self._owed[key] - 1
        if left:
            self._owed[key] = left
        else:
            del self._owed[key]

    def owes(self, key: str) -> bool:
        """Whether an event of `key` is still to be handed over: always while history is replayed, and once
        stopped (a watcher cut off for falling behind has dropped what it owed)."""
        return self._stopped or not self._live or key in self._owed

    def progress(self, revision: int) -> None:
        if not self._progress_notify or self._stopped or revision <= self._pushed:
            return
        if self._bookmark is not None and self._queue and self._queue[-1] is self._bookmark:
            # The newest thing queued is still our bookmark: move it forward rather than add another.
            self._bookmark.revision = revision
            self._pushed = revision
            return
        if len(self._queue) >= self._queue_size:
            return  # progress is advisory; a full queue is not a reason to cut the watcher off
        self._pushed = revision
        self._bookmark = WatchEvent(EventType.BOOKMARK, "", {}, revision)
        self._queue.append(self._bookmark)
        self._wake()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._queue.clear()
        self._owed.clear()
        self._bookmark = None
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
                    event = self._queue.popleft()
                    if event is self._bookmark:
                        self._bookmark = None
                    if event.type is not EventType.BOOKMARK:
                        self._hand_over(event.key)
                    yield event
                    continue
                self._waiter = asyncio.get_running_loop().create_future()
                await self._waiter
                self._waiter = None
        finally:
            self.stop()
