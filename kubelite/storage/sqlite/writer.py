"""The writer thread: the only connection that writes, with group commit.

Writes are queued as `Op`s. The thread takes whatever has queued up (while the previous COMMIT was waiting on
fsync, more writers arrived), applies them all in one transaction, commits once, then hands every outcome
and the committed log rows to the event loop in a single `call_soon_threadsafe` callback. Under concurrency
one fsync is shared by the whole batch; a lone writer pays one fsync per write.

Revisions are assigned here, one writer and one counter, so they are dense and in commit order; the loop
sees commits in the same order because callbacks scheduled with `call_soon_threadsafe` run FIFO.

An op that refuses (key exists, revision moved) does so before writing anything, so it cannot spoil the
batch. A SQLite error spoils the transaction: it is rolled back and each op is retried alone, so one bad op
fails only itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from kubelite.apimachinery.meta import Obj
from kubelite.storage.errors import CorruptObjectError, KeyExists, StorageError
from kubelite.storage.interface import EventType
from kubelite.storage.sqlite import integrity, schema

log = logging.getLogger(__name__)

#: rows a compaction step examines per transaction, so that writes waiting behind it stall only briefly
COMPACT_CHUNK = 2000


@dataclass(frozen=True, slots=True)
class Row:
    """A key's state: the revision of its newest log row and the stored JSON."""

    revision: int
    value: bytes


@dataclass(frozen=True, slots=True)
class Stale:
    """A compare-and-swap lost: the key is no longer at the expected revision. `current` is None if absent."""

    current: Row | None


@dataclass(frozen=True, slots=True)
class Record:
    """A committed log row, as the watch hub publishes it."""

    key: str
    revision: int
    type: EventType
    value: bytes
    prev_value: bytes | None


#: (future, result, exception) for one op
Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]
OnCommit = Callable[[list[Outcome], list[Record]], None]


