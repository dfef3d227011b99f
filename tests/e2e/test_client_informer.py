"""Shared informers against real kubelite processes: changes in order, thousands of concurrent changes, a
dropped connection, a server restart, and a 410 after compaction; each ends with the informer's cache equal to
a fresh list. A TCP proxy between informer and server lets a test cut the connection or refuse new ones."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from kubelite.client import Config, DynamicClient, RESTClient
from kubelite.client.cache import (
    DeletedFinalStateUnknown,
    Reflector,
    ResourceEventHandlerFuncs,
    SharedInformerFactory,
    wait_for_cache_sync,
)
from kubelite.client.cache.listwatch import ListOptions, ListWatch
from kubelite.client.cache.pager import list_all
from kubelite.client.errors import Gone
from tests.e2e.server import KubeliteProcess

CONFIGMAPS = ("", "v1", "configmaps")
#: a watch that ends within a second without events counts as broken and makes the informer relist (client-go's
#: "very short watch"); tests that cut connections first let the current watch grow older than that
WATCH_AGE = 1.2


def run(body: Callable[[], Awaitable[Any]], timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(body(), timeout))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proxy:
    """A TCP relay to the server. `drop()` cuts every open connection; `pause()` also stops listening (new
    connections are refused) until `resume()`."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}

    def drop(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def pause(self) -> None:
        assert self._server is not None
        self._server.close()
        self.drop()
        await self._server.wait_closed()
        self._server = None

    async def resume(self) -> None:
        await self.start()

    async def close(self) -> None:
        if self._server is not None:
            await self.pause()


class Recorder:
    """Handler events, and the state they add up to."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []
        self.state: dict[str, str] = {}
        self.tombstones: list[str] = []

    def handler(self) -> ResourceEventHandlerFuncs:
        return ResourceEventHandlerFuncs(add=self.add, update=self.update, delete=self.delete)

    def add(self, obj: dict[str, Any]) -> None:
        self.events.append(("ADDED", obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))
        self.state[obj["metadata"]["name"]] = obj["metadata"]["resourceVersion"]

    def update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        if old["metadata"]["resourceVersion"] != new["metadata"]["resourceVersion"]:
            self.events.append(("MODIFIED", new["metadata"]["name"], new["metadata"]["resourceVersion"]))
        self.state[new["metadata"]["name"]] = new["metadata"]["resourceVersion"]

    def delete(self, obj: Any) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            self.tombstones.append(obj.key)
            name = obj.key.split("/")[-1]
        else:
            name = obj["metadata"]["name"]
        self.events.append(("DELETED", name, ""))
        self.state.pop(name, None)


async def fresh_state(url: str, namespace: str) -> dict[str, str]:
    async with RESTClient(Config(host=url)) as rest:
        listing = await DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace).list()
    return {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in listing["items"]}


def cache_state(factory: SharedInformerFactory) -> dict[str, str]:
    indexer = factory.for_resource(CONFIGMAPS).informer.indexer
    return {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in indexer.list()}


async def eventually_equal(
    url: str, namespace: str, factory: SharedInformerFactory, recorder: Recorder
) -> None:
    expected: dict[str, str] = {}
    for _ in range(300):
        expected = await fresh_state(url, namespace)
        if cache_state(factory) == expected and recorder.state == expected:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"cache {cache_state(factory)} / handlers {recorder.state} never reached {expected}")


@asynccontextmanager
async def informing(
    url: str, namespace: str, **factory_args: Any
) -> AsyncIterator[tuple[SharedInformerFactory, Recorder]]:
    async with RESTClient(Config(host=url)) as rest:
        factory = SharedInformerFactory(DynamicClient(rest), namespace=namespace, **factory_args)
        recorder = Recorder()
        factory.for_resource(CONFIGMAPS).informer.add_event_handler(recorder.handler())
        factory.start()
        assert await factory.wait_for_cache_sync(timeout=30) == {
            factory.for_resource(CONFIGMAPS).informer.lister_watcher.client.gvr: True  # type: ignore[attr-defined]
        }
        try:
            yield factory, recorder
        finally:
            await factory.shutdown()


async def make_namespace(url: str, name: str) -> Any:
    async with RESTClient(Config(host=url)) as rest:
        client = DynamicClient(rest)
        await client.resource(("", "v1", "namespaces")).create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        )


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": dict(data)}


def reflector_of(factory: SharedInformerFactory) -> Reflector:
    reflector = factory.for_resource(CONFIGMAPS).informer.reflector
    assert reflector is not None
    return reflector


@pytest.mark.parametrize("watch_list", [True, False], ids=["watch-list", "list-then-watch"])
def test_handlers_see_every_change_in_server_order(server: KubeliteProcess, watch_list: bool) -> None:
    namespace = f"order-{int(watch_list)}"

    async def body() -> None:
        await make_namespace(server.url, namespace)
        async with (
            RESTClient(Config(host=server.url)) as rest,
            informing(server.url, namespace, use_watch_list=watch_list) as (factory, recorder),
        ):
            cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
            expected: list[tuple[str, str, str]] = []
            a = await cms.create(configmap("a"))
            expected.append(("ADDED", "a", a["metadata"]["resourceVersion"]))
            b = await cms.create(configmap("b"))
            expected.append(("ADDED", "b", b["metadata"]["resourceVersion"]))
            a = await cms.patch("a", {"data": {"k": "1"}})
            expected.append(("MODIFIED", "a", a["metadata"]["resourceVersion"]))
            await cms.delete("b")
            expected.append(("DELETED", "b", ""))
            a = await cms.patch("a", {"data": {"k": "2"}})
            expected.append(("MODIFIED", "a", a["metadata"]["resourceVersion"]))
            await cms.delete("a")
            expected.append(("DELETED", "a", ""))
            for _ in range(100):
                if len(recorder.events) >= len(expected) + 1:
                    break
                await asyncio.sleep(0.05)
            # the namespace's kube-root-ca.crt arrives first or in between; the rest in the server's order
            mine = [event for event in recorder.events if event[1] != "kube-root-ca.crt"]
            assert mine == expected
            assert reflector_of(factory).rounds == 1

    run(body)


def test_thousands_of_concurrent_changes(server: KubeliteProcess) -> None:
    namespace = "busy"
    rng = random.Random(5)

    async def body() -> None:
        await make_namespace(server.url, namespace)
        async with (
            RESTClient(Config(host=server.url)) as rest,
            informing(server.url, namespace) as (factory, recorder),
        ):
            cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
            names = [f"cm{i}" for i in range(150)]
            ops = 0

            async def writer(seed: int) -> None:
                nonlocal ops
                local = random.Random(seed)
                for _ in range(150):
                    name = local.choice(names)
                    try:
                        choice = local.random()
                        if choice < 0.4:
                            await cms.create(configmap(name, v=str(ops)))
                        elif choice < 0.8:
                            await cms.patch(name, {"data": {"v": str(ops)}})
                        else:
                            await cms.delete(name)
                        ops += 1
                    except Exception as exc:  # racing writers: the object exists already or is gone
                        assert getattr(exc, "code", None) in (404, 409), exc

            await asyncio.gather(*(writer(rng.randrange(1 << 30)) for _ in range(20)))
            assert ops > 1500
            await eventually_equal(server.url, namespace, factory, recorder)
            assert reflector_of(factory).rounds == 1

    run(body, timeout=300)


def test_dropped_and_refused_connections_resume_the_watch(server: KubeliteProcess) -> None:
    namespace = "flaky"

    async def body() -> None:
        await make_namespace(server.url, namespace)
        proxy = Proxy(server.insecure_port)
        await proxy.start()
        try:
            async with (
                RESTClient(Config(host=server.url)) as rest,
                informing(f"http://127.0.0.1:{proxy.port}", namespace) as (factory, recorder),
            ):
                cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
                await cms.create(configmap("before"))
                await eventually_equal(server.url, namespace, factory, recorder)
                await asyncio.sleep(WATCH_AGE)
                proxy.drop()
                await cms.create(configmap("during-drop"))
                await eventually_equal(server.url, namespace, factory, recorder)
                await asyncio.sleep(WATCH_AGE)
                await proxy.pause()
                await cms.create(configmap("during-pause"))
                await cms.delete("before")
                await asyncio.sleep(1.0)
                await proxy.resume()
                await eventually_equal(server.url, namespace, factory, recorder)
                # the watch was resumed from its resourceVersion each time, never relisted
                assert reflector_of(factory).rounds == 1
                assert recorder.tombstones == []
        finally:
            await proxy.close()

    run(body)


@pytest.fixture
def fixed_port_server(tmp_path: Path) -> Iterator[KubeliteProcess]:
    """A server on a port of its own that stays the same across restarts; history compacted every second."""
    port = free_port()
    proc = KubeliteProcess(
        tmp_path / "data",
        extra_args=["--insecure-port", str(port), "--secure-port", "-1", "--etcd-compaction-interval", "1s"],
    ).start()
    yield proc
    proc.stop()


def test_informer_survives_a_server_restart(fixed_port_server: KubeliteProcess) -> None:
    server = fixed_port_server
    namespace = "restart"

    async def body() -> None:
        await make_namespace(server.url, namespace)
        async with informing(server.url, namespace) as (factory, recorder):
            async with RESTClient(Config(host=server.url)) as rest:
                await DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace).create(configmap("old"))
            await eventually_equal(server.url, namespace, factory, recorder)
            await asyncio.to_thread(server.restart)
            async with RESTClient(Config(host=server.url)) as rest:
                cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
                await cms.create(configmap("new"))
                await cms.delete("old")
            await eventually_equal(server.url, namespace, factory, recorder)

    run(body)


def test_410_after_compaction_relists_and_reports_missed_deletions(
    fixed_port_server: KubeliteProcess,
) -> None:
    server = fixed_port_server
    namespace = "compacted"
    errors: list[BaseException] = []

    async def body() -> None:
        await make_namespace(server.url, namespace)
        proxy = Proxy(server.insecure_port)
        await proxy.start()
        try:
            async with RESTClient(Config(host=server.url)) as rest:
                cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
                for name in ("stays", "goes", "changes"):
                    await cms.create(configmap(name))
            async with informing(f"http://127.0.0.1:{proxy.port}", namespace) as (factory, recorder):
                reflector_of(factory).watch_error_handler = lambda _, err: errors.append(err)
                await eventually_equal(server.url, namespace, factory, recorder)
                await asyncio.sleep(WATCH_AGE)
                await proxy.pause()  # the informer misses everything from here on
                async with RESTClient(Config(host=server.url)) as rest:
                    cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
                    await cms.delete("goes")
                    await cms.patch("changes", {"data": {"k": "v"}})
                    await cms.create(configmap("arrives"))
                # a restart starts the watch cache after those changes; compaction drops their history
                await asyncio.to_thread(server.restart)
                await asyncio.sleep(2.5)
                await proxy.resume()
                await eventually_equal(server.url, namespace, factory, recorder)
                assert reflector_of(factory).rounds == 2
                assert recorder.tombstones == [f"{namespace}/goes"]
        finally:
            await proxy.close()

    run(body)
    assert any(isinstance(err, Gone) for err in errors), errors


def test_pager_lists_everything_when_its_continue_token_is_compacted(
    fixed_port_server: KubeliteProcess,
) -> None:
    server = fixed_port_server
    namespace = "pager"

    async def body() -> None:
        await make_namespace(server.url, namespace)
        async with RESTClient(Config(host=server.url)) as rest:
            cms = DynamicClient(rest).resource(CONFIGMAPS).namespace(namespace)
            for i in range(6):
                await cms.create(configmap(f"p{i}"))
            lister = ListWatch(cms)
            calls: list[ListOptions] = []
            expired: list[BaseException] = []

            async def slow_pages(options: ListOptions) -> dict[str, Any]:
                calls.append(options)
                if options.continue_token:
                    try:
                        return await lister.list(options)
                    except Gone as exc:
                        expired.append(exc)
                        raise
                page = await lister.list(options)
                if options.limit:
                    await cms.create(configmap("late"))  # history moves on, then is compacted
                    await asyncio.sleep(2.5)
                return page

            listing, _ = await list_all(slow_pages, ListOptions(), page_size=2)
            names = sorted(o["metadata"]["name"] for o in listing["items"])
            assert names == ["kube-root-ca.crt", "late"] + [f"p{i}" for i in range(6)]
            assert [(c.limit, bool(c.continue_token)) for c in calls] == [
                (2, False),
                (2, True),
                (None, False),
            ]
            assert expired and expired[0].code == 410

    run(body)


def test_wait_for_cache_sync_of_handler_registrations(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with informing(server.url, "default") as (factory, _):
            informer = factory.for_resource(CONFIGMAPS).informer
            late = Recorder()
            registration = informer.add_event_handler(late.handler())
            assert await wait_for_cache_sync(registration.has_synced, timeout=10)
            assert set(late.state) == set(cache_state(factory))

    run(body)
