"""The pod garbage collector's decisions, and its sweep on a FakeClock against a fake API."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from kubelite.client.clock import FakeClock
from kubelite.client.errors import NotFound
from kubelite.controllers.podgc import decisions
from kubelite.controllers.podgc.controller import PodGCController


def pod(
    name: str,
    *,
    phase: str = "Running",
    node: str = "n1",
    created: str = "2026-01-01T00:00:00Z",
    terminating: bool = False,
    reason: str | None = None,
    conditions: list[Any] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": created}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-02T00:00:00Z"
    status: dict[str, Any] = {"phase": phase}
    if reason:
        status["reason"] = reason
    if conditions is not None:
        status["conditions"] = conditions
    return {"metadata": meta, "spec": {"nodeName": node}, "status": status}


def node(name: str, *, ready: bool = True, taints: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "metadata": {"name": name},
        "spec": {"taints": [{"key": key, "effect": "NoExecute"} for key in taints]},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def names(pods: list[dict[str, Any]]) -> list[str]:
    return [p["metadata"]["name"] for p in pods]


def test_terminated_pods_beyond_the_threshold_go_evicted_first_then_oldest_then_by_name() -> None:
    pods = [
        pod("young", phase="Succeeded", created="2026-01-03T00:00:00Z"),
        pod("old-b", phase="Failed", created="2026-01-01T00:00:00Z"),
        pod("old-a", phase="Succeeded", created="2026-01-01T00:00:00Z"),
        pod("evicted", phase="Failed", reason="Evicted", created="2026-01-05T00:00:00Z"),
        pod("running", phase="Running", created="2025-01-01T00:00:00Z"),
        pod("pending", phase="Pending", created="2025-01-01T00:00:00Z"),
        pod("unknown", phase="Unknown", created="2025-01-01T00:00:00Z"),
    ]
    assert names(decisions.terminated_to_delete(pods, 1)) == ["evicted", "old-a", "old-b"]
    assert names(decisions.terminated_to_delete(pods, 3)) == ["evicted"]
    assert decisions.terminated_to_delete(pods, 4) == []
    assert decisions.terminated_to_delete(pods, 0) == []


def test_a_pod_without_a_phase_counts_as_terminated_as_in_kube() -> None:
    assert decisions.is_terminated({"metadata": {}, "status": {}})
    assert not decisions.is_evicted(pod("x", phase="Succeeded", reason="Evicted"))


def test_terminating_pods_go_only_from_not_ready_out_of_service_nodes() -> None:
    nodes = {
        "down-oos": node("down-oos", ready=False, taints=[decisions.OUT_OF_SERVICE_TAINT]),
        "down": node("down", ready=False),
        "up-oos": node("up-oos", ready=True, taints=[decisions.OUT_OF_SERVICE_TAINT]),
    }
    pods = [
        pod("b", node="down-oos", terminating=True, created="2026-01-02T00:00:00Z"),
        pod("a", node="down-oos", terminating=True, created="2026-01-03T00:00:00Z"),
        pod("alive", node="down-oos"),
        pod("c", node="down", terminating=True),
        pod("d", node="up-oos", terminating=True),
        pod("e", node="unknown-node", terminating=True),
    ]
    assert names(decisions.terminating_out_of_service(pods, nodes)) == ["b", "a"]


def test_unscheduled_terminating_pods_and_missing_nodes() -> None:
    pods = [
        pod("u", node="", terminating=True),
        pod("v", node=""),
        pod("w", node="gone", terminating=True),
        pod("x", node="here"),
    ]
    assert names(decisions.unscheduled_terminating(pods)) == ["u"]
    assert decisions.missing_nodes(pods, ["here"]) == {"gone"}
    assert names(decisions.orphaned(pods, {"gone"})) == ["w"]


def test_quarantine_keeps_the_first_time_a_node_was_missed() -> None:
    clock = FakeClock()
    q = decisions.Quarantine(40)
    q.add(["gone"], clock.monotonic())
    clock.step(30)
    q.add(["gone", "later"], clock.monotonic())
    assert q.take_due(clock.monotonic()) == []
    clock.step(10)
    assert q.take_due(clock.monotonic()) == ["gone"]
    assert q.take_due(clock.monotonic()) == []
    assert len(q) == 1
    clock.step(30)
    assert q.take_due(clock.monotonic()) == ["later"]


def test_the_failed_patch_adds_the_condition_and_the_uid() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    running = pod("r", conditions=[{"type": "Ready", "status": "True"}])
    assert decisions.failed_status_patch(running, decisions.ORPHANED_CONDITION, now) == {
        "metadata": {"uid": "uid-r"},
        "status": {
            "phase": "Failed",
            "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "DisruptionTarget"}],
            "conditions": [{
                "type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                "message": "PodGC: node no longer exists", "lastTransitionTime": "2026-01-01T12:00:00Z",
            }],
        },
    }  # fmt: skip
    assert decisions.failed_status_patch(running, None, now) == {"metadata": {"uid": "uid-r"},
                                                                 "status": {"phase": "Failed"}}  # fmt: skip
    assert decisions.failed_status_patch(pod("s", phase="Succeeded"), None, now) is None
    assert decisions.failed_status_patch(pod("f", phase="Failed"), decisions.ORPHANED_CONDITION, now) is None


# -- the sweep ------------------------------------------------------------------------------------------------


class FakeLister:
    def __init__(self, objs: list[dict[str, Any]]) -> None:
        self.objs = objs

    def list(self) -> list[dict[str, Any]]:
        return list(self.objs)


class FakeApi:
    def __init__(self, calls: list[tuple[Any, ...]], existing: frozenset[str] = frozenset()) -> None:
        self.calls = calls
        self.existing = existing
        self.ns: str | None = None

    def namespace(self, ns: str) -> FakeApi:
        api = FakeApi(self.calls, self.existing)
        api.ns = ns
        return api

    async def get(self, name: str) -> dict[str, Any]:
        self.calls.append(("get", name))
        if name not in self.existing:
            raise NotFound({"code": 404, "reason": "NotFound"})
        return {}

    async def patch(self, name: str, patch: Any, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("patch", name, patch["status"].get("phase"), kwargs["subresource"]))
        return {}

    async def delete(self, name: str, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("delete", name, kwargs["grace_period_seconds"]))
        return {}


def sweeper(
    pods: list[dict[str, Any]], nodes: list[dict[str, Any]], clock: FakeClock, existing: frozenset[str] = frozenset()
) -> tuple[PodGCController, list[tuple[Any, ...]]]:
    gc = PodGCController.__new__(PodGCController)
    calls: list[tuple[Any, ...]] = []
    gc.clock = clock
    gc.threshold = 1
    gc.period = 20
    gc.quarantine = decisions.Quarantine(40)
    gc.pods = type("I", (), {"lister": FakeLister(pods)})()  # type: ignore[assignment]
    gc.nodes = type("I", (), {"lister": FakeLister(nodes)})()  # type: ignore[assignment]
    gc.pod_api = FakeApi(calls)  # type: ignore[assignment]
    gc.node_api = FakeApi(calls, existing)  # type: ignore[assignment]
    return gc, calls


def test_pods_of_a_vanished_node_go_only_after_the_quarantine_and_a_fresh_get() -> None:
    clock = FakeClock()
    pods = [pod("orphan", node="gone"), pod("late", node="late-node"), pod("fine", node="n1")]
    gc, calls = sweeper(pods, [node("n1")], clock, existing=frozenset({"late-node"}))
    asyncio.run(gc.sweep())
    assert calls == []
    clock.step(20)
    asyncio.run(gc.sweep())
    assert calls == []
    clock.step(20)
    asyncio.run(gc.sweep())
    # every due node is checked before any pod goes; the node the informer missed but the API has stays
    assert calls == [("get", "gone"), ("get", "late-node"), ("patch", "orphan", "Failed", "status"),
                     ("delete", "orphan", 0)]  # fmt: skip


def test_a_sweep_deletes_terminated_excess_and_unscheduled_terminating_pods() -> None:
    clock = FakeClock()
    pods = [
        pod("done-old", phase="Succeeded", created="2026-01-01T00:00:00Z"),
        pod("done-new", phase="Succeeded", created="2026-01-02T00:00:00Z"),
        pod("stuck", node="", terminating=True, phase="Pending"),
    ]
    gc, calls = sweeper(pods, [node("n1")], clock)
    assert asyncio.run(gc.reconcile("sweep")) == 20
    assert calls == [("delete", "done-old", 0), ("patch", "stuck", "Failed", "status"), ("delete", "stuck", 0)]
