"""The scheduling queue on a fake clock: order, backoff, moves out of unschedulablePods, and the awaitable pop."""

from __future__ import annotations

import asyncio

import pytest

from kubelite.cluster.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    NODE_UPDATE,
    QueueClosedError,
    QueuedPodInfo,
    SchedulingQueue,
)
from kubelite.cluster.scheduler.testing import make_pod
from kubelite.util.clock import FakeClock


def popped(queue: SchedulingQueue) -> QueuedPodInfo:
    info = queue.pop_nowait()
    assert info is not None
    return info


def names(queue: SchedulingQueue) -> list[str]:
    out = []
    while (info := queue.pop_nowait()) is not None:
        out.append(info.pod["metadata"]["name"])
    return out


def fail(queue: SchedulingQueue, info: QueuedPodInfo, *plugins: str) -> None:
    queue.add_unschedulable(info, queue.scheduling_cycle, plugins or ("NodeResourcesFit",))


def test_active_queue_orders_by_priority_then_arrival() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("low-early", priority=0))
    clock.step(1)
    queue.add(make_pod("high", priority=100))
    clock.step(1)
    queue.add(make_pod("low-late", priority=0))
    queue.add(make_pod("negative", priority=-5))
    assert names(queue) == ["high", "low-early", "low-late", "negative"]


def test_backoff_doubles_from_one_second_to_ten() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("p"))
    durations = []
    for _ in range(6):
        info = popped(queue)
        durations.append(queue.backoff_duration(info))
        queue.add_unschedulable(info, queue.scheduling_cycle, ())  # an error: straight to backoffQ
        assert queue.where(info.uid) == "backoff"
        clock.step(durations[-1] - 0.01)
        assert queue.flush_backoff_completed() == 0
        clock.step(0.01)
        assert queue.flush_backoff_completed() == 1
        assert queue.where(info.uid) == "active"
    assert durations == [1, 2, 4, 8, 10, 10]


def test_unschedulable_pods_wait_for_an_event_that_can_help() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("cpu"))
    queue.add(make_pod("taint"))
    fail(queue, popped(queue), "NodeResourcesFit")
    fail(queue, popped(queue), "TaintToleration")
    assert queue.where("uid-default-cpu") == queue.where("uid-default-taint") == "unschedulable"
    clock.step(60)
    assert queue.flush_backoff_completed() == 0
    # a deleted pod frees resources; it cannot remove a taint
    assert queue.move_on_event(ASSIGNED_POD_DELETE) == 1
    assert queue.where("uid-default-cpu") == "active"
    assert queue.where("uid-default-taint") == "unschedulable"
    assert queue.move_on_event(NODE_UPDATE) == 1
    assert names(queue) == ["cpu", "taint"]


def test_a_moved_pod_still_backing_off_goes_to_backoff() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("p"))
    fail(queue, popped(queue))
    clock.step(0.5)
    assert queue.move_on_event(NODE_ADD) == 1
    assert queue.where("uid-default-p") == "backoff"
    clock.step(0.5)
    assert queue.flush_backoff_completed() == 1
    assert names(queue) == ["p"]


def test_an_event_during_the_cycle_sends_the_pod_to_backoff_not_unschedulable() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("p"))
    info = popped(queue)
    cycle = queue.scheduling_cycle
    queue.move_on_event(NODE_ADD)  # a node arrived while p was being scheduled
    queue.add_unschedulable(info, cycle, ("NodeResourcesFit",))
    assert queue.where(info.uid) == "backoff"


def test_unschedulable_pods_are_retried_after_five_minutes_anyway() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("old"))
    fail(queue, popped(queue))
    clock.step(100)
    queue.add(make_pod("young"))
    fail(queue, popped(queue))
    clock.step(200)
    assert queue.flush_unschedulable_left_over() == 0  # exactly 300 s is not more than 300 s
    clock.step(1)
    assert queue.flush_unschedulable_left_over() == 1
    assert queue.where("uid-default-old") == "active"
    assert queue.where("uid-default-young") == "unschedulable"


