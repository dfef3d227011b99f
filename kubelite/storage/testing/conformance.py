"""The storage conformance suite: what every `Storage` must do, whichever backend or cache is behind it.

Each case is an async function of a `StorageFactory`: a callable that opens a handle on one store, the same
store at every call, so a case can close it and open it again ("restart"). A runner gives each case a store
that starts empty (e.g. a fresh directory) and runs it with `run`:

    @pytest.mark.parametrize("name", sorted(conformance.CASES))
    def test_conformance(name, tmp_path):
        conformance.run(conformance.CASES[name], lambda: SQLiteStorage.open(tmp_path))

Cases never assume the first revision: they start with `begin()` and expect exact offsets from the revision
it returns. Where backends may legitimately differ (a watch refused at call time or on first iteration),
the case accepts both.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import uvloop

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.storage.errors import (
    Conflict,
    FutureResourceVersion,
    KeyExists,
    KeyNotFound,
    TooOldResourceVersion,
)
from kubelite.storage.interface import (
    EventType,
    ListOptions,
    ListResult,
    Preconditions,
    ResourceVersionMatch,
    Storage,
    WatchCache,
    Watcher,
    WatchEvent,
)

StorageFactory = Callable[[], Awaitable[Storage]]
Case = Callable[[StorageFactory], Awaitable[None]]

#: every case, by name
CASES: dict[str, Case] = {}

PREFIX = "/registry/configmaps/"
NS_PREFIX = "/registry/configmaps/default/"
EXACT = ResourceVersionMatch.EXACT
NOT_OLDER_THAN = ResourceVersionMatch.NOT_OLDER_THAN


LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def run(
    case: Case,
    factory: StorageFactory,
    *,
    timeout: float = 30.0,
    loop_factory: LoopFactory = uvloop.new_event_loop,
) -> None:
    """Run one case on a fresh event loop; uvloop by default, the loop kubelite serves on."""
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(asyncio.wait_for(case(factory), timeout))


def _case(fn: Case) -> Case:
    CASES[fn.__name__.removeprefix("case_")] = fn
    return fn


# -- helpers ------------------------------------------------------------------------------------------------


def key(name: str, namespace: str = "default") -> str:
    return f"/registry/configmaps/{namespace}/{name}"


def configmap(name: str, namespace: str = "default", **data: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "data": dict(data),
    }


def stored(obj: Obj, revision: int) -> Obj:
    """`obj` as storage returns it at `revision`."""
    return {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(revision)}}


def names(result: ListResult) -> list[str]:
    return [item["metadata"]["name"] for item in result.items]


_markers = itertools.count()


async def begin(storage: Storage) -> int:
    """Write one object outside the prefixes under test and return the revision after it.

    A case's `base` is therefore never 0, which `watch` reads as "from now" rather than "from the start".
    """
    await storage.create(f"/registry/conformance-markers/m{next(_markers)}", configmap("marker"))
    return await storage.current_revision()


@contextlib.asynccontextmanager
async def opened(factory: StorageFactory) -> AsyncIterator[Storage]:
    storage = await factory()
    try:
        yield storage
    finally:
        await storage.close()


async def update_data(storage: Storage, k: str, **data: str) -> Obj:
    async def apply(current: Obj | None) -> Obj:
        assert current is not None
        current["data"] = {**current.get("data", {}), **data}
        return current

    return await storage.guaranteed_update(k, apply)


class EventStream:
    """Pumps a watcher into a queue on a task, so a case can wait for events or for silence."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self.error: BaseException | None = None
        self._queue: asyncio.Queue[WatchEvent] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        try:
            async for event in self.watcher:
                self._queue.put_nowait(event)
        except Exception as exc:
            self.error = exc

    async def take(self, n: int, timeout: float = 5.0) -> list[WatchEvent]:
        async def take_all() -> list[WatchEvent]:
            return [await self._queue.get() for _ in range(n)]

        return await asyncio.wait_for(take_all(), timeout)

    async def idle(self, wait: float = 0.05) -> list[WatchEvent]:
        """What arrives within `wait` seconds (a case asserts it is nothing)."""
        await asyncio.sleep(wait)
        events = []
        while not self._queue.empty():
            events.append(self._queue.get_nowait())
        return events

    async def ended(self, timeout: float = 5.0) -> bool:
        await asyncio.wait_for(asyncio.shield(self._task), timeout)
        return True

    async def close(self) -> None:
        self.watcher.stop()
        await asyncio.wait_for(self._task, 5.0)


