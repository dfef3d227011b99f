"""The Reflector against the fake API: list or WatchList, watch from the list's version, rewatch after a dropped
stream, relist after 410, consistent relist after an expired list, pagination, bookmarks, resync."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from kubelite.client.cache.listwatch import ListOptions
from kubelite.client.cache.reflector import Reflector
from kubelite.client.cache.store import Indexer
from kubelite.client.cache.testing import FakeListerWatcher, expired_status
from kubelite.client.clock import FakeClock
from kubelite.client.errors import ConnectionRefused, Expired, TooManyRequests
from tests.unit.client.support import cm, run, until


def names(store: Indexer) -> list[str]:
    return sorted(store.list_keys())


@asynccontextmanager
async def running(reflector: Reflector) -> AsyncIterator[Reflector]:
    task = asyncio.create_task(reflector.run())
    try:
        yield reflector
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def setup(
    *, watch_list: bool, supports_watch_list: bool = True
) -> tuple[FakeListerWatcher, Indexer, Reflector, FakeClock]:
    source = FakeListerWatcher(supports_watch_list=supports_watch_list)
    store = Indexer()
    clock = FakeClock()
    reflector = Reflector(source, store, use_watch_list=watch_list, clock=clock)
    return source, store, reflector, clock


@pytest.mark.parametrize("watch_list", [False, True], ids=["list-watch", "watch-list"])
def test_initial_state_then_changes(watch_list: bool) -> None:
    source, store, reflector, clock = setup(watch_list=watch_list)
    source.add(cm("a"))
    source.add(cm("b"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: names(store) == ["default/a", "default/b"], clock)
            assert reflector.last_sync_resource_version == "3"
            source.modify(cm("a"))
            source.delete(cm("b"))
            source.add(cm("c"))
            await until(lambda: names(store) == ["default/a", "default/c"], clock)
            assert store.get_by_key("default/a")["metadata"]["resourceVersion"] == "4"
            assert reflector.last_sync_resource_version == "6"

    run(body)
    verbs = [(call.verb, call.options) for call in source.calls]
    if watch_list:
        assert verbs == [
            (
                "watch",
                ListOptions(
                    resource_version="",
                    resource_version_match="NotOlderThan",
                    send_initial_events=True,
                    allow_watch_bookmarks=True,
                    timeout_seconds=verbs[0][1].timeout_seconds,
                ),
            )
        ]
    else:
        assert [verb for verb, _ in verbs] == ["list", "watch"]
        assert verbs[0][1] == ListOptions(resource_version="0", limit=500)
        assert verbs[1][1].resource_version == "3"
        assert verbs[1][1].allow_watch_bookmarks is True
    assert 300 <= (verbs[-1][1].timeout_seconds or 0) < 600


def test_list_items_get_api_version_and_kind() -> None:
    source, store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 1, clock)

    run(body)
    obj = store.get_by_key("default/a")
    assert (obj["apiVersion"], obj["kind"]) == ("v1", "ConfigMap")


def test_watch_list_falls_back_to_list_and_stops_asking() -> None:
    source, store, reflector, clock = setup(watch_list=True, supports_watch_list=False)
    source.add(cm("a"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 1, clock)
            source.compact()
            source.send_error(expired_status())
            await until(lambda: source.count("list") == 2, clock)

    run(body)
    # one failed watch-list, then lists; the second round does not try watch-list again
    sent_initial = [call.options.send_initial_events for call in source.calls if call.verb == "watch"]
    assert sent_initial[0] is True
    assert all(flag is None for flag in sent_initial[1:])


def test_dropped_stream_rewatches_from_last_version_without_relisting() -> None:
    source, store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 1, clock)
            source.modify(cm("a"))
            await until(lambda: reflector.last_sync_resource_version == "3", clock)
            source.drop_watches()
            source.add(cm("b"))  # happens while no watch is open
            await until(lambda: len(store) == 2, clock)

    run(body)
    assert source.count("list") == 1
    assert [c.options.resource_version for c in source.calls if c.verb == "watch"] == ["2", "3"]


def test_expired_watch_relists_at_the_last_version() -> None:
    source, store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))
    source.add(cm("b"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 2, clock)
            source.drop_watches()
            source.delete(cm("b"))  # missed: the history that had it is compacted below
            source.add(cm("c"))
            source.compact()
            await until(lambda: names(store) == ["default/a", "default/c"], clock)

    run(body)
    lists = [c.options.resource_version for c in source.calls if c.verb == "list"]
    assert lists == ["0", "3"]
    assert reflector.rounds == 2


def test_expired_list_retries_as_consistent_read() -> None:
    source, store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))
    source.fail_next_list(Expired(expired_status()))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 1, clock)

    run(body)
    assert [c.options.resource_version for c in source.calls if c.verb == "list"] == ["0", ""]


def test_pagination_and_expired_continue_token() -> None:
    source = FakeListerWatcher()
    for i in range(5):
        source.add(cm(f"o{i}"))
    store = Indexer()
    clock = FakeClock()
    reflector = Reflector(source, store, use_watch_list=False, page_size=2, clock=clock)

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 5, clock)

    run(body)
    pages = [
        (c.options.limit, c.options.continue_token, c.options.resource_version) for c in source.calls[:3]
    ]
    assert pages == [(2, None, "0"), (2, "2:6", None), (2, "4:6", None)]

    # a continue token that expires midway: the pager lists everything at once instead
    source2 = FakeListerWatcher()
    for i in range(5):
        source2.add(cm(f"o{i}"))
    original = source2.list

    async def compacting_list(options: ListOptions) -> dict:  # type: ignore[type-arg]
        result = await original(options)
        source2.compact()
        return result

    source2.list = compacting_list  # type: ignore[method-assign]
    store2 = Indexer()
    reflector2 = Reflector(source2, store2, use_watch_list=False, page_size=2, clock=clock)

    async def body2() -> None:
        async with running(reflector2):
            await until(lambda: len(store2) == 5, clock)

    run(body2)
    assert [(c.options.limit, c.options.continue_token) for c in source2.calls[:3]] == [
        (2, None),
        (2, "2:6"),
        (None, None),
    ]


def test_bookmarks_advance_the_resource_version() -> None:
    source, store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))

    async def body() -> None:
        async with running(reflector):
            await until(lambda: len(store) == 1, clock)
            source.revision = 50  # other resources changed meanwhile
            source.send_bookmark()
            await until(lambda: reflector.last_sync_resource_version == "50", clock)

    run(body)


@pytest.mark.parametrize(
    "error",
    [ConnectionRefused("connection refused"), TooManyRequests({"reason": "TooManyRequests", "code": 429})],
    ids=["refused", "429"],
)
def test_retriable_watch_errors_retry_the_watch_not_the_list(error: Exception) -> None:
    source, _store, reflector, clock = setup(watch_list=False)
    source.add(cm("a"))
    source.fail_next_watch(error)

    async def body() -> None:
        async with running(reflector):
            await until(lambda: source.count("watch") == 2 and len(source.watches) == 1, clock)

    run(body)
    assert source.count("list") == 1


def test_resync_asks_the_store() -> None:
    class CountingStore(Indexer):
        resyncs = 0

        def resync(self) -> None:
            CountingStore.resyncs += 1

    source = FakeListerWatcher()
    store = CountingStore()
    clock = FakeClock()
    allowed = [False, True, True]
    reflector = Reflector(
        source,
        store,
        use_watch_list=False,
        resync_period=10,
        should_resync=lambda: allowed.pop(0),
        clock=clock,
    )

    async def body() -> None:
        async with running(reflector):
            await until(lambda: source.count("watch") == 1, clock, step=0)
            for _ in range(3):
                clock.step(10)
                await until(lambda: True, clock, step=0)

    run(body)
    assert CountingStore.resyncs == 2