def test_update_and_delete() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    pod = make_pod("p")
    queue.add(pod)
    fail(queue, popped(queue))
    clock.step(20)
    # a status-only change does not help; a spec change may
    touched = {**pod, "metadata": {**pod["metadata"], "resourceVersion": "9"}}
    queue.update(pod, touched)
    assert queue.where("uid-default-p") == "unschedulable"
    changed = {**pod, "spec": {**pod["spec"], "tolerations": [{"operator": "Exists"}]}}
    queue.update(touched, changed)
    assert queue.where("uid-default-p") == "active"
    queue.update(changed, {**changed, "spec": {**changed["spec"], "priority": 5}})
    info = popped(queue)
    assert info.priority == 5 and info.attempts == 2
    queue.update(changed, changed)  # in flight: kept for its return, which then goes to backoff
    fail(queue, info)
    assert queue.where(info.uid) == "backoff"
    queue.delete(changed)
    assert queue.where(info.uid) is None and len(queue) == 0


def test_pop_waits_for_a_pod_and_close_ends_it() -> None:
    async def main() -> None:
        clock = FakeClock()
        queue = SchedulingQueue(clock)
        waiter = asyncio.ensure_future(queue.pop())
        await asyncio.sleep(0)
        assert not waiter.done()
        queue.add(make_pod("p"))
        info = await asyncio.wait_for(waiter, 5)
        assert info.pod["metadata"]["name"] == "p" and queue.where(info.uid) == "in-flight"
        queue.done(info.uid)
        assert queue.where(info.uid) is None
        closing = asyncio.ensure_future(queue.pop())
        await asyncio.sleep(0)
        queue.close()
        with pytest.raises(QueueClosedError):
            await asyncio.wait_for(closing, 5)

    asyncio.run(main())


def test_run_flushes_backoff_on_the_injected_clock() -> None:
    async def main() -> None:
        clock = FakeClock()
        queue = SchedulingQueue(clock)
        queue.add(make_pod("p"))
        queue.add_unschedulable(popped(queue), queue.scheduling_cycle, ())
        runner = asyncio.ensure_future(queue.run())
        waiter = asyncio.ensure_future(queue.pop())
        for _ in range(3):
            await asyncio.sleep(0)
        assert not waiter.done()
        clock.step(1)
        info = await asyncio.wait_for(waiter, 5)
        assert info.attempts == 2
        queue.close()
        clock.step(1)
        await asyncio.wait_for(runner, 5)

    asyncio.run(main())


def test_bad_backoff_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="initial_backoff"):
        SchedulingQueue(FakeClock(), initial_backoff=5, max_backoff=1)


def test_gated_pods_wait_until_their_gates_are_lifted() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    gated = make_pod("g", schedulingGates=[{"name": "example.com/quota"}])
    queue.add(gated)
    assert queue.where("uid-default-g") == "unschedulable" and queue.pop_nowait() is None
    queue.move_on_event(NODE_ADD)
    clock.step(600)
    queue.flush_unschedulable_left_over()
    assert queue.where("uid-default-g") == "unschedulable"
    queue.update(gated, {**gated, "spec": {**gated["spec"], "schedulingGates": [{"name": "example.com/other"}]}})
    assert queue.where("uid-default-g") == "unschedulable"
    lifted = {**gated, "spec": {k: v for k, v in gated["spec"].items() if k != "schedulingGates"}}
    queue.update(gated, lifted)
    assert names(queue) == ["g"]


def test_a_pod_deleted_during_its_cycle_does_not_come_back() -> None:
    queue = SchedulingQueue(FakeClock())
    pod = make_pod("p")
    queue.add(pod)
    info = popped(queue)
    queue.delete(pod)
    fail(queue, info)
    assert queue.where(info.uid) is None and len(queue) == 0


def test_a_pod_placed_helps_only_pods_waiting_on_affinity_or_spread() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("cpu"))
    queue.add(make_pod("affinity"))
    fail(queue, popped(queue), "NodeResourcesFit")
    fail(queue, popped(queue), "InterPodAffinity")
    clock.step(60)
    assert queue.move_on_event(ASSIGNED_POD_ADD) == 1
    assert (queue.where("uid-default-affinity"), queue.where("uid-default-cpu")) == ("active", "unschedulable")


def test_pods_in_flight_when_the_loop_stops_are_handed_back() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock)
    queue.add(make_pod("a"))
    queue.add(make_pod("b"))
    popped(queue)
    popped(queue)
    assert queue.requeue_in_flight() == 2
    assert queue.where("uid-default-a") == queue.where("uid-default-b") == "backoff"
    assert queue.requeue_in_flight() == 0
