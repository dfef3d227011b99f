"""The watch cache over a real SQLiteStorage: lists from memory, watches from its window, and its watchers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvloop

from kubelite.apimachinery.meta import Obj
from kubelite.storage import errors
from kubelite.storage.cacher import Cacher, CacheWatcher, WatchRequest
from kubelite.storage.interface import EventType, ListOptions, ResourceVersionMatch, WatchEvent
from kubelite.storage.sqlite import SQLiteStorage

PREFIX = "/registry/configmaps/"

Summary = tuple[str, str, str]  # (type, name, resourceVersion)


def run(body: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(body(), 20))


def key(name: str, namespace: str = "default") -> str:
    return f"{PREFIX}{namespace}/{name}"


def configmap(name: str, namespace: str = "default", **labels: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
        "data": {},
    }


def rv(obj: Obj) -> int:
    return int(obj["metadata"]["resourceVersion"])


def summary(event: WatchEvent) -> Summary:
    name = (event.obj.get("metadata") or {}).get("name", "")
    return (event.type.value, name, (event.obj.get("metadata") or {}).get("resourceVersion", ""))


def app_is(value: str) -> Callable[[Obj], bool]:
    return lambda obj: (obj["metadata"].get("labels") or {}).get("app") == value


@asynccontextmanager
async def opened(
    tmp_path: Path, *, window_size: int = 100, watcher_queue_size: int = 100
) -> AsyncIterator[tuple[SQLiteStorage, Cacher]]:
    storage = await SQLiteStorage.open(tmp_path)
    cacher = Cacher(storage, PREFIX, window_size=window_size, watcher_queue_size=watcher_queue_size)
    try:
        await cacher.start()
        yield storage, cacher
    finally:
        await cacher.close()
        await storage.close()


async def write(storage: SQLiteStorage, cacher: Cacher, *objs: Obj) -> list[Obj]:
    """Create objects through storage, then wait until the cache has seen the last one."""
    created = [await storage.create(key(o["metadata"]["name"], o["metadata"]["namespace"]), o) for o in objs]
    assert await cacher.wait_until_fresh(rv(created[-1]), timeout=5)
    return created


async def relabel(storage: SQLiteStorage, cacher: Cacher, name: str, **labels: str) -> Obj:
    async def change(current: Obj | None) -> Obj:
        assert current is not None
        current["metadata"]["labels"] = dict(labels)
        return current

    updated = await storage.guaranteed_update(key(name), change)
    assert await cacher.wait_until_fresh(rv(updated), timeout=5)
    return updated


async def take(watcher: CacheWatcher, count: int) -> list[Summary]:
    return [summary(await asyncio.wait_for(anext(watcher), 5)) for _ in range(count)]


async def nothing_more(watcher: CacheWatcher) -> bool:
    try:
        event = await asyncio.wait_for(anext(watcher), 0.1)
    except TimeoutError:
        return True
    raise AssertionError(f"unexpected event {summary(event)}")


# -- lists ---------------------------------------------------------------------------------------------------


def test_consistent_list_sees_writes_made_behind_its_back(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            a = await storage.create(key("a"), configmap("a"))
            b = await storage.create(key("b", "other"), configmap("b", "other"))
            # a write elsewhere moves the store's revision; the cache must still call itself current
            secret = await storage.create("/registry/secrets/default/s", configmap("s"))
            listed = await cacher.get_list(PREFIX, ListOptions())
            assert (listed.items, listed.revision, listed.next_key, listed.remaining) == (
                [a, b],
                rv(secret),
                None,
                None,
            )
            scoped = await cacher.get_list(f"{PREFIX}other/", ListOptions())
            assert (scoped.items, scoped.revision) == ([b], rv(secret))

    run(body)


def test_list_at_zero_is_served_from_memory(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            created = await write(storage, cacher, configmap("b"), configmap("a"))
            listed = await cacher.get_list(PREFIX, ListOptions(resource_version=0))
            assert (listed.items, listed.revision) == ([created[1], created[0]], cacher.revision)

    run(body)


def test_list_not_older_than_waits_for_the_revision(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            created = await storage.create(key("a"), configmap("a"))
            listed = await cacher.get_list(
                PREFIX, ListOptions(resource_version=rv(created), match=ResourceVersionMatch.NOT_OLDER_THAN)
            )
            assert (listed.items, listed.revision) == ([created], rv(created))

    run(body)


@pytest.mark.parametrize(
    ("limit", "names", "next_name", "remaining"),
    [
        (1, ["a"], "a", 2),
        (2, ["a", "b"], "b", 1),
        (3, ["a", "b", "c"], None, None),
        (5, ["a", "b", "c"], None, None),
    ],
    ids=["one", "two", "exactly-all", "more-than-all"],
)
def test_paged_list_from_memory(
    tmp_path: Path, limit: int, names: list[str], next_name: str | None, remaining: int | None
) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("c"), configmap("a"), configmap("b"))
            listed = await cacher.get_list(PREFIX, ListOptions(limit=limit))
            assert ([i["metadata"]["name"] for i in listed.items], listed.next_key, listed.remaining) == (
                names,
                key(next_name) if next_name else None,
                remaining,
            )

    run(body)


def test_paged_list_with_a_predicate_counts_only_matches(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(
                storage,
                cacher,
                configmap("a", app="x"),
                configmap("b"),
                configmap("c", app="x"),
                configmap("d", app="x"),
            )
            listed = await cacher.get_list(PREFIX, ListOptions(limit=1, predicate=app_is("x")))
            assert ([i["metadata"]["name"] for i in listed.items], listed.next_key) == (["a"], key("a"))

    run(body)


@pytest.mark.parametrize("seed", [1, 2, 3], ids=["seed-1", "seed-2", "seed-3"])
def test_lists_at_a_past_revision_from_memory_equal_storage(tmp_path: Path, seed: int) -> None:
    """Continuations and exact lists are answered from memory by undoing the window's later changes; for any
    page at any earlier revision, with writes, deletions and re-creations since, the answer is storage's."""
    import random

    chance = random.Random(seed)

    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            names = [f"cm-{i:02d}" for i in range(12)]
            checkpoints: list[int] = []
            for _ in range(60):
                name, namespace = chance.choice(names), chance.choice(["default", "other"])
                current = cacher.peek(key(name, namespace))
                if current is None:
                    created = await storage.create(key(name, namespace), configmap(name, namespace))
                    revision = rv(created)
                elif chance.random() < 0.4:
                    revision = rv(await storage.delete(key(name, namespace)))
                else:

                    async def change(obj: Obj | None) -> Obj:
                        assert obj is not None
                        labels = {"app": chance.choice(["a", "b"])} if chance.random() < 0.5 else {}
                        return {**obj, "metadata": {**obj["metadata"], "labels": labels}, "data": {"n": "x"}}

                    revision = rv(await storage.guaranteed_update(key(name, namespace), change))
                assert await cacher.wait_until_fresh(revision, timeout=5)
                if chance.random() < 0.3:
                    checkpoints.append(revision)
            selections: list[tuple[Callable[[Obj], bool] | None, tuple[str, str] | None]] = [
                (None, None),
                (app_is("a"), ("app", "a")),  # the label index, checked against storage's full scan
            ]
            for at in [*checkpoints, await storage.current_revision()]:
                for prefix in (PREFIX, PREFIX + "default/"):
                    for limit in (0, 1, 3):
                        for predicate, label in selections:
                            exact = ListOptions(
                                resource_version=at,
                                match=ResourceVersionMatch.EXACT,
                                limit=limit,
                                predicate=predicate,
                                label=label,
                            )
                            pages = [(await cacher.get_list(prefix, exact), await storage.get_list(prefix, exact))]
                            while pages[-1][1].next_key is not None:
                                after = ListOptions(
                                    continue_key=pages[-1][1].next_key,
                                    continue_revision=at,
                                    limit=limit,
                                    predicate=predicate,
                                    label=label,
                                )
                                pages.append(
                                    (await cacher.get_list(prefix, after), await storage.get_list(prefix, after))
                                )
                            for memory, stored in pages:
                                assert memory == stored, (at, prefix, limit, label)

    run(body)


