"""The scheduling loop's decisions and writes, with the API replaced by a recorder: a pod that fits is assumed,
bound and reported `Scheduled`; one that does not is reported `FailedScheduling`, gets PodScheduled=False and
waits as unschedulable until a node comes; a refused binding forgets the assumed pod and is retried with backoff
under reason SchedulerError; a pod gone meanwhile is not handed back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.client.errors import ApiError, Conflict
from kubelite.cluster.scheduler.component import SchedulerComponent
from kubelite.cluster.scheduler.testing import make_node, make_pod


class FakePods:
    """pods, pods/binding and pods/status as the component calls them, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None, Any]] = []
        self.refuse: ApiError | None = None

    def namespace(self, namespace: str | None) -> FakePods:
        return self

    async def create(self, body: Any, *, subresource: str | None = None, name: str | None = None) -> Any:
        self.calls.append(("create", subresource, body))
        if self.refuse is not None:
            raise self.refuse
        return {"kind": "Status", "status": "Success", "code": 201}

    async def patch(self, name: str, body: Any, *, patch_type: str, subresource: str | None = None) -> Any:
        self.calls.append((f"patch {patch_type}", subresource, body))
        return {}


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def component(pods: FakePods) -> SchedulerComponent:
    clients = ComponentClient("default-scheduler", Config(host="http://127.0.0.1:9"), clock=FakeClock())
    scheduler = SchedulerComponent(clients, host="h")
    scheduler._pods_api = pods  # type: ignore[assignment]
    return scheduler


def pending(scheduler: SchedulerComponent, pod: dict[str, Any]) -> None:
    """The pod as the informer would deliver it: in the lister, then in the queue."""
    scheduler.pods.informer.indexer.add(pod)
    scheduler.queue.add(pod)


async def one_cycle(scheduler: SchedulerComponent) -> None:
    info = scheduler.queue.pop_nowait()
    assert info is not None
    await scheduler.schedule_one(info, scheduler.queue.scheduling_cycle)
    for _ in range(5):
        await asyncio.sleep(0)


def emitted(scheduler: SchedulerComponent) -> list[dict[str, Any]]:
    return scheduler.events.pending()


def test_a_pod_that_fits_is_assumed_bound_and_reported(loop: asyncio.AbstractEventLoop) -> None:
    async def body() -> None:
        pods = FakePods()
        scheduler = component(pods)
        scheduler._node_added(make_node("a"))
        pod = make_pod("web", cpu="1")
        pending(scheduler, pod)
        await one_cycle(scheduler)
        assert pods.calls == [("create", "binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web", "namespace": "default",
                                                                "uid": "uid-default-web"},
            "target": {"kind": "Node", "name": "a"}})]  # fmt: skip
        assert scheduler.cache.is_assumed("uid-default-web")
        assert scheduler.queue.where("uid-default-web") is None
        [event] = emitted(scheduler)
        assert (event["reason"], event["action"], event["note"], event["reportingInstance"]) == (
            "Scheduled", "Binding", "Successfully assigned default/web to a", "default-scheduler-h")

    loop.run_until_complete(body())


def test_a_pod_no_node_fits_is_told_and_waits_for_a_node(loop: asyncio.AbstractEventLoop) -> None:
    async def body() -> None:
        pods = FakePods()
        scheduler = component(pods)
        scheduler._node_added(make_node("a", cpu="1"))
        pending(scheduler, make_pod("big", cpu="2"))
        await one_cycle(scheduler)
        message = ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
                   "0/1 nodes are available: 1 No preemption victims found for incoming pod.")
        [(verb, subresource, patch)] = pods.calls
        assert (verb, subresource) == ("patch strategic", "status")
        [condition] = patch["status"]["conditions"]
        assert {k: condition[k] for k in ("type", "status", "reason", "message")} == {
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
        [event] = emitted(scheduler)
        assert (event["type"], event["reason"], event["action"], event["note"]) == (
            "Warning", "FailedScheduling", "Scheduling", message)
        assert scheduler.queue.where("uid-default-big") == "unschedulable"
        # a heartbeat moves nothing; a node that may fit does
        scheduler._node_updated(make_node("a", cpu="1"), make_node("a", cpu="1"))
        assert scheduler.queue.where("uid-default-big") == "unschedulable"
        scheduler._node_added(make_node("b", cpu="4"))
        assert scheduler.queue.where("uid-default-big") in ("active", "backoff")

    loop.run_until_complete(body())


def test_a_refused_binding_forgets_the_pod_and_retries_it_with_backoff(loop: asyncio.AbstractEventLoop) -> None:
    async def body() -> None:
        pods = FakePods()
        pods.refuse = Conflict({"kind": "Status", "code": 409, "reason": "Conflict",
                                "message": 'Operation cannot be fulfilled on pods/binding "web": '
                                           "pod web is being deleted, cannot be assigned to a host"})  # fmt: skip
        scheduler = component(pods)
        scheduler._node_added(make_node("a"))
        pending(scheduler, make_pod("web", cpu="1"))
        await one_cycle(scheduler)
        message = ('running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods/binding "web": '
                   "pod web is being deleted, cannot be assigned to a host")
        assert [call[:2] for call in pods.calls] == [("create", "binding"), ("patch strategic", "status")]
        [condition] = pods.calls[1][2]["status"]["conditions"]
        assert (condition["reason"], condition["message"]) == ("SchedulerError", message)
        [event] = emitted(scheduler)
        assert (event["reason"], event["note"]) == ("FailedScheduling", message)
        assert scheduler.cache.knows(make_pod("web")) is False
        assert scheduler.cache.snapshot.node("a").requested.get("cpu", 0) == 0  # type: ignore[union-attr]
        assert scheduler.queue.where("uid-default-web") == "backoff"

    loop.run_until_complete(body())


def test_a_pod_deleted_during_its_cycle_is_not_handed_back(loop: asyncio.AbstractEventLoop) -> None:
    async def body() -> None:
        pods = FakePods()
        scheduler = component(pods)
        pod = make_pod("gone", cpu="2")
        scheduler.queue.add(pod)  # never in the lister: deleted before the cycle ended
        await one_cycle(scheduler)
        assert scheduler.queue.where("uid-default-gone") is None
        [event] = emitted(scheduler)
        assert event["note"] == "no nodes available to schedule pods"

    loop.run_until_complete(body())


def test_only_pending_pods_of_this_scheduler_are_its_own() -> None:
    scheduler = component(FakePods())
    assert scheduler.responsible_for(make_pod("p")) is True
    assert scheduler.responsible_for(make_pod("p", schedulerName="default-scheduler")) is True
    assert scheduler.responsible_for(make_pod("p", schedulerName="other")) is False
    assert scheduler.responsible_for(make_pod("p", node_name="a")) is False
    deleting = make_pod("p")
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert scheduler.responsible_for(deleting) is False
    assert scheduler.responsible_for({**make_pod("p"), "status": {"phase": "Failed"}}) is False
