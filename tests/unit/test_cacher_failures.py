"""The watch cache when storage fails: start-up, relists with backoff on the fake clock, shutdown, memory,
and a watcher cut off for falling behind. Faults come from kubelite.storage.testing.fake.FaultyStorage."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import uvloop

from kubelite.apimachinery.meta import Obj
from kubelite.storage.cacher import Cacher, CacheWatcher
from kubelite.storage.cacher.bookmarks import send_bookmarks_every
from kubelite.storage.interface import EventType, WatchEvent, WatchRequest
from kubelite.storage.sqlite import SQLiteStorage
from kubelite.storage.testing.fake import FaultyStorage, InjectedFault
from kubelite.util.backoff import ExponentialBackoff
from kubelite.util.clock import FakeClock

PREFIX = "/registry/configmaps/"


def run(body: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(body(), 20))


def configmap(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (in real time: storage reads run on threads) until `condition` holds."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.002)


@asynccontextmanager
async def faulty(tmp_path: Path) -> AsyncIterator[FaultyStorage]:
    storage = FaultyStorage(await SQLiteStorage.open(tmp_path))
    try:
        yield storage
    finally:
        await storage.close()


def new_cacher(storage: FaultyStorage, clock: FakeClock) -> Cacher:
    backoff = ExponentialBackoff(initial=0.2, cap=1.6, reset_after=60, jitter=0, clock=clock)
    return Cacher(storage, PREFIX, clock=clock, backoff=backoff)


def test_a_first_list_that_fails_fails_start(tmp_path: Path) -> None:
    async def body() -> None:
        async with faulty(tmp_path) as storage:
            storage.fail_lists(1, InjectedFault("damaged row"))
            cacher = new_cacher(storage, FakeClock())
            with pytest.raises(InjectedFault, match=r"^damaged row$"):
                await cacher.start()
            assert (storage.lists, cacher.failures) == (1, 0)  # not retried: start-up reports it
            await cacher.close()

    run(body)


def test_relists_back_off_exponentially_up_to_the_cap_then_recover(tmp_path: Path) -> None:
    async def body() -> None:
        async with faulty(tmp_path) as storage:
            clock = FakeClock()
            cacher = new_cacher(storage, clock)
            await cacher.start()
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            storage.fail_lists(None)
            storage.drop_watches()
            delays = []
            for _ in range(6):
                await until(lambda: clock.next_deadline() is not None)
                deadline = clock.next_deadline()
                assert deadline is not None
                delays.append(round(deadline - clock.monotonic(), 6))
                lists = storage.lists
                clock.step(deadline - clock.monotonic() - 0.01)  # not yet: nothing happens
                await asyncio.sleep(0.01)
                assert storage.lists == lists
                clock.step(0.01)
                await until(lambda lists=lists: storage.lists == lists + 1)
            assert delays == [0.2, 0.4, 0.8, 1.6, 1.6, 1.6]
            assert cacher.failures == 7  # the dropped watch, then six lists
            assert not watcher.stopped  # nothing was missed yet: it waits for the store to come back

            storage.heal()
            await until(lambda: clock.next_deadline() is not None)
            clock.step(1.6)
            await until(lambda: storage.open_watches == 1)
            created = await storage.create(f"{PREFIX}default/a", configmap("a"))
            assert await cacher.wait_until_fresh(int(created["metadata"]["resourceVersion"]), timeout=5)
            assert cacher.peek(f"{PREFIX}default/a") == created
            assert watcher.stopped  # the relist could not tell it what it missed, as kube's cacher
            assert (storage.lists, storage.watches, cacher.failures) == (8, 2, 7)
            await cacher.close()

    run(body)


def test_shutdown_interrupts_the_backoff(tmp_path: Path) -> None:
    async def body() -> None:
        async with faulty(tmp_path) as storage:
            clock = FakeClock()
            cacher = new_cacher(storage, clock)
            await cacher.start()
            storage.fail_lists(None)
            storage.drop_watches()
            await until(lambda: clock.next_deadline() is not None)
            task = cacher._task
            assert task is not None
            async with asyncio.timeout(1):  # the clock never moves: only cancellation ends the wait
                await cacher.close()
            assert task.cancelled()  # the cancellation went through, nothing swallowed it

    run(body)


def test_failed_relists_free_what_they_read(tmp_path: Path) -> None:
    """A store that fails every list must not grow the process: each failure's partial read is freed at
    once, by reference counting, not left in a reference cycle for the collector."""

    async def body() -> None:
        async with faulty(tmp_path) as storage:
            clock = FakeClock()
            cacher = new_cacher(storage, clock)
            await cacher.start()
            storage.fail_lists(None)
            gc.disable()
            try:
                storage.drop_watches()
                for _ in range(5):
                    await until(lambda: clock.next_deadline() is not None)
                    clock.step(2)
                await until(lambda: len(storage.failed_reads) == 5 and clock.next_deadline() is not None)
                assert [ref() is None for ref in storage.failed_reads] == [True] * 5
            finally:
                gc.enable()
            await cacher.close()

    run(body)


class _StalledClient:
    """A StreamWriter for a client that reads nothing."""

    def __init__(self) -> None:
        self.aborted = 0

    def write(self, event: WatchEvent) -> bool:
        return False

    def abort(self) -> None:
        self.aborted += 1


def test_a_watcher_cut_off_for_falling_behind_aborts_its_connection() -> None:
    async def body() -> None:
        watcher = CacheWatcher(
            prefix=PREFIX,
            predicate=None,
            queue_size=2,
            allow_bookmarks=False,
            on_stop=lambda _: None,
            current_revision=lambda: 0,
        )
        client = _StalledClient()
        watcher.attach(client)
        for revision in (1, 2):
            watcher.offer(WatchEvent(EventType.ADDED, f"{PREFIX}default/c{revision}", configmap("c"), revision))
        assert (watcher.overflowed, client.aborted) == (False, 0)
        watcher.offer(WatchEvent(EventType.ADDED, f"{PREFIX}default/c3", configmap("c"), 3))
        assert (watcher.overflowed, watcher.stopped, client.aborted) == (True, True, 1)
        watcher.offer(WatchEvent(EventType.ADDED, f"{PREFIX}default/c4", configmap("c"), 4))
        assert client.aborted == 1

    run(body)


def test_the_bookmark_timer_runs_on_the_clock(tmp_path: Path) -> None:
    async def body() -> None:
        async with faulty(tmp_path) as storage:
            clock = FakeClock()
            cacher = new_cacher(storage, clock)
            await cacher.start()
            created = await storage.create(f"{PREFIX}default/a", configmap("a"))
            revision = int(created["metadata"]["resourceVersion"])
            assert await cacher.wait_until_fresh(revision, timeout=5)
            bookmarks = await cacher.watch_stream(WatchRequest(PREFIX, revision, allow_bookmarks=True))
            plain = await cacher.watch_stream(WatchRequest(PREFIX, revision))
            timer = asyncio.create_task(send_bookmarks_every(60, [cacher], clock))
            try:
                await until(lambda: clock.has_waiters())
                await create_and_wait(storage, cacher, "b")
                clock.step(59)
                await asyncio.sleep(0.01)
                assert [e.type for e in drain(bookmarks)] == [EventType.ADDED]
                clock.step(1)
                await until(lambda: not bookmarks._queue.empty())
                assert [(e.type, e.revision) for e in drain(bookmarks)] == [(EventType.BOOKMARK, cacher.revision)]
                assert [e.type for e in drain(plain)] == [EventType.ADDED]  # it did not ask for bookmarks
            finally:
                timer.cancel()
                await cacher.close()

    run(body)


async def create_and_wait(storage: FaultyStorage, cacher: Cacher, name: str) -> None:
    created = await storage.create(f"{PREFIX}default/{name}", configmap(name))
    assert await cacher.wait_until_fresh(int(created["metadata"]["resourceVersion"]), timeout=5)


def drain(watcher: CacheWatcher) -> list[WatchEvent]:
    events = []
    while not watcher._queue.empty():
        events.append(watcher._queue.get_nowait())
    return events
