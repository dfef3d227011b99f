"""SharedIndexInformer over the fake API with both queues: handlers in order, late handlers, tombstones after a
relist, resync, per-handler sync tracking, a slow handler that blocks no one; listers and wait_for_cache_sync."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from kubelite.client.cache import (
    DeletedFinalStateUnknown,
    FilteringResourceEventHandler,
    Lister,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    wait_for_cache_sync,
)
from kubelite.client.cache.testing import FakeListerWatcher
from kubelite.client.clock import FakeClock
from kubelite.client.errors import NotFound
from tests.unit.client.support import cm, run, settle, until

QUEUES = pytest.mark.parametrize("queue", ["real", "delta"])


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, ...]] = []

    def handler(self) -> ResourceEventHandlerFuncs:
        return ResourceEventHandlerFuncs(
            add_with_initial=self.on_add, update=self.on_update, delete=self.on_delete
        )

    def on_add(self, obj: Any, initial: bool) -> None:
        self.events.append(("add", obj["metadata"]["name"], obj["metadata"]["resourceVersion"], str(initial)))

    def on_update(self, old: Any, new: Any) -> None:
        self.events.append(
            (
                "update",
                new["metadata"]["name"],
                old["metadata"]["resourceVersion"],
                new["metadata"]["resourceVersion"],
            )
        )

    def on_delete(self, obj: Any) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            self.events.append(("delete-tombstone", obj.key))
        else:
            self.events.append(("delete", obj["metadata"]["name"]))


@asynccontextmanager
async def started(informer: SharedIndexInformer) -> AsyncIterator[SharedIndexInformer]:
    informer.start()
    try:
        yield informer
    finally:
        await informer.stop()


def make(queue: str, **kwargs: Any) -> tuple[FakeListerWatcher, SharedIndexInformer, FakeClock]:
    source = FakeListerWatcher()
    clock = FakeClock()
    informer = SharedIndexInformer(source, queue=queue, clock=clock, use_watch_list=False, **kwargs)  # type: ignore[arg-type]
    return source, informer, clock


@QUEUES
def test_handlers_see_changes_in_order(queue: str) -> None:
    source, informer, clock = make(queue)
    source.add(cm("a"))
    recorder = Recorder()
    informer.add_event_handler(recorder.handler())

    async def body() -> None:
        async with started(informer):
            await until(informer.has_synced, clock)
            source.modify(cm("a"))
            source.add(cm("b"))
            source.delete(cm("a"))
            await until(lambda: len(recorder.events) == 4, clock)

    run(body)
    if queue == "real":
        # exactly the server's order
        assert recorder.events == [
            ("add", "a", "2", "True"),
            ("update", "a", "2", "3"),
            ("add", "b", "4", "False"),
            ("delete", "a"),
        ]
    else:
        # DeltaFIFO pops a's pending deltas together, before b: the reordering RealFIFO avoids
        assert recorder.events == [
            ("add", "a", "2", "True"),
            ("update", "a", "2", "3"),
            ("delete", "a"),
            ("add", "b", "4", "False"),
        ]
    assert informer.indexer.list_keys() == ["default/b"]


@QUEUES
def test_late_handler_gets_synthetic_adds_and_tracks_its_sync(queue: str) -> None:
    source, informer, clock = make(queue)
    for name in ("a", "b"):
        source.add(cm(name))
    release = asyncio.Event()

    async def slow_add(obj: Any, initial: bool) -> None:
        await release.wait()
        late.events.append(("add", obj["metadata"]["name"], str(initial)))

    late = Recorder()

    async def body() -> None:
        async with started(informer):
            await until(informer.has_synced, clock)
            registration = informer.add_event_handler(ResourceEventHandlerFuncs(add_with_initial=slow_add))
            await settle()
            assert informer.has_synced() and not registration.has_synced()
            release.set()
            await until(registration.has_synced, clock)

    run(body)
    assert sorted(late.events) == [("add", "a", "True"), ("add", "b", "True")]


@QUEUES
def test_deletion_missed_during_outage_arrives_as_tombstone(queue: str) -> None:
    source, informer, clock = make(queue)
    source.add(cm("a"))
    source.add(cm("b"))
    recorder = Recorder()
    informer.add_event_handler(recorder.handler())

    async def body() -> None:
        async with started(informer):
            await until(informer.has_synced, clock)
            source.drop_watches()
            source.delete(cm("b"))
            source.compact()
            await until(lambda: len(recorder.events) == 4, clock)

    run(body)
    assert recorder.events == [
        ("add", "a", "2", "True"),
        ("add", "b", "3", "True"),
        ("delete-tombstone", "default/b"),
        # the relist's unchanged object reaches handlers as a sync update, as client-go's does
        ("update", "a", "2", "2"),
    ]
    assert informer.indexer.list_keys() == ["default/a"]


@QUEUES
def test_resync_redelivers_the_cache_to_handlers_that_asked(queue: str) -> None:
    source, informer, clock = make(queue, resync_period=30)
    source.add(cm("a"))
    resyncing, quiet = Recorder(), Recorder()
    informer.add_event_handler(resyncing.handler())
    informer.add_event_handler(quiet.handler(), resync_period=0)

    async def body() -> None:
        async with started(informer):
            await until(informer.has_synced, clock, step=0)
            clock.step(30)
            await until(lambda: len(resyncing.events) == 2, clock, step=0)

    run(body)
    assert resyncing.events == [("add", "a", "2", "True"), ("update", "a", "2", "2")]
    assert quiet.events == [("add", "a", "2", "True")]


def test_resync_periods_are_clamped() -> None:
    source, informer, clock = make("real", resync_period=60)
    fast = informer.add_event_handler(Recorder().handler(), resync_period=0.1)
    slow = informer.add_event_handler(Recorder().handler(), resync_period=120)
    assert informer.resync_check_period == 1.0  # the minimum, since one handler asked for more often
    assert (fast.listener.resync_period, slow.listener.resync_period) == (1.0, 120)
    never = SharedIndexInformer(source, clock=clock)
    registration = never.add_event_handler(Recorder().handler(), resync_period=10)
    assert registration.listener.resync_period == 0.0  # an informer made without resync never resyncs


def test_a_failing_or_slow_handler_does_not_block_others() -> None:
    source, informer, clock = make("real")
    source.add(cm("a"))
    fine = Recorder()
    stuck = asyncio.Event()

    async def never_returns(obj: Any) -> None:
        await stuck.wait()

    def explodes(obj: Any) -> None:
        raise RuntimeError("handler bug")

    informer.add_event_handler(ResourceEventHandlerFuncs(add=never_returns))
    informer.add_event_handler(ResourceEventHandlerFuncs(add=explodes))
    informer.add_event_handler(fine.handler())

    async def body() -> None:
        async with started(informer):
            await until(lambda: len(fine.events) == 1, clock)
            source.add(cm("b"))
            await until(lambda: len(fine.events) == 2, clock)

    run(body)
    assert [e[1] for e in fine.events] == ["a", "b"]


def test_filtering_handler_turns_updates_into_adds_and_deletes() -> None:
    recorder = Recorder()
    handler = FilteringResourceEventHandler(
        lambda o: (o["metadata"].get("labels") or {}).get("on") == "1", recorder.handler()
    )
    handler.on_update(cm("x", rv="1"), cm("x", rv="2", on="1"))
    handler.on_update(cm("x", rv="2", on="1"), cm("x", rv="3", on="1"))
    handler.on_update(cm("x", rv="3", on="1"), cm("x", rv="4"))
    handler.on_update(cm("x", rv="4"), cm("x", rv="5"))
    assert recorder.events == [("add", "x", "2", "False"), ("update", "x", "2", "3"), ("delete", "x")]


def test_listers() -> None:
    source, informer, clock = make("real")
    source.add(cm("a", "ns1", app="web"))
    source.add(cm("b", "ns1", app="db"))
    source.add(cm("c", "ns2", app="web"))
    lister = Lister(informer.indexer, resource="configmaps")

    async def body() -> None:
        async with started(informer):
            await until(informer.has_synced, clock)

    run(body)
    assert sorted(o["metadata"]["name"] for o in lister.list()) == ["a", "b", "c"]
    assert sorted(o["metadata"]["name"] for o in lister.list("app=web")) == ["a", "c"]
    assert [o["metadata"]["name"] for o in lister.namespace("ns1").list("app in (web)")] == ["a"]
    assert lister.namespace("ns2").get("c")["metadata"]["name"] == "c"
    with pytest.raises(NotFound) as caught:
        lister.namespace("ns2").get("a")
    assert caught.value.message == 'configmaps "a" not found'
    with pytest.raises(NotFound):
        lister.get("a")


def test_wait_for_cache_sync_times_out_on_fake_time() -> None:
    clock = FakeClock()

    async def body() -> bool:
        waiting = asyncio.create_task(wait_for_cache_sync(lambda: False, clock=clock, timeout=1.0))
        await until(waiting.done, clock, step=0.1)
        return waiting.result()

    assert run(body) is False
    assert run(lambda: wait_for_cache_sync(lambda: True, clock=clock)) is True