def summary(events: list[WatchEvent]) -> list[tuple[str, str, int]]:
    return [(str(e.type), e.key, e.revision) for e in events]


async def expect_watch_too_old(storage: Storage, prefix: str, revision: int) -> TooOldResourceVersion:
    """A watch from a compacted revision fails, either when called or on its first iteration."""
    try:
        watcher = storage.watch(prefix, revision)
    except TooOldResourceVersion as exc:
        return exc
    try:
        with pytest.raises(TooOldResourceVersion) as info:
            await asyncio.wait_for(anext(aiter(watcher)), 5.0)
        return info.value
    finally:
        watcher.stop()


# -- create / get -------------------------------------------------------------------------------------------


@_case
async def case_create_get(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        out = await s.create(key("a"), configmap("a", x="1"))
        assert out == stored(configmap("a", x="1"), base + 1)
        assert await s.current_revision() == base + 1
        assert await s.get(key("a")) == out

        with pytest.raises(KeyExists):
            await s.create(key("a"), configmap("a", x="2"))
        assert await s.current_revision() == base + 1
        assert await s.get(key("a")) == out

        with pytest.raises(KeyNotFound):
            await s.get(key("missing"))


@_case
async def case_reads_return_fresh_dicts(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", x="1"))
        got = await s.get(key("a"))
        got["data"]["x"] = "mutated"
        got["metadata"]["name"] = "mutated"
        assert await s.get(key("a")) == stored(configmap("a", x="1"), base + 1)
        if isinstance(s, WatchCache):
            return  # a watch cache lists its own shared objects, read-only (see Storage.get_list)
        listed = await s.get_list(PREFIX, ListOptions())
        listed.items[0]["data"]["x"] = "mutated"
        assert await s.get(key("a")) == stored(configmap("a", x="1"), base + 1)
        assert (await s.get_list(PREFIX, ListOptions())).items == [stored(configmap("a", x="1"), base + 1)]


# -- list ---------------------------------------------------------------------------------------------------


@_case
async def case_list_order_and_prefix(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        for ns, name in [
            ("default", "c"),
            ("default", "a"),
            ("other", "z"),
            ("default-x", "y"),
            ("default", "b"),
        ]:
            await s.create(key(name, ns), configmap(name, ns))
        await s.create("/registry/configmapsx/default/q", configmap("q"))

        everything = await s.get_list(PREFIX, ListOptions())
        # '-' sorts before '/', so default-x/ comes before default/ (byte order, as etcd).
        assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in everything.items] == [
            ("default-x", "y"),
            ("default", "a"),
            ("default", "b"),
            ("default", "c"),
            ("other", "z"),
        ]
        assert (everything.revision, everything.next_key, everything.remaining) == (base + 6, None, None)

        namespaced = await s.get_list(NS_PREFIX, ListOptions())
        assert names(namespaced) == ["a", "b", "c"]
        assert (await s.get_list("/registry/secrets/", ListOptions())).items == []


@_case
async def case_list_pagination(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        for name in "abcde":
            await s.create(key(name), configmap(name, v="1"))
        snapshot = base + 5

        page1 = await s.get_list(NS_PREFIX, ListOptions(limit=2))
        assert (names(page1), page1.revision, page1.next_key, page1.remaining) == (
            ["a", "b"],
            snapshot,
            key("b"),
            3,
        )

        # Writes after the first page do not show in later pages: they read the first page's revision.
        await update_data(s, key("c"), v="2")
        await s.create(key("f"), configmap("f", v="1"))

        opts = ListOptions(limit=2, continue_key=page1.next_key, continue_revision=page1.revision)
        page2 = await s.get_list(NS_PREFIX, opts)
        assert (names(page2), page2.revision, page2.next_key, page2.remaining) == (
            ["c", "d"],
            snapshot,
            key("d"),
            1,
        )
        assert page2.items[0] == stored(configmap("c", v="1"), base + 3)

        page3 = await s.get_list(
            NS_PREFIX, ListOptions(limit=2, continue_key=key("d"), continue_revision=snapshot)
        )
        assert (names(page3), page3.revision, page3.next_key, page3.remaining) == (
            ["e"],
            snapshot,
            None,
            None,
        )

        # A continue key without a revision reads the current state.
        latest = await s.get_list(NS_PREFIX, ListOptions(limit=10, continue_key=key("b")))
        assert (names(latest), latest.revision, latest.next_key) == (["c", "d", "e", "f"], base + 7, None)
        assert latest.items[0]["data"] == {"v": "2"}

        exact_fit = await s.get_list(NS_PREFIX, ListOptions(limit=6))
        assert (names(exact_fit), exact_fit.next_key, exact_fit.remaining) == (list("abcdef"), None, None)


@_case
async def case_list_predicate_pagination(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        for name in "abcdef":
            await s.create(key(name), configmap(name, even=str(name in "bdf").lower()))

        def even(obj: Obj) -> bool:
            return bool(obj["data"]["even"] == "true")

        page1 = await s.get_list(NS_PREFIX, ListOptions(limit=2, predicate=even))
        # The remaining count is only given when no predicate filters (it would count non-matching items).
        assert (names(page1), page1.revision, page1.next_key, page1.remaining) == (
            ["b", "d"],
            base + 6,
            key("d"),
            None,
        )
        page2 = await s.get_list(
            NS_PREFIX, ListOptions(limit=2, predicate=even, continue_key=key("d"), continue_revision=base + 6)
        )
        assert (names(page2), page2.next_key) == (["f"], None)

        # No continuation when nothing after the cut matches, even though other keys remain.
        def b_or_d(obj: Obj) -> bool:
            return obj["metadata"]["name"] in ("b", "d")

        only = await s.get_list(NS_PREFIX, ListOptions(limit=2, predicate=b_or_d))
        assert (names(only), only.next_key, only.remaining) == (["b", "d"], None, None)

        unlimited = await s.get_list(NS_PREFIX, ListOptions(predicate=even))
        assert (names(unlimited), unlimited.next_key) == (["b", "d", "f"], None)


@_case
async def case_list_at_revision(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        a1 = await s.create(key("a"), configmap("a", v="1"))  # base+1
        b1 = await s.create(key("b"), configmap("b", v="1"))  # base+2
        a2 = await update_data(s, key("a"), v="2")  # base+3
        await s.delete(key("b"))  # base+4
        c1 = await s.create(key("c"), configmap("c", v="1"))  # base+5

        expected = {
            base + 1: [a1],
            base + 2: [a1, b1],
            base + 3: [a2, b1],
            base + 4: [a2],
            base + 5: [a2, c1],
        }
        for revision, items in expected.items():
            result = await s.get_list(NS_PREFIX, ListOptions(resource_version=revision, match=EXACT))
            assert (result.items, result.revision) == (items, revision)

        paged = await s.get_list(NS_PREFIX, ListOptions(resource_version=base + 3, match=EXACT, limit=1))
        assert (paged.items, paged.revision, paged.next_key, paged.remaining) == ([a2], base + 3, key("a"), 1)

        # NotOlderThan (explicit or by default) reads the current state.
        for match in (NOT_OLDER_THAN, None):
            result = await s.get_list(NS_PREFIX, ListOptions(resource_version=base + 2, match=match))
            assert (result.items, result.revision) == ([a2, c1], base + 5)

        for match in (EXACT, NOT_OLDER_THAN):
            with pytest.raises(FutureResourceVersion) as info:
                await s.get_list(NS_PREFIX, ListOptions(resource_version=base + 6, match=match))
            assert (info.value.requested, info.value.current) == (base + 6, base + 5)

        # resourceVersion 0 means "any": at least the current state here.
        zero = await s.get_list(NS_PREFIX, ListOptions(resource_version=0))
        assert (zero.items, zero.revision) == ([a2, c1], base + 5)


# -- guaranteed_update --------------------------------------------------------------------------------------


@_case
async def case_guaranteed_update_concurrent(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("counter"), configmap("counter", count="0"))
        calls = 0

        async def increment(current: Obj | None) -> Obj:
            nonlocal calls
            calls += 1
            assert current is not None
            await asyncio.sleep(0)  # let the other updaters read the same revision
            current["data"]["count"] = str(int(current["data"]["count"]) + 1)
            return current

        n = 20
        results = await asyncio.gather(*(s.guaranteed_update(key("counter"), increment) for _ in range(n)))
        final = await s.get(key("counter"))
        assert final["data"]["count"] == str(n)
        assert final["metadata"]["resourceVersion"] == str(base + 1 + n)
        assert sorted(int(r["metadata"]["resourceVersion"]) for r in results) == list(
            range(base + 2, base + 2 + n)
        )
        assert sorted(int(r["data"]["count"]) for r in results) == list(range(1, n + 1))
        assert calls >= n


@_case
async def case_guaranteed_update_retries_on_conflict(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", v="1"))
        seen: list[Obj] = []

        async def apply(current: Obj | None) -> Obj:
            assert current is not None
            seen.append(current)
            if len(seen) == 1:
                await update_data(s, key("a"), other="x")  # a racing writer wins
            current["data"]["mine"] = "y"
            return current

        out = await s.guaranteed_update(key("a"), apply)
        assert [o["metadata"]["resourceVersion"] for o in seen] == [str(base + 1), str(base + 2)]
        assert out == stored(configmap("a", v="1", other="x", mine="y"), base + 3)
        assert await s.get(key("a")) == out


@_case
async def case_writes_start_from_a_cached_copy(factory: StorageFactory) -> None:
    """A caller's copy of the current object lets storage skip its read; a copy that is no longer current
    costs a retry on the current state, never a lost write (the compare-and-swap is on its revision)."""
    async with opened(factory) as s:
        base = await begin(s)
        first = await s.create(key("a"), configmap("a", v="1"))
        second = await update_data(s, key("a"), v="2")
        seen: list[Obj] = []

        async def add_mine(current: Obj | None) -> Obj:
            assert current is not None
            seen.append(deep_copy(current))
            current["data"]["mine"] = "y"
            return current

        out = await s.guaranteed_update(key("a"), add_mine, cached=first)  # stale: v=1 at base + 1
        assert [o["data"] for o in seen] == [{"v": "1"}, {"v": "2"}]
        assert out == stored(configmap("a", v="2", mine="y"), base + 3)
        assert await s.get(key("a")) == out

        seen.clear()
        out = await s.guaranteed_update(key("a"), add_mine, cached=deep_copy(out))  # current: no retry
        assert [o["data"] for o in seen] == [{"v": "2", "mine": "y"}]
        assert await s.current_revision() == base + 3  # the same content again: nothing written

        with pytest.raises(Conflict):  # the precondition is checked on the current state, not the copy
            await s.delete(key("a"), preconditions=Preconditions(resource_version=str(base + 1)), cached=first)
        deleted = await s.delete(key("a"), cached=second)  # stale, retried on the current state
        assert deleted["data"] == {"v": "2", "mine": "y"}
        assert deleted["metadata"]["resourceVersion"] == str(base + 4)
        with pytest.raises(KeyNotFound):
            await s.get(key("a"))


@_case
async def case_guaranteed_update_noop(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        created = await s.create(key("a"), configmap("a", v="1"))

        async def unchanged(current: Obj | None) -> Obj:
            assert current is not None
            return current

        async def only_resource_version(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"]["resourceVersion"] = "12345"
            return current

        for fn in (unchanged, only_resource_version):
            assert await s.guaranteed_update(key("a"), fn) == created
            assert await s.current_revision() == base + 1

        changed = await update_data(s, key("a"), v="2")
        assert changed == stored(configmap("a", v="2"), base + 2)


@_case
async def case_guaranteed_update_not_found(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        inputs: list[Obj | None] = []

        async def make(current: Obj | None) -> Obj:
            inputs.append(current)
            return configmap("a", v="1")

        with pytest.raises(KeyNotFound):
            await s.guaranteed_update(key("a"), make)
        assert inputs == []

        out = await s.guaranteed_update(key("a"), make, ignore_not_found=True)
        assert inputs == [None]
        assert out == stored(configmap("a", v="1"), base + 1)
        assert await s.get(key("a")) == out


@_case
async def case_try_update_error_propagates(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", v="1"))

        async def refuse(current: Obj | None) -> Obj:
            raise ValueError("refused by try_update")

        with pytest.raises(ValueError, match=r"^refused by try_update$"):
            await s.guaranteed_update(key("a"), refuse)
        assert await s.current_revision() == base + 1


@_case
async def case_preconditions(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", v="1"))
        rv = str(base + 1)

        async def bump(current: Obj | None) -> Obj:
            assert current is not None
            current["data"]["v"] = "2"
            return current

        failures = [
            (
                Preconditions(uid="other"),
                "Precondition failed: UID in precondition: other, UID in object meta: uid-a",
            ),
            (
                Preconditions(resource_version="999"),
                "Precondition failed: ResourceVersion in precondition: 999, "
                f"ResourceVersion in object meta: {rv}",
            ),
            (
                Preconditions(uid="uid-a", resource_version="999"),
                "Precondition failed: ResourceVersion in precondition: 999, "
                f"ResourceVersion in object meta: {rv}",
            ),
        ]
        for pre, message in failures:
            with pytest.raises(Conflict) as info:
                await s.guaranteed_update(key("a"), bump, preconditions=pre)
            assert (str(info.value), info.value.key) == (message, key("a"))
            with pytest.raises(Conflict) as info:
                await s.delete(key("a"), preconditions=pre)
            assert (str(info.value), info.value.key) == (message, key("a"))
        assert await s.current_revision() == base + 1

        ok = await s.guaranteed_update(
            key("a"), bump, preconditions=Preconditions(uid="uid-a", resource_version=rv)
        )
        assert ok["data"] == {"v": "2"}
        gone = await s.delete(
            key("a"), preconditions=Preconditions(uid="uid-a", resource_version=str(base + 2))
        )
        assert gone["metadata"]["resourceVersion"] == str(base + 3)


# -- delete -------------------------------------------------------------------------------------------------


@_case
async def case_delete(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", v="1"))
        await update_data(s, key("a"), v="2")

        validated: list[Obj] = []

        async def refuse(current: Obj) -> None:
            validated.append(current)
            raise PermissionError("not now")

        with pytest.raises(PermissionError):
            await s.delete(key("a"), validate_deletion=refuse)
        assert validated == [stored(configmap("a", v="2"), base + 2)]
        assert (await s.get(key("a")))["data"] == {"v": "2"}

        async def accept(current: Obj) -> None:
            validated.append(current)

        out = await s.delete(key("a"), validate_deletion=accept)
        assert out == stored(configmap("a", v="2"), base + 3)
        assert len(validated) == 2
        assert await s.current_revision() == base + 3
        with pytest.raises(KeyNotFound):
            await s.get(key("a"))
        with pytest.raises(KeyNotFound):
            await s.delete(key("a"))
        assert (await s.get_list(NS_PREFIX, ListOptions())).items == []

        again = await s.create(key("a"), configmap("a", v="3"))
        assert again == stored(configmap("a", v="3"), base + 4)


@_case
async def case_delete_retries_when_object_changes(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a", v="1"))
        validated: list[Obj] = []

        async def validate(current: Obj) -> None:
            validated.append(current)
            if len(validated) == 1:
                await update_data(s, key("a"), v="2")  # changes under the delete

        out = await s.delete(key("a"), validate_deletion=validate)
        assert [v["data"] for v in validated] == [{"v": "1"}, {"v": "2"}]
        assert out == stored(configmap("a", v="2"), base + 3)


# -- watch --------------------------------------------------------------------------------------------------


@_case
async def case_watch_events(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        stream = EventStream(s.watch(NS_PREFIX, base))
        try:
            created = await s.create(key("a"), configmap("a", v="1"))
            await s.create(key("y", "default-x"), configmap("y", "default-x"))  # outside the prefix
            updated = await update_data(s, key("a"), v="2")
            deleted = await s.delete(key("a"))
            events = await stream.take(3)
            assert summary(events) == [
                ("ADDED", key("a"), base + 1),
                ("MODIFIED", key("a"), base + 3),
                ("DELETED", key("a"), base + 4),
            ]
            assert (events[0].obj, events[0].prev) == (created, None)
            assert (events[1].obj, events[1].prev) == (updated, created)
            assert (events[2].obj, events[2].prev) == (deleted, updated)
            assert deleted == stored(configmap("a", v="2"), base + 4)
            assert await stream.idle() == []
        finally:
            await stream.close()


@_case
async def case_watch_predicate(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)

        def blue(obj: Obj) -> bool:
            return bool(obj["data"].get("color") == "blue")

        stream = EventStream(s.watch(NS_PREFIX, base, predicate=blue))
        try:
            await s.create(key("a"), configmap("a", color="red"))
            await s.create(key("b"), configmap("b", color="blue"))
            await update_data(s, key("a"), color="blue")
            await s.delete(key("b"))
            assert summary(await stream.take(3)) == [
                ("ADDED", key("b"), base + 2),
                ("MODIFIED", key("a"), base + 3),
                ("DELETED", key("b"), base + 4),
            ]
            assert await stream.idle() == []
        finally:
            await stream.close()


@_case
async def case_watch_history_then_live(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        for i in range(30):
            await s.create(key(f"h{i:02}"), configmap(f"h{i:02}"))
        stream = EventStream(s.watch(NS_PREFIX, base + 10))

        async def write_more() -> None:
            for i in range(30):
                await s.create(key(f"l{i:02}"), configmap(f"l{i:02}"))
                await asyncio.sleep(0)

        try:
            writer = asyncio.get_running_loop().create_task(write_more())
            events = await stream.take(50)
            await writer
            assert [e.revision for e in events] == list(range(base + 11, base + 61))
            assert [e.obj["metadata"]["name"] for e in events] == [f"h{i:02}" for i in range(10, 30)] + [
                f"l{i:02}" for i in range(30)
            ]
            assert {e.type for e in events} == {EventType.ADDED}
            assert await stream.idle() == []
        finally:
            await stream.close()


@_case
async def case_watch_replays_updates_and_deletes(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        a1 = await s.create(key("a"), configmap("a", v="1"))
        a2 = await update_data(s, key("a"), v="2")
        gone = await s.delete(key("a"))
        stream = EventStream(s.watch(NS_PREFIX, base))
        try:
            events = await stream.take(3)
            assert [(e.type, e.obj, e.prev) for e in events] == [
                (EventType.ADDED, a1, None),
                (EventType.MODIFIED, a2, a1),
                (EventType.DELETED, gone, a2),
            ]
        finally:
            await stream.close()


@_case
async def case_watch_from_zero_starts_now(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        await s.create(key("a"), configmap("a"))
        stream = EventStream(s.watch(NS_PREFIX, 0))
        try:
            await s.create(key("b"), configmap("b"))
            assert summary(await stream.take(1)) == [("ADDED", key("b"), base + 2)]
            assert await stream.idle() == []
        finally:
            await stream.close()


@_case
async def case_watch_stop_ends_iteration(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        stream = EventStream(s.watch(NS_PREFIX, base))
        await s.create(key("a"), configmap("a"))
        assert summary(await stream.take(1)) == [("ADDED", key("a"), base + 1)]
        stream.watcher.stop()
        assert await stream.ended()
        await s.create(key("b"), configmap("b"))
        assert await stream.idle() == []
        assert stream.error is None


# -- compaction and restart ---------------------------------------------------------------------------------


@_case
async def case_compaction(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        a1 = await s.create(key("a"), configmap("a", v="1"))  # base+1
        b1 = await s.create(key("b"), configmap("b", v="1"))  # base+2
        a2 = await update_data(s, key("a"), v="2")  # base+3
        gone = await s.delete(key("b"))  # base+4
        c1 = await s.create(key("c"), configmap("c", v="1"))  # base+5
        assert a1["data"] == {"v": "1"}

        await s.compact(base + 3)

        error = await expect_watch_too_old(s, NS_PREFIX, base + 2)
        assert error.requested == base + 2
        with pytest.raises(TooOldResourceVersion) as info:
            await s.get_list(NS_PREFIX, ListOptions(resource_version=base + 2, match=EXACT))
        assert info.value.requested == base + 2
        with pytest.raises(TooOldResourceVersion):
            await s.get_list(
                NS_PREFIX, ListOptions(limit=1, continue_key=key("a"), continue_revision=base + 1)
            )

        # The compacted revision itself and everything after it stay readable and watchable.
        for revision, items in {base + 3: [a2, b1], base + 4: [a2], base + 5: [a2, c1]}.items():
            result = await s.get_list(NS_PREFIX, ListOptions(resource_version=revision, match=EXACT))
            assert result.items == items
        assert (await s.get_list(NS_PREFIX, ListOptions())).items == [a2, c1]
        assert await s.get(key("a")) == a2

        stream = EventStream(s.watch(NS_PREFIX, base + 3))
        try:
            events = await stream.take(2)
            assert [(e.type, e.obj, e.prev) for e in events] == [
                (EventType.DELETED, gone, b1),
                (EventType.ADDED, c1, None),
            ]
        finally:
            await stream.close()
        assert await s.current_revision() == base + 5


@_case
async def case_restart_keeps_revisions(factory: StorageFactory) -> None:
    async with opened(factory) as s:
        base = await begin(s)
        a1 = await s.create(key("a"), configmap("a", v="1"))
        b1 = await s.create(key("b"), configmap("b", v="1"))
        a2 = await update_data(s, key("a"), v="2")
        gone = await s.delete(key("b"))

    async with opened(factory) as s:
        assert await s.current_revision() == base + 4
        assert await s.get(key("a")) == a2
        at2 = await s.get_list(NS_PREFIX, ListOptions(resource_version=base + 2, match=EXACT))
        assert at2.items == [a1, b1]
        c1 = await s.create(key("c"), configmap("c"))
        assert c1["metadata"]["resourceVersion"] == str(base + 5)

        stream = EventStream(s.watch(NS_PREFIX, base))
        try:
            events = await stream.take(5)
            assert [(e.type, e.obj) for e in events] == [
                (EventType.ADDED, a1),
                (EventType.ADDED, b1),
                (EventType.MODIFIED, a2),
                (EventType.DELETED, gone),
                (EventType.ADDED, c1),
            ]
        finally:
            await stream.close()


__all__ = ["CASES", "Case", "EventStream", "StorageFactory", "run"]
