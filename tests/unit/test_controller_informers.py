"""kubelite.client's ListerWatcher over a registry store (controllers/informers.py), the informers built on
it, the namespace controller that runs on them, and the controller manager sharing them: a real SQLiteStorage
and registry, no HTTP. `running_controllers` runs every controller for the other test_controllers_* modules."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import uvloop

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.listwatch import ListOptions
from kubelite.client.cache.pager import DEFAULT_PAGE_SIZE
from kubelite.client.cache.wait import POLL_INTERVAL
from kubelite.client.clock import FakeClock
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, BadRequest, Expired, Invalid
from kubelite.client.watch import INITIAL_EVENTS_END_ANNOTATION, WatchEvent
from kubelite.controllers.informers import RegistryInformerFactory, StoreListerWatcher, StoreWatch
from kubelite.controllers.manager import build_controllers, run_controllers
from kubelite.controllers.namespace import RECHECK_AFTER, NamespaceController
from kubelite.registry import registration
from kubelite.registry.builtin import Registry, build_registry
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.store import Store
from kubelite.storage.cacher import Cacher
from kubelite.storage.sqlite import SQLiteStorage

Body = Callable[[Registry], Awaitable[None]]


def run(tmp_path: Path, body: Body) -> None:
    async def main() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        registry = await build_registry(storage)
        try:
            await body(registry)
        finally:
            for cacher in registry.cachers:
                await cacher.close()
            await storage.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(main(), 30))


def configmaps(registry: Registry) -> Store:
    return registry.store("", "configmaps")


def configmap(name: str, namespace: str = "default", labels: dict[str, str] | None = None) -> Obj:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


async def seed(registry: Registry) -> list[Obj]:
    """default/a (app=web), default/b (app=db), kube-public/c (app=web)."""
    store = configmaps(registry)
    return [
        await store.create("default", configmap("a", labels={"app": "web"}), WriteParams()),
        await store.create("default", configmap("b", labels={"app": "db"}), WriteParams()),
        await store.create("kube-public", configmap("c", "kube-public", {"app": "web"}), WriteParams()),
    ]


def names(objects: list[Obj]) -> list[str]:
    return [f"{o['metadata'].get('namespace', '')}/{o['metadata']['name']}" for o in objects]


async def take(watch: StoreWatch, count: int) -> list[WatchEvent]:
    return [await asyncio.wait_for(anext(watch), 5) for _ in range(count)]


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    async def loop() -> None:
        while not await check():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(loop(), timeout)


class Reconciles:
    """Every reconcile a controller starts and finishes: the positive barrier of tests that assert that nothing
    (more) happens, so that they do not pass merely because the controller is slow."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        #: keys whose reconcile finished, in order
        self.finished: list[str] = []
        self.in_flight = 0
        inner = controller.reconcile

        async def recorded(key: str) -> float | None:
            self.in_flight += 1
            try:
                return await inner(key)
            finally:
                self.in_flight -= 1
                self.finished.append(key)

        controller.reconcile = recorded

    def idle(self) -> bool:
        """Nothing queued, nothing waiting for a delay, nothing being reconciled."""
        queue = self.controller.queue
        return len(queue) == 0 and queue.waiting() == 0 and self.in_flight == 0

    async def settled_after(self, effect: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
        """Wait until `effect` (what the controller does about a later, sentinel event of the same informer)
        shows and the controller is idle: every event before the sentinel has been handled by then."""

        async def done() -> bool:
            return await effect() and self.idle()

        await eventually(done, timeout)


@contextlib.asynccontextmanager
async def running_loops(
    registry: Registry, root_ca: str = "CA PEM", *, clock: FakeClock | None = None
) -> AsyncIterator[tuple[RegistryInformerFactory, dict[str, Reconciles]]]:
    """Every controller on one shared informer factory, as the server runs them, until the block ends; with
    the reconciles of each, by the controller's name. `clock` is the controllers' (the informers' is real):
    it is stepped while they wait for their caches, and then left to the test."""
    informers = RegistryInformerFactory(registry)
    loops = build_controllers(registry, informers, root_ca=root_ca, clock=clock)
    reconciles = {loop.controller.name: Reconciles(loop.controller) for loop in loops}
    task = asyncio.create_task(run_controllers(registry, informers, root_ca=root_ca, loops=loops))
    try:
        if clock is not None:

            async def started() -> bool:
                # a controller polls its caches on its clock: once synced, nobody sleeps on it
                if all(loop.controller.has_synced() for loop in loops) and not clock.has_waiters():
                    return True
                if clock.has_waiters():
                    clock.step(POLL_INTERVAL)
                return False

            await eventually(started)
        yield informers, reconciles
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@contextlib.asynccontextmanager
async def running_controllers(
    registry: Registry, root_ca: str = "CA PEM"
) -> AsyncIterator[RegistryInformerFactory]:
    """Every controller on one shared informer factory, as the server runs them, until the block ends."""
    async with running_loops(registry, root_ca) as (informers, _):
        yield informers


# -- list ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("namespace", "label_selector", "field_selector", "expected"),
    [
        ("", None, None, ["default/a", "default/b", "kube-public/c"]),
        ("default", None, None, ["default/a", "default/b"]),
        ("", "app=web", None, ["default/a", "kube-public/c"]),
        ("", None, "metadata.name=b", ["default/b"]),
        ("default", "app=web", "metadata.name!=a", []),
    ],
    ids=["everything", "one-namespace", "label-selector", "field-selector", "all-three"],
)
def test_list_honours_namespace_and_selectors(
    tmp_path: Path, namespace: str, label_selector: str | None, field_selector: str | None, expected: list[str]
) -> None:
    async def body(registry: Registry) -> None:
        await seed(registry)
        lister_watcher = StoreListerWatcher(
            configmaps(registry),
            namespace=namespace,
            label_selector=label_selector,
            field_selector=field_selector,
        )
        result = await lister_watcher.list(ListOptions())
        assert names(result["items"]) == expected
        assert (result["apiVersion"], result["kind"]) == ("v1", "ConfigMapList")
        assert result["metadata"]["resourceVersion"] == str(configmaps(registry).storage.revision)
        assert {(i["apiVersion"], i["kind"]) for i in result["items"]} <= {("v1", "ConfigMap")}

    run(tmp_path, body)