class Op:
    """A write, applied on the writer thread inside the batch transaction."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future: asyncio.Future[Any] | None = None

    def apply(self, tx: Writer) -> Any:
        raise NotImplementedError


class CreateOp(Op):
    """Insert `obj` (a private copy with its own metadata dict) unless the key exists."""

    __slots__ = ("key", "obj")

    def __init__(self, key: str, obj: Obj) -> None:
        super().__init__()
        self.key = key
        self.obj = obj

    def apply(self, tx: Writer) -> Obj:
        if tx.current_revision_of(self.key) is not None:
            raise KeyExists(f"key exists: {self.key}", key=self.key)
        tx.append(self.key, self.obj, deleted=False, prev=None)
        return self.obj


class PutOp(Op):
    """Write `obj` if the key is still at `expected` (0: still absent); else return Stale."""

    __slots__ = ("expected", "key", "obj", "prev_value")

    def __init__(self, key: str, obj: Obj, expected: int, prev_value: bytes | None) -> None:
        super().__init__()
        self.key = key
        self.obj = obj
        self.expected = expected
        self.prev_value = prev_value

    def apply(self, tx: Writer) -> Obj | Stale:
        if (tx.current_revision_of(self.key) or 0) != self.expected:
            return Stale(tx.current_row(self.key))
        prev = Row(self.expected, self.prev_value) if self.expected and self.prev_value is not None else None
        tx.append(self.key, self.obj, deleted=False, prev=prev)
        return self.obj


class DeleteOp(Op):
    """Delete the key if it is still at `expected.revision`; the log row carries its last state."""

    __slots__ = ("expected", "key")

    def __init__(self, key: str, expected: Row) -> None:
        super().__init__()
        self.key = key
        self.expected = expected

    def apply(self, tx: Writer) -> Obj | Stale:
        if tx.current_revision_of(self.key) != self.expected.revision:
            return Stale(tx.current_row(self.key))
        obj: Obj = orjson.loads(self.expected.value)
        tx.append(self.key, obj, deleted=True, prev=self.expected)
        return obj


class CompactOp(Op):
    """One step of a compaction to `revision`, over log rows from `start`; returns where the next starts.

    A row at or below the compacted revision is dropped when it is a deletion or when a newer row of its key
    is also at or below it: what is left is each live key's state as of the compacted revision, so lists at
    any revision >= compacted stay exact, and every row above it (the watchable history) is kept.
    """

    __slots__ = ("revision", "start")

    def __init__(self, revision: int, start: int) -> None:
        super().__init__()
        self.revision = revision
        self.start = start

    def apply(self, tx: Writer) -> int | None:
        conn = tx.conn
        assert conn is not None  # ops are applied inside the writer's open transaction
        if self.start == 0:
            conn.execute("UPDATE meta SET value = MAX(value, ?) WHERE name = 'compacted'", (self.revision,))
        row = conn.execute(
            "SELECT rev FROM log WHERE rev >= ? AND rev <= ? ORDER BY rev LIMIT 1 OFFSET ?",
            (self.start, self.revision, COMPACT_CHUNK),
        ).fetchone()
        end = row[0] if row is not None else self.revision + 1
        conn.execute(
            "DELETE FROM log WHERE rev >= ? AND rev < ? AND (deleted = 1 OR EXISTS ("
            "SELECT 1 FROM log AS newer "
            "WHERE newer.key = log.key AND newer.rev > log.rev AND newer.rev <= ?))",
            (self.start, end, self.revision),
        )
        return end if row is not None else None


_STOP = object()


class Writer:
    """Owns the writing connection and its thread. Ops call back into it (`append`, `current_*`)."""

    def __init__(
        self, path: Path, loop: asyncio.AbstractEventLoop, on_commit: OnCommit, max_batch: int
    ) -> None:
        self._path = path
        self._loop = loop
        self._on_commit = on_commit
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._closed = False
        self.conn: sqlite3.Connection | None = None
        #: the newest committed revision; written by the writer thread, read anywhere (an int is atomic)
        self.revision = 0
        #: the compacted revision found in the file at start
        self.compacted_at_start = 0
        #: transactions committed since start; with `ops` it shows how well writes are grouped
        self.commits = 0
        self.ops = 0
        self._pending = 0
        self._records: list[Record] = []

    async def start(self) -> None:
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="kubelite-sqlite-writer", daemon=True
        )
        self._thread.start()
        await asyncio.wrap_future(ready)

    def submit(self, op: Op) -> asyncio.Future[Any]:
        if self._closed:
            raise StorageError("storage is closed")
        op.future = self._loop.create_future()
        self._queue.put(op)
        return op.future

    async def stop(self) -> None:
        """Finish every queued op, then close the connection and end the thread."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        await asyncio.wrap_future(self._done)

    # -- helpers for ops, writer thread only --------------------------------------------------------------

    def current_revision_of(self, key: str) -> int | None:
        assert self.conn is not None
        row = self.conn.execute("SELECT rev FROM current WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def current_row(self, key: str) -> Row | None:
        assert self.conn is not None
        row = self.conn.execute(
            "SELECT c.rev, CASE WHEN l.key = c.key AND l.deleted = 0 THEN l.value END "
            "FROM current AS c LEFT JOIN log AS l ON l.rev = c.rev WHERE c.key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        if row[1] is None:  # see queries.py: a damaged row is not an absent key
            raise CorruptObjectError(key, "its current revision points at no log row of this key", path=str(self._path))
        return Row(int(row[0]), bytes(row[1]))

    def append(self, key: str, obj: Obj, *, deleted: bool, prev: Row | None) -> None:
        """Log `obj` at the next revision (set into its resourceVersion) and point `current` at it."""
        assert self.conn is not None
        rev = self._pending + 1
        obj["metadata"]["resourceVersion"] = str(rev)
        # Serialize before touching the database: a value that cannot be encoded fails this op alone.
        value = orjson.dumps(obj)
        prev_rev = prev.revision if prev is not None else None
        self.conn.execute(
            "INSERT INTO log (rev, key, deleted, prev_rev, value) VALUES (?, ?, ?, ?, ?)",
            (rev, key, 1 if deleted else 0, prev_rev, value),
        )
        if deleted:
            self.conn.execute("DELETE FROM current WHERE key = ?", (key,))
            kind = EventType.DELETED
        else:
            self.conn.execute(
                "INSERT INTO current (key, rev) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET rev = excluded.rev",
                (key, rev),
            )
            kind = EventType.ADDED if prev is None else EventType.MODIFIED
        self._pending = rev
        self._records.append(Record(key, rev, kind, value, prev.value if prev is not None else None))

    # -- the thread ---------------------------------------------------------------------------------------

    def _run(self, ready: concurrent.futures.Future[None]) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = schema.connect(self._path, writer=True)
            self.revision, self.compacted_at_start = schema.init(self.conn)
            self._pending = self.revision
        except BaseException as exc:
            if self.conn is not None:
                self.conn.close()
            self._done.set_result(None)
            ready.set_exception(integrity.corruption(exc, self._path))
            return
        ready.set_result(None)
        try:
            stopping = False
            while not stopping:
                first = self._queue.get()
                if first is _STOP:
                    break
                batch: list[Op] = [first]
                while len(batch) < self._max_batch:
                    try:
                        nxt = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is _STOP:
                        stopping = True
                        break
                    batch.append(nxt)
                self._execute(batch)
        finally:
            self.conn.close()
            self._done.set_result(None)

    def _execute(self, batch: list[Op]) -> None:
        assert self.conn is not None
        outcomes: list[Outcome] = []
        start = self._pending
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            for op in batch:
                assert op.future is not None
                try:
                    outcomes.append((op.future, op.apply(self), None))
                except sqlite3.Error:
                    raise
                except Exception as exc:
                    outcomes.append((op.future, None, exc))
            self.conn.execute("COMMIT")
            self.commits += 1
            self.ops += len(batch)
        except sqlite3.Error as exc:
            self._rollback()
            self._pending = start
            self._records.clear()
            if len(batch) > 1:
                for op in batch:
                    self._execute([op])
                return
            log.error("sqlite write failed: %s", exc)
            error = integrity.corruption(exc, self._path)
            if error is exc:
                error = StorageError(f"sqlite write failed: {exc}")
                error.__cause__ = exc
            assert batch[0].future is not None
            outcomes = [(batch[0].future, None, error)]
        self.revision = self._pending
        records, self._records = self._records, []
        # RuntimeError: the loop is closed, nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._on_commit, outcomes, records)

    def _rollback(self) -> None:
        assert self.conn is not None
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                log.exception("sqlite rollback failed")