def test_exact_and_continued_lists_read_storage_at_their_revision(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            a, b = await write(storage, cacher, configmap("a"), configmap("b"))
            await relabel(storage, cacher, "a", app="new")
            exact = await cacher.get_list(
                PREFIX, ListOptions(resource_version=rv(b), match=ResourceVersionMatch.EXACT)
            )
            assert (exact.items, exact.revision) == ([a, b], rv(b))
            rest = await cacher.get_list(
                PREFIX, ListOptions(continue_key=key("a"), continue_revision=rv(b), resource_version=rv(b))
            )
            assert (rest.items, rest.revision) == ([b], rv(b))

    run(body)


# -- watches -------------------------------------------------------------------------------------------------


def test_watch_from_a_revision_replays_only_later_events(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            _, b = await write(storage, cacher, configmap("a"), configmap("b"))
            changed = await relabel(storage, cacher, "a", app="x")
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, rv(b)))
            assert await take(watcher, 1) == [("MODIFIED", "a", str(rv(changed)))]
            assert await nothing_more(watcher)
            deleted = await storage.delete(key("b"))
            assert await take(watcher, 1) == [("DELETED", "b", str(rv(deleted)))]
            watcher.stop()

    run(body)


def test_watch_at_the_current_revision_sends_only_new_events(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a"))
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            assert await nothing_more(watcher)
            (c,) = await write(storage, cacher, configmap("c"))
            assert await take(watcher, 1) == [("ADDED", "c", str(rv(c)))]

    run(body)


@pytest.mark.parametrize("start", [None, 0], ids=["unset", "zero"])
def test_watch_without_a_revision_starts_with_the_state(tmp_path: Path, start: int | None) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("b"), configmap("a", "zz"), configmap("a"))
            revision = cacher.revision
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, start))
            # initial events carry the cache's revision, in key order
            assert await take(watcher, 3) == [
                ("ADDED", "a", str(revision)),
                ("ADDED", "b", str(revision - 2)),
                ("ADDED", "a", str(revision - 1)),
            ]
            assert await nothing_more(watcher)
            (d,) = await write(storage, cacher, configmap("d"))
            assert await take(watcher, 1) == [("ADDED", "d", str(rv(d)))]

    run(body)