def test_list_pages_with_limit_and_continue(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        created = await seed(registry)
        lister_watcher = StoreListerWatcher(configmaps(registry))
        first = await lister_watcher.list(ListOptions(resource_version="0", limit=2))
        token = first["metadata"]["continue"]
        second = await lister_watcher.list(ListOptions(limit=2, continue_token=token))
        assert (names(first["items"]), names(second["items"]), "continue" in second["metadata"]) == (
            ["default/a", "default/b"],
            ["kube-public/c"],
            False,
        )
        assert first["metadata"]["remainingItemCount"] == 1
        assert second["metadata"]["resourceVersion"] == created[-1]["metadata"]["resourceVersion"]

    run(tmp_path, body)


def test_list_items_missing_their_kind_get_it_on_a_copy(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        await store.create("default", configmap("a"), WriteParams())
        cached = store.peek("default", "a")
        assert cached is not None
        bare = {k: v for k, v in cached.items() if k not in ("apiVersion", "kind")}

        async def bare_list(namespace: str, params: ListParams) -> Obj:
            return {"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"resourceVersion": "1"},
                    "items": [bare]}  # fmt: skip

        store.list = bare_list  # type: ignore[method-assign]
        result = await StoreListerWatcher(store).list(ListOptions())
        assert (result["items"][0]["apiVersion"], result["items"][0]["kind"], "kind" in bare) == (
            "v1",
            "ConfigMap",
            False,
        )

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("options", "error", "code", "message"),
    [
        (
            ListOptions(resource_version="abc"),
            BadRequest,
            400,
            'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
        ),
        (
            ListOptions(resource_version="0", resource_version_match="Exact"),
            Invalid,
            422,
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" '
            'is forbidden for resourceVersion "0"',
        ),
    ],
    ids=["unparsable-resource-version", "exact-at-zero"],
)
def test_list_failures_are_the_clients_errors(
    tmp_path: Path, options: ListOptions, error: type[ApiError], code: int, message: str
) -> None:
    async def body(registry: Registry) -> None:
        with pytest.raises(ApiError) as caught:
            await StoreListerWatcher(configmaps(registry)).list(options)
        assert (type(caught.value), caught.value.code, caught.value.message) == (error, code, message)

    run(tmp_path, body)


# -- watch ---------------------------------------------------------------------------------------------------


def test_watch_reshapes_changes(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        start = str(store.storage.revision)
        watch = await StoreListerWatcher(store, namespace="default").watch(ListOptions(resource_version=start))
        created = await store.create("default", configmap("a"), WriteParams())

        async def relabel(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"]["labels"] = {"x": "y"}
            return current

        updated, _ = await store.update("default", "a", relabel, WriteParams())
        deleted, _ = await store.delete("default", "a", DeleteParams())
        events = await take(watch, 3)
        await watch.close()
        assert [(e.type, e.object["metadata"]["name"], e.resource_version) for e in events] == [
            ("ADDED", "a", created["metadata"]["resourceVersion"]),
            ("MODIFIED", "a", updated["metadata"]["resourceVersion"]),
            ("DELETED", "a", deleted["metadata"]["resourceVersion"]),
        ]

    run(tmp_path, body)


def test_watch_list_ends_its_initial_events_with_an_annotated_bookmark(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        await seed(registry)
        store = configmaps(registry)
        options = ListOptions(
            resource_version="",
            resource_version_match="NotOlderThan",
            send_initial_events=True,
            allow_watch_bookmarks=True,
        )
        watch = await StoreListerWatcher(store, label_selector="app=web").watch(options)
        events = await take(watch, 3)
        await watch.close()
        assert [(e.type, e.is_initial_events_end()) for e in events] == [
            ("ADDED", False),
            ("ADDED", False),
            ("BOOKMARK", True),
        ]
        assert names([e.object for e in events[:2]]) == ["default/a", "kube-public/c"]
        assert events[2].object == {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "resourceVersion": str(store.storage.revision),
                "annotations": {INITIAL_EVENTS_END_ANNOTATION: "true"},
            },
        }

    run(tmp_path, body)


def test_a_progress_bookmark_carries_only_a_resource_version(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        start = str(store.storage.revision)
        watch = await StoreListerWatcher(store).watch(ListOptions(resource_version=start, allow_watch_bookmarks=True))
        created = await store.create("default", configmap("a"), WriteParams())
        [added] = await take(watch, 1)
        store.storage.send_bookmarks()
        [bookmark] = await take(watch, 1)
        await watch.close()
        revision = created["metadata"]["resourceVersion"]
        assert (added.type, added.resource_version, bookmark.type, bookmark.object) == (
            "ADDED",
            revision,
            "BOOKMARK",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"resourceVersion": revision}},
        )

    run(tmp_path, body)


def test_a_watch_from_a_compacted_revision_is_expired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registration, "Cacher", functools.partial(Cacher, window_size=2))

    async def body(registry: Registry) -> None:
        created = [*await seed(registry), await configmaps(registry).create("default", configmap("d"), WriteParams())]
        # a window of two keeps the last two events (c, d): everything after b's revision
        assert await configmaps(registry).storage.wait_until_fresh(int(created[-1]["metadata"]["resourceVersion"]))
        first = created[0]["metadata"]["resourceVersion"]
        with pytest.raises(Expired) as caught:
            await StoreListerWatcher(configmaps(registry)).watch(ListOptions(resource_version=first))
        oldest = int(created[1]["metadata"]["resourceVersion"])
        assert (caught.value.code, caught.value.reason, caught.value.message) == (
            410,
            "Expired",
            f"too old resource version: {first} ({oldest})",
        )

    run(tmp_path, body)


@pytest.mark.parametrize("how", ["timeout", "close"], ids=["its-timeout", "close"])
def test_a_watch_ends(tmp_path: Path, how: str) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        watcher = await store.watch("", ListParams(resource_version=str(store.storage.revision)))
        watch = StoreWatch(watcher, store, timeout=0.05 if how == "timeout" else None)
        if how == "close":
            await watch.close()
        events = [event async for event in watch]
        assert (events, watch.closed, watcher.stopped) == ([], True, True)

    run(tmp_path, body)


# -- informers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_watch_list", [True, False], ids=["watch-list", "list-then-watch"])
def test_an_informer_follows_the_store(tmp_path: Path, use_watch_list: bool) -> None:
    async def body(registry: Registry) -> None:
        await seed(registry)
        factory = RegistryInformerFactory(registry, use_watch_list=use_watch_list)
        informer = factory.for_resource("", "configmaps")
        assert factory.for_resource("", "configmaps") is informer
        factory.start()
        try:
            assert await factory.wait_for_cache_sync(timeout=5) is True
            assert sorted(names(informer.lister.list())) == ["default/a", "default/b", "kube-public/c"]
            store = configmaps(registry)
            await store.create("default", configmap("d"), WriteParams())
            await store.delete("default", "a", DeleteParams())

            async def caught_up() -> bool:
                return sorted(names(informer.lister.list())) == ["default/b", "default/d", "kube-public/c"]

            await eventually(caught_up)
            assert informer.lister.namespace("default").get("d")["kind"] == "ConfigMap"
        finally:
            await factory.shutdown()

    run(tmp_path, body)


# -- the namespace controller --------------------------------------------------------------------------------


def test_the_namespace_controller_empties_and_removes_a_terminating_namespace(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        namespaces = registry.store("", "namespaces")
        await namespaces.create("", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}},
                                WriteParams())  # fmt: skip
        await configmaps(registry).create("doomed", configmap("x", "doomed"), WriteParams())
        await configmaps(registry).create("default", configmap("kept"), WriteParams())
        informers = RegistryInformerFactory(registry)
        namespace_controller = NamespaceController(registry, informers)
        informers.start()
        controller = asyncio.create_task(namespace_controller.run())
        try:
            await namespaces.delete("", "doomed", DeleteParams())

            async def gone() -> bool:
                return namespaces.peek("", "doomed") is None

            await eventually(gone)
            left = await configmaps(registry).list("", ListParams())
            assert names(left["items"]) == ["default/kept"]
        finally:
            controller.cancel()
            await asyncio.gather(controller, return_exceptions=True)
            await informers.shutdown()

    run(tmp_path, body)


