"""The pod garbage collector against a real cluster: a pod bound to a node that was deleted goes, after kube's
40 s quarantine, marked Failed with DisruptionTarget first. The controller runs in this process on a FakeClock
(quarantine and sweep period pass in a step) against a kubelite whose own pod GC is switched off."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.controllers.podgc.controller import PodGCController
from tests.e2e.fake_time import FakeTimeLoops
from tests.e2e.server import KubeliteProcess

MERGE = {"Content-Type": "application/merge-patch+json"}


class FakeTimePodGC(FakeTimeLoops):
    """PodGCController on a FakeClock that follows real time in small ticks; `step` jumps ahead."""

    def __init__(self, server: KubeliteProcess) -> None:
        super().__init__(server, FakeClock(wall_offset=time.time()))

    def loops(self, clients: ComponentClient) -> list[Any]:
        return [PodGCController(clients)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KubeliteProcess, FakeTimePodGC]]:
    args = ["--nodes=1", "--controllers=*,-pod-garbage-collector-controller"]
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("podgc")), cluster=True, extra_args=args).start()
    gc = FakeTimePodGC(proc)
    gc.start()
    try:
        yield proc, gc
    finally:
        gc.stop()
        proc.stop()


def wait_for(what: str, probe: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def running_pod_on(proc: KubeliteProcess, name: str, node: str, finalizers: list[str] = ()) -> None:  # type: ignore[assignment]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "finalizers": list(finalizers)},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
    }
    assert proc.http("POST", "/api/v1/namespaces/default/pods", pod).status == 201
    status = {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    path = f"/api/v1/namespaces/default/pods/{name}/status"
    assert proc.http("PATCH", path, status, headers=MERGE).status == 200


def test_a_pod_on_a_deleted_node_is_marked_failed_then_deleted(cluster: tuple[KubeliteProcess, FakeTimePodGC]) -> None:
    proc, gc = cluster
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "doomed"}}
    assert proc.http("POST", "/api/v1/nodes", node).status == 201
    # the finalizer holds the pod after pod GC's deletion, so the status it wrote can be read
    running_pod_on(proc, "orphan", "doomed", ["example.com/hold"])
    running_pod_on(proc, "orphan-free", "doomed")
    running_pod_on(proc, "kept", "kubelite-node-0")
    assert proc.http("DELETE", "/api/v1/nodes/doomed").status == 200
    gc.step(25)  # one sweep sees the node missing; the quarantine has not passed yet
    time.sleep(1)
    assert proc.http("GET", "/api/v1/namespaces/default/pods/orphan-free").status == 200
    gc.step(40)

    def marked() -> Any:
        pod = proc.http("GET", "/api/v1/namespaces/default/pods/orphan").json()
        return pod if pod["metadata"].get("deletionTimestamp") else None

    pod = wait_for("pod GC's deletion", marked)
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 0
    assert pod["status"]["phase"] == "Failed"
    target = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert {k: v for k, v in target.items() if k != "lastTransitionTime"} == {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "DeletionByPodGC",
        "message": "PodGC: node no longer exists",
    }
    wait_for("the orphan without a finalizer to go",
             lambda: proc.http("GET", "/api/v1/namespaces/default/pods/orphan-free").status == 404)  # fmt: skip
    unhold = {"metadata": {"finalizers": None}}
    assert proc.http("PATCH", "/api/v1/namespaces/default/pods/orphan", unhold, headers=MERGE).status == 200
    wait_for("the orphan to go", lambda: proc.http("GET", "/api/v1/namespaces/default/pods/orphan").status == 404)
    assert proc.http("GET", "/api/v1/namespaces/default/pods/kept").status == 200

