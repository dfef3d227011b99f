"""Work queue invariants: dedup, never two workers on one item, re-queue after done, shut down and drain,
metrics; and a randomized property test with concurrent workers (seeded, so failures reproduce)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kubelite.client.workqueue import InMemoryMetricsProvider, Queue, QueueShutDown
from tests.unit.client.support import InstantClock, run, settle


def test_adds_collapse_while_waiting() -> None:
    async def body() -> list[str]:
        queue: Queue[str] = Queue()
        for item in ["a", "b", "a", "a", "c", "b"]:
            queue.add(item)
        queue.check_invariants()
        assert len(queue) == 3
        return [await queue.get() for _ in range(3)]

    assert run(body) == ["a", "b", "c"]


def test_item_added_while_processing_is_queued_once_after_done() -> None:
    async def body() -> None:
        queue: Queue[str] = Queue()
        queue.add("a")
        item = await queue.get()
        queue.add("a")
        queue.add("a")
        queue.check_invariants()
        assert len(queue) == 0  # not handed to a second worker while the first holds it
        queue.done(item)
        assert len(queue) == 1
        assert await queue.get() == "a"
        queue.done("a")
        assert len(queue) == 0

    run(body)


def test_shut_down_hands_out_what_is_queued_then_raises() -> None:
    async def body() -> None:
        queue: Queue[str] = Queue()
        queue.add("a")
        queue.shut_down()
        queue.add("ignored")
        assert queue.shutting_down()
        assert await queue.get() == "a"
        with pytest.raises(QueueShutDown):
            await queue.get()

    run(body)


def test_shut_down_wakes_waiting_workers() -> None:
    async def body() -> None:
        queue: Queue[str] = Queue()
        waiters = [asyncio.create_task(queue.get()) for _ in range(3)]
        await settle()
        queue.shut_down()
        results = await asyncio.gather(*waiters, return_exceptions=True)
        assert [type(r) for r in results] == [QueueShutDown] * 3

    run(body)


def test_shut_down_with_drain_waits_for_processing() -> None:
    async def body() -> None:
        queue: Queue[str] = Queue()
        queue.add("a")
        item = await queue.get()
        drained = asyncio.create_task(queue.shut_down_with_drain())
        await settle()
        assert not drained.done()
        queue.done(item)
        await asyncio.wait_for(drained, 1)

    run(body)


def test_metrics() -> None:
    clock = InstantClock()
    provider = InMemoryMetricsProvider()

    async def body() -> None:
        queue: Queue[str] = Queue(name="q", metrics_provider=provider, clock=clock)
        queue.add("a")
        queue.add("a")
        queue.add("b")
        clock.step(2)
        item = await queue.get()
        clock.step(3)
        queue.update_unfinished_work()
        queue.done(item)

    run(body)
    recorded = provider.queues["q"]
    assert (recorded.adds, recorded.depth) == (2, 1)
    assert recorded.latencies == [2.0]
    assert recorded.work_durations == [3.0]
    assert (recorded.unfinished_work_seconds, recorded.longest_running_processor_seconds) == (3.0, 3.0)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5], ids=lambda s: f"seed{s}")
def test_concurrent_workers_property(seed: int) -> None:
    """Random adds from producers, random processing times in workers: no item is ever processed by two
    workers at once, every item added is processed after its last add, and waiting items are never duplicated."""
    rng = random.Random(seed)
    items = [f"k{i}" for i in range(8)]

    async def body() -> None:
        queue: Queue[str] = Queue()
        in_progress: set[str] = set()
        #: the add counter of each item when it was last added, and when a worker last took it
        last_add: dict[str, int] = {}
        taken_after: dict[str, int] = {}
        counter = 0

        async def worker() -> None:
            while True:
                try:
                    item = await queue.get()
                except QueueShutDown:
                    return
                assert item not in in_progress, f"{item} processed concurrently"
                in_progress.add(item)
                taken_after[item] = counter
                for _ in range(rng.randint(0, 3)):
                    await asyncio.sleep(0)
                in_progress.discard(item)
                queue.done(item)
                queue.check_invariants()

        async def producer() -> None:
            nonlocal counter
            for _ in range(300):
                item = rng.choice(items)
                counter += 1
                last_add[item] = counter
                queue.add(item)
                queue.check_invariants()
                if rng.random() < 0.5:
                    await asyncio.sleep(0)

        workers = [asyncio.create_task(worker()) for _ in range(4)]
        await asyncio.gather(producer(), producer())
        await queue.shut_down_with_drain()
        await asyncio.gather(*workers)
        for item, added in last_add.items():
            assert taken_after[item] >= added, f"{item} was added after its last processing began"

    run(body)
