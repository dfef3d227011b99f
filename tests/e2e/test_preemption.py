"""Preemption on the simulated cluster: a pod of higher priority that fits nowhere evicts the fewest pods of lower
priority it needs (DisruptionTarget, deletion, a `Preempted` event), is nominated to the node, waits for its victim
to leave without preempting again, and runs there."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

NS = "default"
NODE = "kubelite-node-0"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("preemption")), cluster=True,
                           extra_args=["--nodes=1", "--node-capacity=cpu=2,memory=4Gi,pods=110"])  # fmt: skip
    proc.start()
    yield proc
    proc.stop()


def wait(what: str, probe: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def pod(name: str, cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "annotations": {"sim.kubelite.io/ignore-sigterm": "true"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}],
                 "terminationGracePeriodSeconds": 3, **spec},
    }  # fmt: skip


def get(server: KubeliteProcess, name: str) -> dict[str, Any] | None:
    found = server.http("GET", f"/api/v1/namespaces/{NS}/pods/{name}")
    return found.json() if found.status == 200 else None


def running(server: KubeliteProcess, name: str) -> bool:
    found = get(server, name)
    return found is not None and found["status"].get("phase") == "Running"


def events(server: KubeliteProcess, name: str) -> list[dict[str, Any]]:
    listed = server.http("GET", f"/apis/events.k8s.io/v1/namespaces/{NS}/events")
    return [e for e in listed.json()["items"] if e["regarding"]["name"] == name]


def test_a_higher_priority_pod_evicts_the_least_important_victim_and_runs(cluster: KubeliteProcess) -> None:
    made = cluster.http("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                         "value": 1000})  # fmt: skip
    assert made.status == 201, made.body
    for name in ("low-first", "low-second"):
        assert cluster.http("POST", f"/api/v1/namespaces/{NS}/pods", pod(name, "1")).status == 201
        wait(f"{name} running", lambda name=name: running(cluster, name))
    created = cluster.http("POST", f"/api/v1/namespaces/{NS}/pods", pod("urgent", "1", priorityClassName="high"))
    assert created.status == 201, created.body
    urgent_uid = created.json()["metadata"]["uid"]

    # the victim is the one that started last; it is told why, and terminates for its grace period
    victim = wait("the victim marked", lambda: (found := get(cluster, "low-second")) is not None
                  and found["metadata"].get("deletionTimestamp") and found)  # fmt: skip
    target = next(c for c in victim["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert {k: target[k] for k in ("status", "reason", "message")} == {
        "status": "True", "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod",
    }
    preempted = wait("the Preempted event", lambda: [e for e in events(cluster, "low-second")
                                                     if e["reason"] == "Preempted"])  # fmt: skip
    assert [(e["type"], e["action"], e["note"], e["reportingController"], e["related"]["name"]) for e in preempted] == [
        ("Normal", "Preempting", f"Preempted by pod {urgent_uid} on node {NODE}", "default-scheduler", "urgent"),
    ]
    nominated = wait("the nomination", lambda: (found := get(cluster, "urgent")) is not None
                     and found["status"].get("nominatedNodeName") and found)  # fmt: skip
    assert nominated["status"]["nominatedNodeName"] == NODE
    assert nominated["spec"]["priority"] == 1000
    failed = [e["note"] for e in events(cluster, "urgent") if e["reason"] == "FailedScheduling"]
    assert failed[0] == "0/1 nodes are available: 1 Insufficient cpu."

    wait("urgent running", lambda: running(cluster, "urgent"))
    final = get(cluster, "urgent")
    assert final is not None and final["spec"]["nodeName"] == NODE
    # one victim was enough, and waiting for it to leave did not preempt the other
    assert get(cluster, "low-second") is None
    assert running(cluster, "low-first")
    described = cluster.kubectl("get", "events", "--field-selector", "reason=Preempted", "-o", "json").stdout
    assert [e["involvedObject"]["name"] for e in json.loads(described)["items"]] == ["low-second"]


def test_a_pod_that_never_preempts_waits(cluster: KubeliteProcess) -> None:
    made = cluster.http("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                         "metadata": {"name": "polite"}, "value": 2000, "preemptionPolicy": "Never"})  # fmt: skip
    assert made.status == 201, made.body
    created = cluster.http("POST", f"/api/v1/namespaces/{NS}/pods", pod("polite", "1", priorityClassName="polite"))
    assert created.status == 201, created.body
    failed = wait("FailedScheduling", lambda: [e["note"] for e in events(cluster, "polite")
                                               if e["reason"] == "FailedScheduling"])  # fmt: skip
    assert failed[0] == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                         "preemption: not eligible due to preemptionPolicy=Never.")
    assert running(cluster, "low-first")