def test_the_namespace_controller_checks_again_a_step_of_its_clock_later(tmp_path: Path) -> None:
    """Content held by a finalizer keeps the namespace; the controller looks again RECHECK_AFTER seconds later
    on its clock (fake here, stepped), and finalizes the namespace once the content is gone."""

    async def body(registry: Registry) -> None:
        namespaces = registry.store("", "namespaces")
        await namespaces.create("", {"metadata": {"name": "held"}}, WriteParams())
        held = configmap("x", "held")
        held["metadata"]["finalizers"] = ["example.com/hold"]
        await configmaps(registry).create("held", held, WriteParams())
        clock = FakeClock()
        async with running_loops(registry, clock=clock) as (_, reconciles):
            namespace = reconciles["namespace"]
            await namespaces.delete("", "held", DeleteParams())

            async def checking_again() -> bool:
                return namespace.controller.queue.waiting() == 1 and namespace.in_flight == 0

            await eventually(checking_again)
            content = configmaps(registry).peek("held", "x")
            assert content is not None and content["metadata"].get("deletionTimestamp")
            assert namespaces.peek("", "held") is not None

            async def drop_finalizer(current: Obj | None) -> Obj:
                assert current is not None
                current["metadata"]["finalizers"] = []
                return current

            await configmaps(registry).update("held", "x", drop_finalizer, WriteParams(), allow_create=False)
            assert configmaps(registry).peek("held", "x") is None
            # nothing tells the controller but its clock
            assert await checking_again()
            assert namespaces.peek("", "held") is not None
            clock.step(RECHECK_AFTER)

            async def gone() -> bool:
                return namespaces.peek("", "held") is None

            await eventually(gone, timeout=5)

    run(tmp_path, body)


