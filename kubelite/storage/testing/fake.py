"""FaultyStorage: a `Storage` that forwards to a real one and injects the faults tests need.

kube's storage tests and client-go's fake controller source inject faults at the seam instead of breaking a
real database; this does the same for kubelite's storage interface. Without faults it behaves exactly as the
storage it wraps (the conformance suite runs over it), so a test can start healthy and then:

- `fail_next_write(error)`: the next create, update or delete raises `error` without writing;
- `fail_lists(count, error)`: the next `count` lists raise (None: every list until `heal()`);
- `hold_events()` / `release_events()`: watch events wait (delayed delivery) until released;
- `drop_watches(error)`: every open watch ends with `error`, as a broken connection ends it;
- `compact_now()`: compact at the current revision, under whatever watches are open.

Counters (`lists`, `watches`) tell a test how often the code under test came back to storage. A failed list
fails as the SQLite reader's do, through an awaited future, with what it had decoded so far in its frame;
`failed_reads` holds a weak reference to each such partial result, so a test can see it is freed.
"""

from __future__ import annotations

import asyncio
import copy
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.storage.errors import StorageError
from kubelite.storage.interface import (
    ListOptions,
    ListResult,
    Preconditions,
    Storage,
    TryUpdate,
    ValidateDeletion,
    Watcher,
    WatchEvent,
)


class InjectedFault(StorageError):
    """The error FaultyStorage raises when a test did not name one."""


class PartialRead:
    """What a list had decoded when it failed."""

    def __init__(self) -> None:
        self.items = [{"metadata": {"name": f"partial-{i}"}, "data": {"x": "y" * 100}} for i in range(100)]


class FaultyStorage:
    def __init__(self, inner: Storage) -> None:
        self.inner = inner
        self._write_faults: list[BaseException] = []
        self._list_faults_left: int | None = 0
        self._list_fault: BaseException = InjectedFault("injected list failure")
        self._released = asyncio.Event()
        self._released.set()
        self._watchers: set[_FaultyWatcher] = set()
        #: how many lists and watches were asked of this storage
        self.lists = 0
        self.watches = 0
        self.failed_reads: list[weakref.ref[PartialRead]] = []

    # -- faults -------------------------------------------------------------------------------------------

    def fail_next_write(self, error: BaseException | None = None) -> None:
        self._write_faults.append(error or InjectedFault("injected write failure"))

    def fail_lists(self, count: int | None = 1, error: BaseException | None = None) -> None:
        """The next `count` lists raise `error`; None: all of them until `heal()`."""
        self._list_faults_left = count
        self._list_fault = error or InjectedFault("injected list failure")

    def heal(self) -> None:
        """No more injected failures (events held stay held until `release_events`)."""
        self._write_faults.clear()
        self._list_faults_left = 0

    def hold_events(self) -> None:
        self._released.clear()

    def release_events(self) -> None:
        self._released.set()

    def drop_watches(self, error: BaseException | None = None) -> None:
        for watcher in list(self._watchers):
            watcher.drop(error or InjectedFault("injected watch drop"))

    async def compact_now(self) -> int:
        revision = await self.inner.current_revision()
        await self.inner.compact(revision)
        return revision

    @property
    def open_watches(self) -> int:
        return len(self._watchers)

    def _write_fault(self) -> None:
        if self._write_faults:
            raise self._write_faults.pop(0)

    # -- Storage --------------------------------------------------------------------------------------------

    async def create(self, key: str, obj: Obj) -> Obj:
        self._write_fault()
        return await self.inner.create(key, obj)

    async def get(self, key: str) -> Obj:
        return await self.inner.get(key)

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        self.lists += 1
        left = self._list_faults_left
        if left is None or left > 0:
            if left is not None:
                self._list_faults_left = left - 1
            await self._fail_read(copy.copy(self._list_fault))
        return await self.inner.get_list(prefix, opts)

    async def _fail_read(self, error: BaseException) -> None:
        partial = PartialRead()
        self.failed_reads.append(weakref.ref(partial))
        failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        failed.set_exception(error)
        await failed  # raises `error`, whose traceback holds this frame, `partial` and `failed` with it

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        self._write_fault()
        return await self.inner.guaranteed_update(
            key, try_update, ignore_not_found=ignore_not_found, preconditions=preconditions, cached=cached
        )

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        self._write_fault()
        return await self.inner.delete(
            key, preconditions=preconditions, validate_deletion=validate_deletion, cached=cached
        )

    def watch(
        self,
        prefix: str,
        from_revision: int,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        progress_notify: bool = False,
    ) -> Watcher:
        inner = self.inner.watch(prefix, from_revision, predicate=predicate, progress_notify=progress_notify)
        self.watches += 1
        watcher = _FaultyWatcher(inner, self._released, self._watchers.discard)
        self._watchers.add(watcher)
        return watcher

    async def request_progress(self) -> None:
        await self.inner.request_progress()

    async def current_revision(self) -> int:
        return await self.inner.current_revision()

    @property
    def compacted_revision(self) -> int:
        return self.inner.compacted_revision

    async def compact(self, revision: int) -> None:
        await self.inner.compact(revision)

    async def close(self) -> None:
        for watcher in list(self._watchers):
            watcher.stop()
        await self.inner.close()


class _FaultyWatcher:
    """The wrapped watcher's events, each waiting while events are held; ends with an injected drop."""

    def __init__(self, inner: Watcher, released: asyncio.Event, on_end: Callable[[Any], None]) -> None:
        self._inner = inner
        self._released = released
        self._on_end = on_end
        self._dropped: BaseException | None = None
        self._wake = asyncio.Event()
        #: the event taken from the inner watcher and not yet handed on (held, or about to be)
        self._pending: WatchEvent | None = None

    def owes(self, key: str) -> bool:
        pending = self._pending
        return (pending is not None and pending.key == key) or self._inner.owes(key)

    def drop(self, error: BaseException) -> None:
        self._dropped = error
        self._wake.set()
        self._inner.stop()

    def stop(self) -> None:
        self._on_end(self)
        self._inner.stop()

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[WatchEvent]:
        try:
            async for event in self._inner:
                self._pending = event
                while not self._released.is_set() and self._dropped is None:
                    released = asyncio.ensure_future(self._released.wait())
                    woken = asyncio.ensure_future(self._wake.wait())
                    try:
                        await asyncio.wait({released, woken}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        released.cancel()
                        woken.cancel()
                if self._dropped is not None:
                    break
                self._pending = None
                yield event
            if self._dropped is not None:
                raise self._dropped
        finally:
            self._pending = None
            self._on_end(self)
