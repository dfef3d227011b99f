"""The controller runtime on fake time: keys from informer events, retries with backoff, periodic requeue,
giving up after max_retries, never two workers on one key."""

from __future__ import annotations

import asyncio

from kubelite.client.cache import SharedIndexInformer
from kubelite.client.cache.testing import FakeListerWatcher
from kubelite.client.clock import FakeClock
from kubelite.client.controller import Controller
from kubelite.client.workqueue import ItemExponentialFailureRateLimiter
from tests.unit.client.support import cm, run, until


def setup(reconcile, **kwargs):  # type: ignore[no-untyped-def]
    source = FakeListerWatcher()
    clock = FakeClock()
    informer = SharedIndexInformer(source, clock=clock, use_watch_list=False)
    controller = Controller(
        "test", reconcile, clock=clock, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 60.0), **kwargs
    )
    return source, informer, controller, clock


def test_events_become_keys_and_failures_are_retried_with_backoff() -> None:
    calls: list[tuple[str, float]] = []
    failures = {"default/flaky": 2}

    async def reconcile(key: str) -> None:
        calls.append((key, clock.monotonic()))
        if failures.get(key):
            failures[key] -= 1
            raise RuntimeError("transient")

    source, informer, controller, clock = setup(reconcile)
    source.add(cm("steady"))
    source.add(cm("flaky"))
    controller.watch(informer)

    async def body() -> None:
        tasks = [informer.start(), asyncio.create_task(controller.run())]
        await until(lambda: len(calls) == 4, clock, step=0.5)
        source.delete(cm("steady"))
        await until(lambda: len(calls) == 5, clock, step=0.5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    run(body)
    start = calls[0][1]
    assert [(key, at - start) for key, at in calls] == [
        ("default/flaky", 0.0),  # the list comes sorted by key
        ("default/steady", 0.0),
        ("default/flaky", 1.0),  # first retry after 1s
        ("default/flaky", 3.0),  # second after 2s more
        ("default/steady", calls[4][1] - start),  # the deletion
    ]
    assert controller.queue.num_requeues("default/flaky") == 0  # forgotten after the success


def test_requeue_after_and_giving_up() -> None:
    calls: list[str] = []

    async def reconcile(key: str) -> float | None:
        calls.append(key)
        if key == "default/periodic":
            return 10.0
        raise RuntimeError("always")

    source, informer, controller, clock = setup(reconcile, max_retries=2)
    source.add(cm("periodic"))
    source.add(cm("broken"))
    controller.watch(informer)

    async def body() -> None:
        tasks = [informer.start(), asyncio.create_task(controller.run())]
        await until(lambda: calls.count("default/periodic") == 3, clock, step=1)
        for _ in range(60):
            clock.step(1)
            await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    run(body)
    assert calls.count("default/broken") == 3  # the first try and two retries


def test_one_key_is_never_reconciled_twice_at_once() -> None:
    running: set[str] = set()
    overlaps: list[str] = []
    count = 0

    async def reconcile(key: str) -> None:
        nonlocal count
        if key in running:
            overlaps.append(key)
        running.add(key)
        for _ in range(3):
            await asyncio.sleep(0)
        running.discard(key)
        count += 1

    source, informer, controller, clock = setup(reconcile, workers=4)
    controller.watch(informer)

    async def body() -> None:
        tasks = [informer.start(), asyncio.create_task(controller.run())]
        await until(informer.has_synced, clock)
        for i in range(200):
            name = f"o{i % 5}"
            if f"default/{name}" in source.objects:
                source.modify(cm(name))
            else:
                source.add(cm(name))
            if i % 3 == 0:
                await asyncio.sleep(0)
        await until(lambda: len(controller.queue) == 0 and not running, clock)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    run(body)
    assert overlaps == []
    assert count >= 5
