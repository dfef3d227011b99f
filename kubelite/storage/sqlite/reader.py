"""A small pool of reader threads, each with its own read-only connection.

In WAL mode readers never wait for the writer and see the state as of the last COMMIT when their read
transaction starts, so gets and lists run beside group commits. Each job is a function of a connection; it
runs on a pool thread and its result comes back to the event loop through `call_soon_threadsafe`. Python's
sqlite3 releases the GIL while SQLite steps, so a few threads do overlap.

A raw SQLite error that means the file is damaged reaches the caller as CorruptStoreError (integrity.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kubelite.storage.errors import CorruptStoreError, StorageError
from kubelite.storage.sqlite import integrity, schema

T = TypeVar("T")

_STOP = object()


class ReaderPool:
    def __init__(self, path: Path, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self._path = path
        self._loop = loop
        self._size = size
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._exited: list[concurrent.futures.Future[None]] = []
        self._closed = False

    async def start(self) -> None:
        ready: list[concurrent.futures.Future[None]] = []
        for i in range(self._size):
            started: concurrent.futures.Future[None] = concurrent.futures.Future()
            exited: concurrent.futures.Future[None] = concurrent.futures.Future()
            thread = threading.Thread(
                target=self._run, args=(started, exited), name=f"kubelite-sqlite-reader-{i}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
            self._exited.append(exited)
            ready.append(started)
        try:
            await asyncio.gather(*(asyncio.wrap_future(f) for f in ready))
        except BaseException:
            await self.stop()
            raise

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(connection)` on a reader thread."""
        if self._closed:
            raise StorageError("storage is closed")
        future: asyncio.Future[T] = self._loop.create_future()
        self._jobs.put((fn, future))
        return await future

    async def stop(self) -> None:
        """Let queued jobs finish, then close every connection."""
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._jobs.put(_STOP)
        await asyncio.gather(*(asyncio.wrap_future(f) for f in self._exited))

    def _run(self, started: concurrent.futures.Future[None], exited: concurrent.futures.Future[None]) -> None:
        try:
            conn = schema.connect(self._path, writer=False)
        except BaseException as exc:
            started.set_exception(exc)
            exited.set_result(None)
            return
        started.set_result(None)
        try:
            while True:
                job = self._jobs.get()
                if job is _STOP:
                    break
                fn, future = job
                try:
                    result = fn(conn)
                except BaseException as exc:
                    if conn.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            conn.execute("ROLLBACK")
                    self._resolve(future, None, self._typed(exc))
                else:
                    self._resolve(future, result, None)
        finally:
            conn.close()
            exited.set_result(None)

    def _typed(self, exc: BaseException) -> BaseException:
        """A raw SQLite error that means damage becomes CorruptStoreError; every corruption error names the file."""
        exc = integrity.corruption(exc, self._path)
        if isinstance(exc, CorruptStoreError) and not exc.path:
            exc.path = str(self._path)
        return exc

    def _resolve(self, future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
        # RuntimeError: the loop is closed, nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(_settle, future, result, exc)


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)