def test_initial_events_are_stamped_with_the_cache_revision(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a"))
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, None))
            event = await asyncio.wait_for(anext(watcher), 5)
            assert (event.type, event.key, event.revision) == (EventType.ADDED, key("a"), cacher.revision)

    run(body)


@pytest.mark.parametrize("start", ["unset", "zero", "current"])
def test_send_initial_events_ends_with_a_marked_bookmark(tmp_path: Path, start: str) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            a, b = await write(storage, cacher, configmap("a"), configmap("b"))
            revision = {"unset": None, "zero": 0, "current": rv(b)}[start]
            watcher = await cacher.watch_stream(
                WatchRequest(PREFIX, revision, allow_bookmarks=True, send_initial_events=True)
            )
            events = [await asyncio.wait_for(anext(watcher), 5) for _ in range(3)]
            assert [(e.type, e.key, e.revision) for e in events] == [
                (EventType.ADDED, key("a"), rv(b)),
                (EventType.ADDED, key("b"), rv(b)),
                (EventType.BOOKMARK, "", rv(b)),
            ]
            assert (events[0].obj, events[1].obj, events[2].obj) == (a, b, {"initialEventsEnd": True})
            (c,) = await write(storage, cacher, configmap("c"))
            assert await take(watcher, 1) == [("ADDED", "c", str(rv(c)))]

    run(body)


