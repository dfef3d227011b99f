"""`SQLiteStorage`: the embedded backend, a revision log in one SQLite file (etcd's model, one process).

It implements `kubelite.storage.interface.Storage` on top of three parts: the writer thread (writer.py, group
commit, revision counter), a reader pool (reader.py, queries.py) and the watch hub (watch.py). Nothing here
blocks the event loop; everything here runs on it.

Semantics follow kube's etcd3 store:

- guaranteed_update reads the current state, calls try_update on a private copy, and writes only if the key
  is still at the revision it read (compare-and-swap in the writer's transaction); a lost race retries with
  the state the writer saw. An update whose result equals the current object (resourceVersion aside) is not
  written. Preconditions are checked against the state of each try.
- delete checks preconditions, runs validate_deletion on the state it is about to delete and deletes only if
  that state is still current, else it retries.
- get_list reads the current state, or the state as of a revision (Exact, or a continue token's revision)
  from the log. A revision below the compacted one is TooOldResourceVersion; one above the current revision
  is FutureResourceVersion. A revision equal to the compacted one is still exact (as in etcd).
- watch(prefix, r) raises TooOldResourceVersion at call time when r < compacted; r == 0 means "from now".
  A compaction that overtakes a replay in progress ends it with TooOldResourceVersion from iteration.

Opening also looks after the data dir (datadir.py): its lock, so that one process serves it, and private
permissions. With `check_timeout`, an integrity check (integrity.py) runs on a thread of its own while the
caller goes on loading (the watch caches); `verify()` waits for its verdict, so that a damaged store is
refused before anything is served from it, at no cost to a healthy store's start-up beyond the wait.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson

from kubelite.apimachinery.meta import Obj
from kubelite.storage.errors import (
    Conflict,
    CorruptStoreError,
    FutureResourceVersion,
    KeyNotFound,
    StorageError,
    TooOldResourceVersion,
)
from kubelite.storage.interface import (
    ListOptions,
    ListResult,
    Preconditions,
    ResourceVersionMatch,
    TryUpdate,
    ValidateDeletion,
    WatchEvent,
)
from kubelite.storage.sqlite import datadir, integrity, queries
from kubelite.storage.sqlite.reader import ReaderPool
from kubelite.storage.sqlite.watch import SQLiteWatcher, WatchHub
from kubelite.storage.sqlite.writer import (
    CompactOp,
    CreateOp,
    DeleteOp,
    Outcome,
    PutOp,
    Record,
    Row,
    Stale,
    Writer,
)

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class SQLiteStorage:
    """Open with `await SQLiteStorage.open(data_dir)`; close with `await storage.close()`."""

    def __init__(
        self, path: Path, loop: asyncio.AbstractEventLoop, readers: int, watch_queue_size: int, max_batch: int
    ) -> None:
        self.path = path
        self._loop = loop
        self._writer = Writer(path, loop, self._on_commit, max_batch)
        self._readers = ReaderPool(path, loop, readers)
        self._hub = WatchHub(0)
        self._watch_queue_size = watch_queue_size
        self._compacted = 0
        self._compactor: asyncio.Task[None] | None = None
        self._closed = False
        self._lock: datadir.DataDirLock | None = None
        self._check: integrity.Check | None = None
        self._checked: concurrent.futures.Future[integrity.Report] | None = None

    @classmethod
    async def open(
        cls,
        data_dir: str | os.PathLike[str],
        *,
        readers: int = 2,
        watch_queue_size: int = 10_000,
        max_batch: int = 1000,
        lock: bool = False,
        check_timeout: float | None = None,
    ) -> SQLiteStorage:
        """Open (creating if needed) `<data_dir>/kubelite.db`, resuming its revision counter.

        With `lock`, hold the data dir's lock until closed (StoreInUse if another process has it). With
        `check_timeout` (seconds), start the integrity check; `verify()` gives its outcome.
        """
        loop = asyncio.get_running_loop()
        directory = Path(data_dir)
        held = datadir.DataDirLock(directory) if lock else None
        if held is not None:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            held.acquire()
        try:
            path = datadir.prepare(directory)
            storage = cls(path, loop, readers, watch_queue_size, max_batch)
            storage._lock = held
            # The writer creates the schema, so it starts before the readers and the check connect.
            await storage._writer.start()
        except BaseException:
            if held is not None:
                held.release()
            raise
        try:
            await storage._readers.start()
        except BaseException:
            await storage._writer.stop()
            if held is not None:
                held.release()
            raise
        storage._hub.revision = storage._writer.revision
        storage._compacted = storage._writer.compacted_at_start
        if check_timeout is not None:
            storage._start_check(check_timeout)
        return storage

    def _start_check(self, timeout: float) -> None:
        check = self._check = integrity.Check(self.path, mmap=True)
        future = self._checked = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(check.run(timeout))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=run, name="kubelite-store-check", daemon=True).start()

    async def verify(self) -> integrity.Report | None:
        """Wait for the integrity check started by `open`: CorruptStoreError when it found damage; a check
        cut short by its time budget is logged and passes. None when no check was started."""
        if self._check is None or self._checked is None:
            return None
        try:
            report = await asyncio.wrap_future(self._checked)
        except asyncio.CancelledError:
            self._check.stop()  # the caller gave up (a stop signal): end the check's read too
            raise
        if not report.ok:
            raise CorruptStoreError(
                f"the store {self.path} failed its integrity check: {report.summary()}", path=str(self.path)
            )
        if report.incomplete:
            log.warning(
                "integrity check of %s %s: the rest is unchecked (`kubelite store check` checks it all)",
                self.path,
                report.incomplete,
            )
        else:
            log.info("integrity check of %s passed in %.2f s", self.path, report.seconds)
        return report

    # -- reads ----------------------------------------------------------------------------------------------

    async def get(self, key: str) -> Obj:
        obj = await self._readers.run(functools.partial(queries.get_object, key=key))
        if obj is None:
            raise KeyNotFound(f"key not found: {key}", key=key)
        return obj

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        if not prefix.endswith("/"):
            raise ValueError(f"list prefix must end with '/': {prefix!r}")
        at: int | None = None
        min_revision = 0
        after = opts.continue_key
        if opts.continue_key is not None or opts.continue_revision:
            if opts.continue_revision > 0:
                at = opts.continue_revision
        elif opts.resource_version:
            if opts.match == ResourceVersionMatch.EXACT:
                at = opts.resource_version
            else:
                min_revision = opts.resource_version
        if at is not None and at < self._compacted:
            raise TooOldResourceVersion(at, self._compacted)
        query = queries.ListQuery(prefix, at, min_revision, after, opts.limit, opts.predicate, opts.transform)
        result = await self._readers.run(functools.partial(queries.list_objects, q=query))
        # A compaction that started while we read may have removed rows the old-revision read needed.
        if at is not None and at < self._compacted:
            raise TooOldResourceVersion(at, self._compacted)
        return result

    async def current_revision(self) -> int:
        return self._writer.revision

    # -- writes ---------------------------------------------------------------------------------------------

    async def create(self, key: str, obj: Obj) -> Obj:
        result: Obj = await self._writer.submit(CreateOp(key, _storable(obj)))
        return result

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        state = await self._current_row(key, cached)
        while True:
            if state is None:
                if not ignore_not_found:
                    raise KeyNotFound(f"key not found: {key}", key=key)
                _check_preconditions(key, preconditions, {})
                updated = await try_update(None)
            else:
                current = queries.decode(key, state.value)
                _check_preconditions(key, preconditions, current)
                updated = await try_update(current)
                stored: Obj = orjson.loads(state.value)
                if _same_content(updated, stored):
                    return stored
            outcome = await self._writer.submit(
                PutOp(
                    key,
                    _storable(updated),
                    state.revision if state is not None else 0,
                    state.value if state is not None else None,
                )
            )
            if isinstance(outcome, Stale):
                state = outcome.current
                continue
            result: Obj = outcome
            return result

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        state = await self._current_row(key, cached)
        while True:
            if state is None:
                raise KeyNotFound(f"key not found: {key}", key=key)
            current = queries.decode(key, state.value)
            _check_preconditions(key, preconditions, current)
            if validate_deletion is not None:
                await validate_deletion(current)
            outcome = await self._writer.submit(DeleteOp(key, state))
            if isinstance(outcome, Stale):
                state = outcome.current
                continue
            result: Obj = outcome
            return result

    # -- watch ----------------------------------------------------------------------------------------------

    def watch(
        self,
        prefix: str,
        from_revision: int,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        progress_notify: bool = False,
    ) -> SQLiteWatcher:
        """Events under `prefix` after `from_revision` (0: from now). Must be called on the event loop.

        With `progress_notify`, the watcher also gets BOOKMARK events from `request_progress`.
        """
        if self._closed:
            raise StorageError("storage is closed")
        if from_revision < 0:
            raise ValueError(f"negative revision: {from_revision}")
        if from_revision and from_revision < self._compacted:
            raise TooOldResourceVersion(from_revision, self._compacted)
        start = from_revision or self._hub.revision
        return SQLiteWatcher(
            self._hub,
            prefix,
            start,
            predicate,
            self._watch_queue_size,
            self._read_history,
            self._get_compacted,
            progress_notify=progress_notify,
        )

    async def request_progress(self) -> None:
        """etcd's RequestProgress: each progress-notify watcher gets a BOOKMARK at a revision at least as
        new as every write committed before this call, unless an event that new is already queued for it.

        A watch cache calls it before a consistent read, so it knows it is current even when nothing under
        its prefix was written.
        """
        await self._hub.wait_published(self._writer.revision)
        self._hub.request_progress()

    async def _read_history(
        self, prefix: str, after: int, until: int, limit: int
    ) -> tuple[list[WatchEvent], int]:
        return await self._readers.run(
            functools.partial(queries.history, prefix=prefix, after=after, until=until, limit=limit)
        )

    def _get_compacted(self) -> int:
        return self._compacted

    # -- compaction -----------------------------------------------------------------------------------------

    @property
    def compacted_revision(self) -> int:
        return self._compacted

    @property
    def write_stats(self) -> tuple[int, int]:
        """(transactions committed, writes applied) since open: how well group commit batches."""
        return self._writer.commits, self._writer.ops

    async def compact(self, revision: int) -> None:
        if revision <= self._compacted:
            return
        current = self._writer.revision
        if revision > current:
            raise FutureResourceVersion(revision, current)
        # Published before any row goes: readers and watchers check it after reading (see get_list).
        self._compacted = revision
        start: int | None = 0
        while start is not None:
            start = await self._writer.submit(CompactOp(revision, start))

    def start_compaction(self, interval: float, *, sleep: Sleep = asyncio.sleep) -> None:
        """Compact every `interval` seconds to the revision seen at the previous tick (kube's compactor).

        Keeping one interval of history lets watchers that are a little behind resume without a relist.
        """
        if self._compactor is not None:
            raise RuntimeError("compaction already started")
        self._compactor = self._loop.create_task(
            self._compact_loop(interval, sleep), name="kubelite-compactor"
        )

    async def _compact_loop(self, interval: float, sleep: Sleep) -> None:
        previous: int | None = None
        while True:
            await sleep(interval)
            revision = self._writer.revision
            if previous is not None and previous > self._compacted:
                try:
                    await self.compact(previous)
                except StorageError:
                    log.exception("compaction to revision %d failed", previous)
            previous = revision

    # -- lifecycle ------------------------------------------------------------------------------------------

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._compactor is not None:
            self._compactor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._compactor
        if self._check is not None:
            self._check.stop()
        self._hub.stop_all()
        await self._writer.stop()
        await self._readers.stop()
        if self._checked is not None:
            with contextlib.suppress(Exception):
                await asyncio.wrap_future(self._checked)  # stopped above: its statement was interrupted
        if self._lock is not None:
            self._lock.release()

    # -- internals ------------------------------------------------------------------------------------------

    async def _read_row(self, key: str) -> Row | None:
        return await self._readers.run(functools.partial(queries.get_row, key=key))

    async def _current_row(self, key: str, cached: Obj | None) -> Row | None:
        """The key's state to start a write from: the caller's copy when it has one that says its revision (a
        stale copy costs one retry, the writer's compare-and-swap catches it), else read from the file."""
        row = _row_of(cached) if cached is not None else None
        return row if row is not None else await self._read_row(key)

    def _on_commit(self, outcomes: list[Outcome], records: list[Record]) -> None:
        """On the loop: publish the batch's events first, so a writer that resumes finds them queued."""
        try:
            self._hub.publish(records)
        finally:
            for future, result, exc in outcomes:
                if future.done():
                    continue
                if exc is not None:
                    future.set_exception(exc)
                else:
                    future.set_result(result)


def _row_of(cached: Obj) -> Row | None:
    """The state a caller's copy of the object stands for (encoded again: orjson writes back the bytes it
    read), or None when the copy carries no revision."""
    revision = (cached.get("metadata") or {}).get("resourceVersion")
    if not isinstance(revision, str) or not revision.isdigit():
        return None
    return Row(int(revision), orjson.dumps(cached))


def _storable(obj: Obj) -> Obj:
    """A copy the writer thread may stamp with a resourceVersion without touching the caller's dicts."""
    if not isinstance(obj, dict):
        raise TypeError(f"object must be a dict, not {type(obj).__name__}")
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = {}
    elif not isinstance(metadata, dict):
        raise TypeError("object metadata must be a dict")
    return {**obj, "metadata": dict(metadata)}


def _without_resource_version(obj: Obj) -> Obj:
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "resourceVersion" in metadata:
        return {**obj, "metadata": {k: v for k, v in metadata.items() if k != "resourceVersion"}}
    return obj


def _same_content(a: Obj, b: Obj) -> bool:
    return _without_resource_version(a) == _without_resource_version(b)


def _check_preconditions(key: str, preconditions: Preconditions | None, obj: Obj) -> None:
    if preconditions is None:
        return
    metadata: dict[str, Any] = obj.get("metadata") or {}
    if preconditions.uid is not None:
        uid = metadata.get("uid", "")
        if preconditions.uid != uid:
            raise Conflict(
                f"Precondition failed: UID in precondition: {preconditions.uid}, UID in object meta: {uid}",
                key=key,
            )
    if preconditions.resource_version is not None:
        rv = metadata.get("resourceVersion", "")
        if preconditions.resource_version != rv:
            raise Conflict(
                "Precondition failed: ResourceVersion in precondition: "
                f"{preconditions.resource_version}, ResourceVersion in object meta: {rv}",
                key=key,
            )
