"""SQLiteStorage: the storage conformance suite, plus what only the SQLite backend promises.

SQLite-specific: the file layout (WAL, synchronous=FULL, the log rows), durability across reopen and across
`kill -9` of a writing process, compaction (rows kept, persistence, chunking, the periodic compactor),
group commit, watch queue bounds (overflow during replay, cut-off when live) and closing.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import uvloop

pytest.register_assert_rewrite("kubelite.storage.testing.conformance")

from kubelite.apimachinery.meta import Obj  # noqa: E402
from kubelite.storage.errors import StorageError, TooOldResourceVersion  # noqa: E402
from kubelite.storage.interface import EventType, ListOptions, ResourceVersionMatch  # noqa: E402
from kubelite.storage.sqlite import SQLiteStorage, queries, watch, writer  # noqa: E402
from kubelite.storage.testing import conformance  # noqa: E402
from kubelite.storage.testing.conformance import EventStream, configmap, key, stored, update_data  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
NS = conformance.NS_PREFIX


def run(fn: Callable[[], Awaitable[None]]) -> None:
    async def case(_: conformance.StorageFactory) -> None:
        await fn()

    conformance.run(case, _unused_factory)


async def _unused_factory() -> Any:
    raise AssertionError("not used")


def log_rows(data_dir: Path) -> list[tuple[int, str, int, int | None, dict[str, Any]]]:
    conn = sqlite3.connect(data_dir / "kubelite.db")
    try:
        rows = conn.execute("SELECT rev, key, deleted, prev_rev, value FROM log ORDER BY rev").fetchall()
    finally:
        conn.close()
    return [(rev, k, deleted, prev, orjson.loads(value)) for rev, k, deleted, prev, value in rows]


# -- conformance --------------------------------------------------------------------------------------------


LOOPS: dict[str, conformance.LoopFactory] = {
    "uvloop": uvloop.new_event_loop,
    "asyncio": asyncio.new_event_loop,
}


@pytest.mark.parametrize("loop", sorted(LOOPS), ids=sorted(LOOPS))
@pytest.mark.parametrize("name", sorted(conformance.CASES), ids=sorted(conformance.CASES))
def test_conformance(name: str, loop: str, tmp_path: Path) -> None:
    conformance.run(conformance.CASES[name], lambda: SQLiteStorage.open(tmp_path), loop_factory=LOOPS[loop])


# -- file layout --------------------------------------------------------------------------------------------


def test_file_is_wal_with_full_sync(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path / "nested" / "dir")
        try:
            assert s.path == tmp_path / "nested" / "dir" / "kubelite.db"
            pragmas = await s._readers.run(
                lambda c: (
                    c.execute("PRAGMA journal_mode").fetchone()[0],
                    c.execute("PRAGMA user_version").fetchone()[0],
                )
            )
            assert pragmas == ("wal", 1)
            assert s._writer.conn is not None
            # synchronous: 2 = FULL on the writing connection
            assert s._writer.conn.execute("PRAGMA synchronous").fetchone()[0] == 2
        finally:
            await s.close()

    run(body)


def test_log_rows(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a", v="1"))
            await conformance.update_data(s, key("a"), v="2")
            await s.delete(key("a"))
            await s.create(key("a"), configmap("a", v="3"))
        finally:
            await s.close()

    run(body)
    assert log_rows(tmp_path) == [
        (1, key("a"), 0, None, stored(configmap("a", v="1"), 1)),
        (2, key("a"), 0, 1, stored(configmap("a", v="2"), 2)),
        (3, key("a"), 1, 2, stored(configmap("a", v="2"), 3)),
        (4, key("a"), 0, None, stored(configmap("a", v="3"), 4)),
    ]


def test_a_watcher_knows_which_keys_it_owes(tmp_path: Path) -> None:
    """Every write is handed to its watchers before it is acknowledged, so a watcher can say whether its
    consumer has seen every acknowledged write of a key: not while history is replayed, nor while an event
    of the key is queued; writes of other keys do not matter."""

    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a"))
            watcher = s.watch("/registry/configmaps/", 1)
            assert watcher.owes(key("b")), "history not replayed yet"
            events = aiter(watcher)
            await s.create("/registry/secrets/default/x", {"metadata": {"name": "x"}})
            await s.create(key("b"), configmap("b"))
            await s.create(key("c"), configmap("c"))
            await update_data(s, key("b"), v="2")
            assert (await anext(events)).key == key("b")  # the history is replayed, then the queue read
            assert (watcher.owes(key("a")), watcher.owes(key("b")), watcher.owes(key("c"))) == (False, True, True)
            assert (await anext(events)).key == key("c")
            assert (watcher.owes(key("b")), watcher.owes(key("c"))) == (True, False)
            assert (await anext(events)).key == key("b")
            assert not watcher.owes(key("b"))
            assert not watcher.owes("/registry/secrets/default/x")
            watcher.stop()
            assert watcher.owes(key("a")), "a stopped watcher hands nothing over"
        finally:
            await s.close()

    run(body)


def test_schema_version_mismatch_refuses_to_open(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "kubelite.db")
    conn.execute("PRAGMA user_version = 99")
    conn.close()

    async def body() -> None:
        with pytest.raises(
            RuntimeError, match=r"^unsupported kubelite database schema version 99 \(want 1\)$"
        ):
            await SQLiteStorage.open(tmp_path)

    run(body)


# -- durability ---------------------------------------------------------------------------------------------


def test_reopen_keeps_objects_revisions_and_compaction(tmp_path: Path) -> None:
    async def first() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            for name in "abc":
                await s.create(key(name), configmap(name))
            await s.delete(key("c"))  # 4: compacting to it leaves no row at the current revision
            await s.compact(4)
        finally:
            await s.close()

    async def second() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            assert (await s.current_revision(), s.compacted_revision) == (4, 4)
            with pytest.raises(TooOldResourceVersion):
                s.watch(NS, 3)
            assert conformance.names(await s.get_list(NS, ListOptions())) == ["a", "b"]
            created = await s.create(key("d"), configmap("d"))
            assert created["metadata"]["resourceVersion"] == "5"
        finally:
            await s.close()

    run(first)
    run(second)


CHILD = r"""
import asyncio, sys
import uvloop
from kubelite.storage.sqlite import SQLiteStorage