@pytest.mark.parametrize("start", [None, 0], ids=["unset", "zero"])
def test_send_initial_events_false_starts_from_now(tmp_path: Path, start: int | None) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a"))
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, start, send_initial_events=False))
            assert await nothing_more(watcher)
            (b,) = await write(storage, cacher, configmap("b"))
            assert await take(watcher, 1) == [("ADDED", "b", str(rv(b)))]

    run(body)


def test_selector_transitions(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision, predicate=app_is("x")))
            await write(storage, cacher, configmap("a", app="y"))
            entered = await relabel(storage, cacher, "a", app="x")
            stayed = await relabel(storage, cacher, "a", app="x", tier="web")
            left = await relabel(storage, cacher, "a", app="z")
            await relabel(storage, cacher, "a", app="w")  # outside before and after: nothing
            back = await relabel(storage, cacher, "a", app="x")
            deleted = await storage.delete(key("a"))
            events = [await asyncio.wait_for(anext(watcher), 5) for _ in range(5)]
            assert [summary(e) for e in events] == [
                ("ADDED", "a", str(rv(entered))),
                ("MODIFIED", "a", str(rv(stayed))),
                ("DELETED", "a", str(rv(left))),
                ("ADDED", "a", str(rv(back))),
                ("DELETED", "a", str(rv(deleted))),
            ]
            # leaving the selector deletes the object as the watcher last saw it, at the event's revision
            assert events[2].obj["metadata"]["labels"] == {"app": "x", "tier": "web"}
            assert events[4].obj["metadata"]["labels"] == {"app": "x"}
            assert await nothing_more(watcher)

    run(body)


def test_selector_applies_to_initial_events(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a", app="x"), configmap("b"), configmap("c", app="x"))
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, None, predicate=app_is("x")))
            assert [s[:2] for s in await take(watcher, 2)] == [("ADDED", "a"), ("ADDED", "c")]
            assert await nothing_more(watcher)

    run(body)


def test_watch_is_scoped_to_its_prefix(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            watcher = await cacher.watch_stream(WatchRequest(f"{PREFIX}other/", cacher.revision))
            await write(storage, cacher, configmap("a"), configmap("b", "other"), configmap("c", "otherwise"))
            assert [s[:2] for s in await take(watcher, 1)] == [("ADDED", "b")]
            assert await nothing_more(watcher)

    run(body)


def test_too_old_when_the_window_was_exceeded(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path, window_size=2) as (storage, cacher):
            created = await write(storage, cacher, *(configmap(n) for n in "abcd"))
            revisions = [rv(o) for o in created]
            with pytest.raises(errors.TooOldResourceVersion) as caught:
                await cacher.watch_stream(WatchRequest(PREFIX, revisions[0]))
            assert (str(caught.value), caught.value.requested, caught.value.oldest) == (
                f"too old resource version: {revisions[0]} ({revisions[1]})",
                revisions[0],
                revisions[1],
            )
            # the oldest event kept is c: a watch from b's revision misses nothing
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, revisions[1]))
            assert [s[:2] for s in await take(watcher, 2)] == [("ADDED", "c"), ("ADDED", "d")]

    run(body)


def test_an_unfilled_window_covers_everything_since_the_first_list(tmp_path: Path) -> None:
    async def body() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        try:
            await storage.create("/registry/secrets/default/t", configmap("t"))
            first = await storage.create(key("a"), configmap("a"))
            cacher = Cacher(storage, PREFIX, window_size=5)
            await cacher.start()
            try:
                # writes elsewhere move the cache's revision, through progress notifications only
                await storage.create("/registry/secrets/default/s", configmap("s"))
                await cacher.get_list(PREFIX, ListOptions())
                watcher = await cacher.watch_stream(WatchRequest(PREFIX, rv(first)))
                assert await nothing_more(watcher)
                (b,) = await write(storage, cacher, configmap("b"))
                assert await take(watcher, 1) == [("ADDED", "b", str(rv(b)))]
                with pytest.raises(errors.TooOldResourceVersion):
                    await cacher.watch_stream(WatchRequest(PREFIX, rv(first) - 1))
            finally:
                await cacher.close()
        finally:
            await storage.close()

    run(body)


