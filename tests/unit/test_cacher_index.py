"""The watch cache's indexed trigger: watchers pinned to a pod's spec.nodeName are offered only the events of
pods on their node (before or after the change), and see exactly what an unindexed watcher with the same
selector sees."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import uvloop

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import parse_field_selector
from kubelite.registry.builtin import build_registry
from kubelite.registry.options import ListParams
from kubelite.registry.strategy import field_value
from kubelite.storage.cacher import Cacher, CacheWatcher, WatchRequest
from kubelite.storage.interface import WatchEvent
from kubelite.storage.sqlite import SQLiteStorage

PREFIX = "/registry/pods/"
FIELD = "spec.nodeName"

Summary = tuple[str, str, str]


def run(body: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(body(), 20))


def node_of(obj: Obj) -> str:
    return field_value(obj, FIELD)


def pod(name: str, node: str = "", namespace: str = "default", **labels: str) -> Obj:
    spec: dict[str, object] = {"containers": [{"name": "c", "image": "i"}]}
    if node:
        spec["nodeName"] = node
    meta = {"name": name, "namespace": namespace, "labels": dict(labels)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def key(name: str, namespace: str = "default") -> str:
    return f"{PREFIX}{namespace}/{name}"


def on_node(node: str, app: str | None = None) -> Callable[[Obj], bool]:
    """A field selector `spec.nodeName=<node>` (and a label selector `app=<app>`), as the Store builds it."""

    def matches(obj: Obj) -> bool:
        if app is not None and ((obj.get("metadata") or {}).get("labels") or {}).get("app") != app:
            return False
        return node_of(obj) == node

    return matches


def summary(event: WatchEvent) -> Summary:
    meta = event.obj.get("metadata") or {}
    return (event.type.value, meta.get("name", ""), meta.get("resourceVersion", ""))


@asynccontextmanager
async def opened(tmp_path: Path, *, indexed: bool = True) -> AsyncIterator[tuple[SQLiteStorage, Cacher]]:
    storage = await SQLiteStorage.open(tmp_path)
    cacher = Cacher(storage, PREFIX, indexed_trigger=(FIELD, node_of) if indexed else None, watcher_queue_size=10_000)
    try:
        await cacher.start()
        yield storage, cacher
    finally:
        await cacher.close()
        await storage.close()


async def pinned(cacher: Cacher, node: str, app: str | None = None) -> CacheWatcher:
    req = WatchRequest(PREFIX, cacher.revision, predicate=on_node(node, app), exact_fields={FIELD: node})
    return await cacher.watch_stream(req)


async def unpinned(cacher: Cacher, node: str, app: str | None = None) -> CacheWatcher:
    return await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision, predicate=on_node(node, app)))


def drain(watcher: CacheWatcher) -> list[Summary]:
    """Everything queued so far (the cache has applied every write the test awaited)."""
    queue = watcher._queue
    out: list[Summary] = []
    while not queue.empty():
        item = queue.get_nowait()
        if isinstance(item, WatchEvent):
            out.append(summary(item))
    return out


def counting(watcher: CacheWatcher) -> list[int]:
    """Count the events the cacher offers `watcher` (whether or not they pass its selector)."""
    offered = [0]
    offer = watcher.offer

    def counted(event: WatchEvent) -> None:
        offered[0] += 1
        offer(event)

    watcher.offer = counted  # type: ignore[method-assign]
    return offered


async def set_node(storage: SQLiteStorage, cacher: Cacher, name: str, node: str) -> Obj:
    async def change(current: Obj | None) -> Obj:
        assert current is not None
        if node:
            current["spec"]["nodeName"] = node
        else:
            current["spec"].pop("nodeName", None)
        return current

    updated = await storage.guaranteed_update(key(name), change)
    assert await cacher.wait_until_fresh(int(updated["metadata"]["resourceVersion"]), timeout=5)
    return updated


async def settle(storage: SQLiteStorage, cacher: Cacher) -> None:
    assert await cacher.wait_until_fresh(await storage.current_revision(), timeout=5)


def rv(obj: Obj) -> str:
    return str(obj["metadata"]["resourceVersion"])


def test_a_pinned_watcher_is_offered_only_its_nodes_events(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            a, b = await pinned(cacher, "node-a"), await pinned(cacher, "node-b")
            everything = await cacher.watch_stream(WatchRequest(PREFIX, cacher.revision))
            offered_a, offered_b, offered_all = counting(a), counting(b), counting(everything)
            on_a = await storage.create(key("p1"), pod("p1", "node-a"))
            on_b = await storage.create(key("p2"), pod("p2", "node-b"))
            unscheduled = await storage.create(key("p3"), pod("p3"))
            moved = await set_node(storage, cacher, "p1", "node-b")  # off a, onto b
            gone = await storage.delete(key("p2"))
            await settle(storage, cacher)
            assert (offered_a[0], offered_b[0], offered_all[0]) == (2, 3, 5)
            assert drain(a) == [("ADDED", "p1", rv(on_a)), ("DELETED", "p1", rv(moved))]
            assert drain(b) == [("ADDED", "p2", rv(on_b)), ("ADDED", "p1", rv(moved)), ("DELETED", "p2", rv(gone))]
            assert [s[:2] for s in drain(everything)] == [
                ("ADDED", "p1"),
                ("ADDED", "p2"),
                ("ADDED", "p3"),
                ("MODIFIED", "p1"),
                ("DELETED", "p2"),
            ]
            assert rv(unscheduled)

    run(body)


def test_a_pin_on_the_empty_value_follows_unscheduled_pods(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            waiting = await pinned(cacher, "")
            created = await storage.create(key("p"), pod("p"))
            await storage.create(key("q"), pod("q", "node-a"))
            bound = await set_node(storage, cacher, "p", "node-a")
            await settle(storage, cacher)
            assert drain(waiting) == [("ADDED", "p", rv(created)), ("DELETED", "p", rv(bound))]

    run(body)


def test_stopped_watchers_leave_the_index(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path) as (_, cacher):
            first, second = await pinned(cacher, "node-a"), await pinned(cacher, "node-a")
            other = await unpinned(cacher, "node-a")
            assert {v: len(ws) for v, ws in cacher._pinned.items()} == {"node-a": 2}
            assert cacher._unpinned == {other}
            first.stop()
            assert cacher._pinned == {"node-a": {second}}
            second.stop()
            other.stop()
            assert (cacher._pinned, cacher._unpinned, cacher._watchers) == ({}, set(), set())

    run(body)


def test_without_an_indexed_field_every_watcher_is_offered_everything(tmp_path: Path) -> None:
    async def body() -> None:
        async with opened(tmp_path, indexed=False) as (storage, cacher):
            a = await pinned(cacher, "node-a")
            offered = counting(a)
            created = await storage.create(key("p1"), pod("p1", "node-a"))
            await storage.create(key("p2"), pod("p2", "node-b"))
            await settle(storage, cacher)
            assert cacher._pinned == {}
            assert offered[0] == 2
            assert drain(a) == [("ADDED", "p1", rv(created))]

    run(body)


@pytest.mark.parametrize("seed", range(4))
def test_pinned_watchers_see_what_unindexed_ones_see(tmp_path: Path, seed: int) -> None:
    """Random binds, moves, relabels, creates and deletes: each pinned watcher's stream equals the stream of
    a watcher with the same selector that the cacher offers every event."""
    rng = random.Random(seed)
    nodes = ["", "node-a", "node-b", "node-c"]

    async def body() -> None:
        async with opened(tmp_path) as (storage, cacher):
            selectors = [(node, app) for node in nodes for app in (None, "web")]
            pairs = [(await pinned(cacher, n, a), await unpinned(cacher, n, a)) for n, a in selectors]
            live: set[str] = set()
            for step in range(120):
                choice = rng.random()
                if not live or choice < 0.3:
                    name = f"p{step}"
                    app = rng.choice(["web", "db"])
                    await storage.create(key(name), pod(name, rng.choice(nodes), app=app))
                    live.add(name)
                elif choice < 0.6:
                    await set_node(storage, cacher, rng.choice(sorted(live)), rng.choice(nodes))
                elif choice < 0.8:
                    name, app = rng.choice(sorted(live)), rng.choice(["web", "db"])

                    async def relabel(current: Obj | None, app: str = app) -> Obj:
                        assert current is not None
                        current["metadata"]["labels"] = {"app": app}
                        return current

                    await storage.guaranteed_update(key(name), relabel)
                else:
                    name = rng.choice(sorted(live))
                    await storage.delete(key(name))
                    live.discard(name)
            await settle(storage, cacher)
            seen = 0
            for (indexed, plain), selector in zip(pairs, selectors, strict=True):
                got, want = drain(indexed), drain(plain)
                assert got == want, selector
                seen += len(got)
            assert seen > 100  # the streams are not trivially empty

    run(body)


def test_the_pods_store_pins_a_watch_on_spec_node_name(tmp_path: Path) -> None:
    """Through the registry: the pods cache indexes spec.nodeName, and the Store hands it a watch's terms."""

    async def body() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        registry = await build_registry(storage)
        try:
            pods = registry.store("", "pods")
            pinned = await pods.watch("", ListParams(field_selector=parse_field_selector("spec.nodeName=n1")))
            other = await pods.watch(
                "default", ListParams(field_selector=parse_field_selector("spec.nodeName!=n1,status.phase=Running"))
            )
            maps = await registry.store("", "configmaps").watch(
                "", ListParams(field_selector=parse_field_selector("metadata.name=a"))
            )
            assert isinstance(pinned, CacheWatcher) and isinstance(other, CacheWatcher)
            assert isinstance(maps, CacheWatcher)
            assert (pinned.trigger_value, other.trigger_value, maps.trigger_value) == ("n1", None, None)
            for watcher in (pinned, other, maps):
                watcher.stop()
        finally:
            for cacher in registry.cachers:
                await cacher.close()
            await storage.close()

    run(body)