# -- sharing the watch cache's objects -----------------------------------------------------------------------


@pytest.mark.parametrize("use_watch_list", [True, False], ids=["watch-list", "list-then-watch"])
def test_an_informer_holds_the_watch_caches_own_objects(tmp_path: Path, use_watch_list: bool) -> None:
    """No second copy of any object, also when the list comes in pages (more than DEFAULT_PAGE_SIZE)."""

    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for i in range(DEFAULT_PAGE_SIZE + 10):
            await store.create("default", configmap(f"cm{i:04d}"), WriteParams())
        factory = RegistryInformerFactory(registry, use_watch_list=use_watch_list)
        indexer = factory.for_resource("", "configmaps").informer.indexer
        factory.start()
        try:
            assert await factory.wait_for_cache_sync(timeout=5) is True
            copies = [key for key in indexer.list_keys() if indexer.get_by_key(key) is not store.peek(*key.split("/"))]
            assert (len(indexer), copies) == (DEFAULT_PAGE_SIZE + 10, [])
            created = await store.create("default", configmap("d"), WriteParams())

            async def seen() -> bool:
                return indexer.get_by_key("default/d") is not None

            await eventually(seen)
            cached = indexer.get_by_key("default/d")
            assert (cached is store.peek("default", "d"), cached == created) == (True, True)
        finally:
            await factory.shutdown()

    run(tmp_path, body)