def test_watch_from_a_future_revision_waits_for_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            current = cacher.revision
            pending = asyncio.ensure_future(cacher.watch_stream(WatchRequest(PREFIX, current + 1)))
            await asyncio.sleep(0.05)
            assert not pending.done()
            (a,) = await write(storage, cacher, configmap("a"))
            watcher = await asyncio.wait_for(pending, 5)
            assert rv(a) == current + 1
            assert await nothing_more(watcher)

    run(body)


def test_a_slow_watcher_is_cut_off(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path, watcher_queue_size=2) as (storage, cacher):
            slow = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            fine = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            received: list[Summary] = []

            async def keep_up() -> None:
                async for event in fine:
                    received.append(summary(event))

            reader = asyncio.ensure_future(keep_up())
            for name in "abcde":
                await write(storage, cacher, configmap(name))
            assert (slow.overflowed, slow.stopped, fine.overflowed, fine.stopped) == (
                True,
                True,
                False,
                False,
            )
            assert [e async for e in slow] == []  # iteration ends; what was queued is dropped
            while len(received) < 5:
                await asyncio.sleep(0.01)
            assert [s[1] for s in received] == list("abcde")
            fine.stop()
            await asyncio.wait_for(reader, 5)

    run(body)


def test_a_large_backlog_does_not_overflow(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path, watcher_queue_size=1) as (storage, cacher):
            start = cacher.revision
            await write(storage, cacher, *(configmap(n) for n in "abcd"))
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, start))
            initial = await cacher.watch_stream(WatchRequest(PREFIX, None))
            assert [s[1] for s in await take(watcher, 4)] == list("abcd")
            assert [s[1] for s in await take(initial, 4)] == list("abcd")
            assert (watcher.overflowed, initial.overflowed) == (False, False)

    run(body)


def test_stop_ends_iteration(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (_, cacher):
            watcher = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            waiting = asyncio.ensure_future(anext(watcher))
            await asyncio.sleep(0.01)
            watcher.stop()
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(waiting, 5)
            assert [e async for e in watcher] == []

    run(body)


def test_close_stops_every_watcher(tmp_path: Path) -> None:
    async def body() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        try:
            cacher = Cacher(storage, PREFIX)
            await cacher.start()
            watchers = [await cacher.watch_stream(WatchRequest(PREFIX, None)) for _ in range(3)]
            await cacher.close()
            assert [(w.stopped, [e async for e in w]) for w in watchers] == [(True, [])] * 3
        finally:
            await storage.close()

    run(body)


# -- bookmarks -----------------------------------------------------------------------------------------------


def test_request_bookmark(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            with_bookmarks = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision, allow_bookmarks=True))
            without = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            # nothing happened since the watch began: a bookmark would tell the client nothing
            with_bookmarks.request_bookmark()
            without.request_bookmark()
            assert await nothing_more(with_bookmarks)
            # writes elsewhere advance the cache (via progress) without events under the prefix
            await storage.create("/registry/secrets/default/s", configmap("s"))
            await cacher.get_list(PREFIX, ListOptions())
            with_bookmarks.request_bookmark()
            without.request_bookmark()
            event = await asyncio.wait_for(anext(with_bookmarks), 5)
            assert (event.type, event.key, event.obj, event.revision) == (
                EventType.BOOKMARK,
                "",
                {},
                cacher.revision,
            )
            assert await nothing_more(without)

    run(body)


def test_send_bookmarks_reaches_every_bookmark_watcher(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            watchers = [
                await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision, allow_bookmarks=True))
                for _ in range(2)
            ]
            (a,) = await write(storage, cacher, configmap("a"))
            cacher.send_bookmarks()
            for watcher in watchers:
                events: list[Any] = [await asyncio.wait_for(anext(watcher), 5) for _ in range(2)]
                assert [(e.type, e.revision) for e in events] == [
                    (EventType.ADDED, rv(a)),
                    (EventType.BOOKMARK, rv(a)),
                ]

    run(body)