async def main(data_dir):
    s = await SQLiteStorage.open(data_dir)

    async def worker(w):
        i = 0
        while True:
            k = f"/registry/configmaps/default/w{w}-{i}"
            out = await s.create(k, {"metadata": {"name": f"w{w}-{i}"}, "data": {"i": str(i)}})
            sys.stdout.write(f"{k} {out['metadata']['resourceVersion']}\n")
            sys.stdout.flush()
            i += 1

    await asyncio.gather(*(worker(w) for w in range(8)))

uvloop.run(main(sys.argv[1]))
"""


def test_kill_9_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None
    acked: list[str] = []
    killer = threading.Timer(60, child.kill)  # a hung child must not hang the suite
    killer.start()
    try:
        while len(acked) < 400:
            line = child.stdout.readline()
            if not line:
                break
            acked.append(line)
        child.send_signal(signal.SIGKILL)
        # Lines already in the pipe were acknowledged before the kill.
        acked.extend(child.stdout.readlines())
        assert child.wait() == -signal.SIGKILL
    finally:
        killer.cancel()
        child.stdout.close()
    assert len(acked) >= 400
    expected = {k: int(rv) for k, rv in (line.split() for line in acked)}

    async def check() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            current = await s.current_revision()
            found = {
                key(item["metadata"]["name"]): int(item["metadata"]["resourceVersion"])
                for item in (await s.get_list(NS, ListOptions())).items
            }
            assert {k: found.get(k) for k in expected} == expected
            # Revisions are dense: every write the child committed is there, acknowledged or not.
            assert sorted(found.values()) == list(range(1, current + 1))
        finally:
            await s.close()

    run(check)


# -- compaction ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [2000, 1], ids=["one-step", "row-by-row"])
def test_compaction_keeps_state_at_compacted_revision(tmp_path: Path, chunk: int, monkeypatch: Any) -> None:
    monkeypatch.setattr(writer, "COMPACT_CHUNK", chunk)

    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a", v="1"))  # 1
            await s.create(key("b"), configmap("b", v="1"))  # 2
            await conformance.update_data(s, key("a"), v="2")  # 3
            await s.delete(key("b"))  # 4
            await s.create(key("c"), configmap("c", v="1"))  # 5
            await conformance.update_data(s, key("c"), v="2")  # 6
            await s.create(key("d"), configmap("d", v="1"))  # 7
            await s.delete(key("d"))  # 8
            await s.compact(6)
            assert s.compacted_revision == 6
            await s.compact(5)  # older than the compacted revision: nothing to do
            assert s.compacted_revision == 6
        finally:
            await s.close()

    run(body)
    # a@3 and c@6 are each key's state at 6; b (deleted at 4) is gone; d's rows are above 6.
    assert [(rev, k, deleted) for rev, k, deleted, _, _ in log_rows(tmp_path)] == [
        (3, key("a"), 0),
        (6, key("c"), 0),
        (7, key("d"), 0),
        (8, key("d"), 1),
    ]


def test_compact_to_future_revision_fails(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a"))
            with pytest.raises(StorageError, match=r"^Too large resource version: 5, current: 1$"):
                await s.compact(5)
            assert s.compacted_revision == 0
        finally:
            await s.close()

    run(body)


def test_too_old_messages(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            for name in "abc":
                await s.create(key(name), configmap(name))
            await s.compact(2)
            with pytest.raises(TooOldResourceVersion, match=r"^too old resource version: 1 \(2\)$"):
                s.watch(NS, 1)
            with pytest.raises(TooOldResourceVersion, match=r"^too old resource version: 1 \(2\)$"):
                await s.get_list(NS, ListOptions(resource_version=1, match=ResourceVersionMatch.EXACT))
        finally:
            await s.close()

    run(body)


class FakeTicker:
    """A sleep that returns only when the test ticks, so the compactor runs step by step."""

    def __init__(self) -> None:
        self.intervals: list[float] = []
        self._ticks: asyncio.Queue[None] = asyncio.Queue()
        self.waiting = asyncio.Event()

    async def sleep(self, interval: float) -> None:
        self.intervals.append(interval)
        self.waiting.set()
        await self._ticks.get()
        self.waiting.clear()

    async def tick(self) -> None:
        """Release one sleep and wait until the compactor sleeps again."""
        await self.waiting.wait()
        self.waiting.clear()
        self._ticks.put_nowait(None)
        await asyncio.sleep(0)
        await self.waiting.wait()


def test_periodic_compaction_trails_by_one_interval(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        ticker = FakeTicker()
        try:
            await s.create(key("a"), configmap("a"))  # 1
            s.start_compaction(300.0, sleep=ticker.sleep)
            await ticker.tick()  # first tick: remembers revision 1, compacts nothing
            assert s.compacted_revision == 0
            await conformance.update_data(s, key("a"), v="2")  # 2
            await ticker.tick()  # compacts to 1, remembers 2
            assert s.compacted_revision == 1
            await ticker.tick()  # compacts to 2
            assert s.compacted_revision == 2
            await ticker.tick()  # nothing new
            assert s.compacted_revision == 2
            assert ticker.intervals == [300.0] * 5
        finally:
            await s.close()
        assert s._compactor is not None and s._compactor.done()

    run(body)


# -- group commit -------------------------------------------------------------------------------------------


def test_concurrent_writes_share_commits(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            results = await asyncio.gather(
                *(s.create(key(f"k{i:03}"), configmap(f"k{i:03}")) for i in range(200))
            )
            assert sorted(int(r["metadata"]["resourceVersion"]) for r in results) == list(range(1, 201))
            commits, ops = s.write_stats
            assert ops == 200
            assert commits < 200
        finally:
            await s.close()

    run(body)


def test_unencodable_object_fails_alone(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            bad = {**configmap("bad"), "data": {"x": {1, 2}}}
            results = await asyncio.gather(
                s.create(key("a"), configmap("a")),
                s.create(key("bad"), bad),
                s.create(key("b"), configmap("b")),
                return_exceptions=True,
            )
            assert [type(r).__name__ for r in results] == ["dict", "TypeError", "dict"]
            assert conformance.names(await s.get_list(NS, ListOptions())) == ["a", "b"]
            assert await s.current_revision() == 2
        finally:
            await s.close()

    run(body)


def test_create_does_not_stamp_the_callers_dict(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            mine = configmap("a")
            out = await s.create(key("a"), mine)
            assert mine == configmap("a")
            assert out == stored(configmap("a"), 1)
        finally:
            await s.close()

    run(body)


# -- watch bounds -------------------------------------------------------------------------------------------


def test_overflow_during_replay_reads_the_log_instead(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(watch, "HISTORY_PAGE", 2)

    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path, watch_queue_size=3)
        try:
            for i in range(5):
                await s.create(key(f"h{i}"), configmap(f"h{i}"))
            watcher = s.watch(NS, 0 + 1)
            for i in range(10):  # queued before iteration starts: overflows the queue of 3 several times
                await s.create(key(f"l{i}"), configmap(f"l{i}"))
            stream = EventStream(watcher)
            try:
                events = await stream.take(14)
                assert [e.revision for e in events] == list(range(2, 16))
                await s.create(key("z"), configmap("z"))
                assert conformance.summary(await stream.take(1)) == [("ADDED", key("z"), 16)]
                assert watcher.cut_off is False
            finally:
                await stream.close()
        finally:
            await s.close()

    run(body)


def test_watchers_started_during_a_write_storm_see_every_revision_once(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(watch, "HISTORY_PAGE", 7)

    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path, watch_queue_size=16)
        loop = asyncio.get_running_loop()

        async def write(w: int) -> None:
            for i in range(50):
                await s.create(key(f"w{w}-{i:02}"), configmap(f"w{w}-{i:02}"))

        streams: list[tuple[int, EventStream]] = []
        try:
            writers = [loop.create_task(write(w)) for w in range(8)]
            for _ in range(12):
                await asyncio.sleep(0.001)
                start = max(1, await s.current_revision() - 20)
                streams.append((start, EventStream(s.watch(NS, start))))
            await asyncio.gather(*writers)
            assert await s.current_revision() == 400
            for start, stream in streams:
                events = await stream.take(400 - start)
                assert [e.revision for e in events] == list(range(start + 1, 401))
                assert await stream.idle(0.01) == []
                assert stream.watcher.cut_off is False  # type: ignore[attr-defined]
        finally:
            for _, stream in streams:
                await stream.close()
            await s.close()

    run(body)


def test_live_watcher_that_falls_behind_is_cut_off(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path, watch_queue_size=3)
        try:
            watcher = s.watch(NS, 0)
            events = aiter(watcher)
            await s.create(key("a"), configmap("a"))
            first = await anext(events)
            assert (first.type, first.revision) == (EventType.ADDED, 1)
            for i in range(5):  # nobody reads: the 4th queued event overflows
                await s.create(key(f"b{i}"), configmap(f"b{i}"))
            assert watcher.cut_off is True
            with pytest.raises(StopAsyncIteration):
                await anext(events)
        finally:
            await s.close()

    run(body)


def test_compaction_overtaking_a_replay_ends_it(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(watch, "HISTORY_PAGE", 2)

    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            for i in range(6):
                await s.create(key(f"h{i}"), configmap(f"h{i}"))
            events = aiter(s.watch(NS, 1))
            assert [(await anext(events)).revision for _ in range(2)] == [2, 3]
            await s.compact(5)
            with pytest.raises(TooOldResourceVersion, match=r"^too old resource version: 3 \(5\)$"):
                await anext(events)
        finally:
            await s.close()

    run(body)


def test_raising_predicate_ends_only_its_watcher(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)

        def broken(obj: Obj) -> bool:
            raise KeyError("boom")

        try:
            bad = EventStream(s.watch(NS, 0, predicate=broken))
            good = EventStream(s.watch(NS, 0))
            created = await s.create(key("a"), configmap("a"))
            assert [e.obj for e in await good.take(1)] == [created]
            assert await bad.ended()
            assert isinstance(bad.error, KeyError)
            await good.close()
        finally:
            await s.close()

    run(body)


def test_progress_bookmarks_on_request(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a"))  # 1
            progress = EventStream(s.watch(NS, 1, progress_notify=True))
            plain = EventStream(s.watch(NS, 1))
            await s.create("/registry/secrets/default/x", configmap("x"))  # 2, not under NS
            await s.request_progress()
            assert conformance.summary(await progress.take(1)) == [("BOOKMARK", "", 2)]
            await s.request_progress()  # nothing new since the last bookmark
            assert await progress.idle() == []

            await s.create(key("b"), configmap("b"))  # 3
            await s.create("/registry/secrets/default/y", configmap("y"))  # 4
            await s.request_progress()
            events = await progress.take(2)
            assert conformance.summary(events) == [("ADDED", key("b"), 3), ("BOOKMARK", "", 4)]
            assert (events[1].obj, events[1].prev) == ({}, None)
            assert conformance.summary(await plain.idle()) == [("ADDED", key("b"), 3)]
            await progress.close()
            await plain.close()
        finally:
            await s.close()

    run(body)


def test_queued_bookmark_moves_forward_but_never_past_an_event(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            await s.create(key("a"), configmap("a"))  # 1
            watcher = s.watch(NS, 1, progress_notify=True)
            for name in ("x", "y"):  # 2, 3: the queued bookmark moves from 2 to 3
                await s.create(f"/registry/secrets/default/{name}", configmap(name))
                await s.request_progress()
            await s.create(key("b"), configmap("b"))  # 4
            await s.create("/registry/secrets/default/z", configmap("z"))  # 5: a new bookmark after 4
            await s.request_progress()
            events = aiter(watcher)
            got = [await anext(events) for _ in range(3)]
            assert conformance.summary(got) == [
                ("BOOKMARK", "", 3),
                ("ADDED", key("b"), 4),
                ("BOOKMARK", "", 5),
            ]
            watcher.stop()
        finally:
            await s.close()

    run(body)


# -- lifecycle ----------------------------------------------------------------------------------------------


def test_close_ends_watchers_and_refuses_calls(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        stream = EventStream(s.watch(NS, 0))
        await s.close()
        assert await stream.ended()
        assert stream.error is None
        for call in (
            lambda: s.create(key("a"), configmap("a")),
            lambda: s.get(key("a")),
            lambda: s.get_list(NS, ListOptions()),
        ):
            with pytest.raises(StorageError, match=r"^storage is closed$"):
                await call()
        with pytest.raises(StorageError, match=r"^storage is closed$"):
            s.watch(NS, 0)
        await s.close()  # idempotent

    run(body)


def test_history_query_reports_how_far_it_read(tmp_path: Path) -> None:
    async def body() -> None:
        s = await SQLiteStorage.open(tmp_path)
        try:
            for i in range(5):
                await s.create(key(f"k{i}"), configmap(f"k{i}"))
            await s.create("/registry/secrets/default/x", configmap("x"))
            page = await s._readers.run(lambda c: queries.history(c, NS, 0, 6, 3))
            assert ([e.revision for e in page[0]], page[1]) == ([1, 2, 3], 3)
            page = await s._readers.run(lambda c: queries.history(c, NS, 3, 6, 3))
            assert ([e.revision for e in page[0]], page[1]) == ([4, 5], 6)
        finally:
            await s.close()

    run(body)