# -- stopping and sharing the loop ---------------------------------------------------------------------------


@pytest.mark.parametrize("turns", [0, 2, 10], ids=lambda turns: f"after-{turns}-turns")
def test_an_informer_stops_while_its_initial_events_stream(tmp_path: Path, turns: int) -> None:
    """Stopping must not be lost however the cancellation meets the stream of events (asyncio.wait_for around
    each event used to swallow it when an event was ready, and the informer ran on)."""

    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for i in range(600):
            await store.create("default", configmap(f"cm{i:04d}"), WriteParams())
        factory = RegistryInformerFactory(registry)
        factory.for_resource("", "configmaps")
        factory.start()
        for _ in range(turns):
            await asyncio.sleep(0)
        await asyncio.wait_for(factory.shutdown(), 5)

    run(tmp_path, body)


def test_a_watch_backlog_lets_other_tasks_run(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for i in range(1000):
            await store.create("default", configmap(f"cm{i:04d}"), WriteParams())
        watch = await StoreListerWatcher(store).watch(ListOptions(resource_version="0"))
        consumed: list[int] = []
        count = 0

        async def neighbour() -> None:
            consumed.append(count)

        task = asyncio.create_task(neighbour())
        async for _ in watch:
            count += 1
            if count == 1000:
                break
        await watch.close()
        await task
        assert consumed == [StoreWatch.YIELD_EVERY - 1]

    run(tmp_path, body)


# -- the controller manager ----------------------------------------------------------------------------------


def test_every_controller_shares_one_informer_per_resource(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        informers = RegistryInformerFactory(registry)
        build_controllers(registry, informers, root_ca="CA PEM")
        served = sorted(key for key, store in registry.stores.items() if isinstance(store, Store))
        handlers = {
            resource: len(informers.for_resource("", resource).informer.processor.listeners)
            for resource in ("namespaces", "serviceaccounts", "configmaps", "pods", "secrets")
        }
        # namespaces: the namespace, serviceaccount, root CA publisher and garbage collector controllers
        assert (sorted(informers.resources()), handlers) == (
            served,
            {"namespaces": 4, "serviceaccounts": 2, "configmaps": 2, "pods": 2, "secrets": 1},
        )

    run(tmp_path, body)