class _Writer:
    """A StreamWriter whose writes go to `deliver`; it records whether the watcher aborted it."""

    def __init__(self, deliver: Callable[[WatchEvent], bool]) -> None:
        self.write = deliver
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def test_direct_delivery_keeps_order_with_the_queue() -> None:
    """A watcher hands events straight to its client only while nothing is queued; once one event had to
    wait (the client's buffer was full), later ones queue behind it until the reader has caught up."""

    async def body() -> None:
        watcher = CacheWatcher(
            prefix=PREFIX,
            predicate=None,
            queue_size=10,
            allow_bookmarks=False,
            on_stop=lambda _: None,
            current_revision=lambda: 0,
        )
        direct: list[str] = []
        accepting = True

        def deliver(event: WatchEvent) -> bool:
            if accepting:
                direct.append(event.key)
            return accepting

        watcher.attach(_Writer(deliver))

        def offer(name: str, revision: int) -> None:
            watcher.offer(WatchEvent(EventType.ADDED, key(name), configmap(name), revision))

        offer("a", 1)
        accepting = False
        offer("b", 2)
        accepting = True
        offer("c", 3)  # the client could take it, but "b" waits: "c" goes behind it
        read = [(await anext(watcher)).key, (await anext(watcher)).key]
        offer("d", 4)
        assert (direct, read) == ([key("a"), key("d")], [key("b"), key("c")])

    run(body)


def test_shared_get_reads_memory_only_when_the_cache_is_current(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a"))
            cached = cacher.peek(key("a"))
            assert await cacher.get_shared(key("a")) is cached
            assert await cacher.get(key("a")) is not cached  # a caller that may change it gets its own
            assert await cacher.get(key("a")) == cached

            # writes to other keys leave the cache current for this one, whether applied yet or not
            await storage.create("/registry/secrets/default/s", {"kind": "Secret", "metadata": {"name": "s"}})
            await storage.create(key("b"), configmap("b"))
            assert await cacher.get_shared(key("a")) is cached

            # a write of the key handed to the cache's watch but not applied yet: storage must answer
            watch = cacher._watch
            assert watch is not None
            watch._owed[key("a")] = 1
            got = await cacher.get_shared(key("a"))
            assert got is not cached and got == cached
            del watch._owed[key("a")]
            assert await cacher.get_shared(key("a")) is cached

            with pytest.raises(errors.KeyNotFound):
                await cacher.get_shared(key("missing"))

    run(body)


def test_the_label_index_follows_changes_after_it_is_built(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, *[configmap(f"c{i:02d}", app="a" if i < 2 else "b") for i in range(20)])
            selected = ListOptions(predicate=app_is("a"), label=("app", "a"))

            async def names() -> list[str]:
                listed = await cacher.get_list(PREFIX, selected)
                return [o["metadata"]["name"] for o in listed.items]

            assert await names() == ["c00", "c01"]  # built here
            await relabel(storage, cacher, "c00", app="b")
            await relabel(storage, cacher, "c05", app="a")
            deleted = await storage.delete(key("c01"))
            assert await cacher.wait_until_fresh(rv(deleted), timeout=5)
            await write(storage, cacher, configmap("c99", app="a"))
            assert await names() == ["c05", "c99"]

    run(body)


def test_the_window_keeps_the_cached_objects_as_the_previous_states(tmp_path: Path) -> None:
    """An event's previous state is the object the cache held (compact, shared), not another copy of it."""

    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            await write(storage, cacher, configmap("a", app="x"))
            before = cacher.peek(key("a"))
            updated = await relabel(storage, cacher, "a", app="y")
            last = cacher._window[-1]
            assert last.prev is before
            assert last.obj is cacher.peek(key("a"))
            assert last.obj["metadata"]["resourceVersion"] == updated["metadata"]["resourceVersion"]
            deleted = await storage.delete(key("a"))
            assert await cacher.wait_until_fresh(rv(deleted), timeout=5)
            assert cacher._window[-1].prev is last.obj

    run(body)
