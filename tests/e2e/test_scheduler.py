"""kube-scheduler in kubelite, seen through the API: a cluster without kubelets (`--nodes=0`) whose Nodes the tests
create by hand, Ready, with capacity, labels and taints. Pending pods are bound to the node that fits
(`pods/binding`, PodScheduled=True) with a `Scheduled` event; a pod no node fits gets `FailedScheduling` with kube's
FitError text and PodScheduled=False, and is placed once a node that fits appears; nodeSelector, taints and
tolerations, resource fit and least-allocated spreading decide where; a pod for another scheduler is left alone.

Nodes are cluster-wide, so each test creates its own and deletes them (and its pods) when it ends."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.component import ComponentClient
from kubelite.client.config import load_kube_config
from kubelite.cluster.scheduler.component import SchedulerComponent
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

READY = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
         "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}
PREEMPTION = "no new claims to deallocate, preemption: "
#: a loaded machine may take a while to start a server
START_TIMEOUT = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("scheduler")), cluster=True, extra_args=["--nodes=0"])
    proc.start(timeout=START_TIMEOUT)
    yield proc
    proc.stop()


class Cluster:
    """The nodes and pods of one test, in its own namespace, removed when the test ends."""

    def __init__(self, server: KubeliteProcess, namespace: str) -> None:
        self.server = server
        self.ns = namespace
        self.nodes: list[str] = []
        self.pods: list[str] = []

    def node(self, name: str, *, cpu: str = "4", memory: str = "8Gi", labels: dict[str, str] | None = None,
             taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
        capacity = {"cpu": cpu, "memory": memory, "pods": "110"}
        body = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {"taints": taints} if taints else {},
            "status": {"capacity": capacity, "allocatable": capacity, "conditions": [READY]},
        }
        created = self.server.http("POST", "/api/v1/nodes", body)
        assert created.status == 201, created.body
        self.nodes.append(name)
        return dict(created.json())

    def pod(self, name: str, *, cpu: str | None = None, **spec: Any) -> dict[str, Any]:
        container: dict[str, Any] = {"name": "main", "image": "registry.k8s.io/pause:3.10"}
        if cpu is not None:
            container["resources"] = {"requests": {"cpu": cpu}}
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [container], **spec}}
        created = self.server.http("POST", f"/api/v1/namespaces/{self.ns}/pods", body)
        assert created.status == 201, created.body
        self.pods.append(name)
        return dict(created.json())

    def get(self, name: str) -> dict[str, Any]:
        got = self.server.http("GET", f"/api/v1/namespaces/{self.ns}/pods/{name}")
        assert got.status == 200, got.body
        return dict(got.json())

    def bound(self, name: str, timeout: float = 45) -> dict[str, Any]:
        return eventually(lambda: (pod := self.get(name))["spec"].get("nodeName") and pod, timeout)

    def events(self, name: str) -> list[dict[str, Any]]:
        listed = self.server.http("GET", f"/apis/events.k8s.io/v1/namespaces/{self.ns}/events")
        assert listed.status == 200, listed.body
        return [e for e in listed.json()["items"] if e["regarding"]["name"] == name]

    def cleanup(self) -> None:
        for name in self.pods:
            self.server.http("DELETE", f"/api/v1/namespaces/{self.ns}/pods/{name}", {"gracePeriodSeconds": 0})
        for name in self.nodes:
            self.server.http("DELETE", f"/api/v1/nodes/{name}")


def eventually(check: Callable[[], Any], timeout: float = 45) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.05)


@pytest.fixture
def cluster(server: KubeliteProcess, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    namespace = "sched-" + re.sub(r"[^a-z0-9]+", "-", request.node.name.removeprefix("test_").lower())[:30].strip("-")
    create_namespace(server, namespace)
    found = Cluster(server, namespace)
    yield found
    found.cleanup()


def scheduled_condition(pod: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")


def test_a_pod_is_bound_to_the_node_that_fits_with_a_scheduled_event(cluster: Cluster) -> None:
    cluster.node("fit-small", cpu="1")
    cluster.node("fit-large", cpu="4")
    created = cluster.pod("web", cpu="2")

    pod = cluster.bound("web")
    assert pod["spec"]["nodeName"] == "fit-large"
    condition = scheduled_condition(pod)
    assert (condition["status"], condition["lastProbeTime"]) == ("True", None)
    assert set(condition) == {"type", "status", "lastProbeTime", "lastTransitionTime"}

    [event] = eventually(lambda: cluster.events("web"))
    assert event["metadata"]["name"].startswith("web.")
    assert {k: event[k] for k in ("type", "reason", "action", "note", "reportingController")} == {
        "type": "Normal",
        "reason": "Scheduled",
        "action": "Binding",
        "note": f"Successfully assigned {cluster.ns}/web to fit-large",
        "reportingController": "default-scheduler",
    }
    assert event["reportingInstance"].startswith("default-scheduler-")
    assert {k: event["regarding"][k] for k in ("kind", "apiVersion", "namespace", "name", "uid")} == {
        "kind": "Pod", "apiVersion": "v1", "namespace": cluster.ns, "name": "web", "uid": created["metadata"]["uid"],
    }  # fmt: skip

    described = cluster.server.kubectl("describe", "pod", "-n", cluster.ns, "web").stdout
    events = described[described.index("Events:"):].splitlines()
    assert events[1].split() == ["Type", "Reason", "Age", "From", "Message"]
    assert re.fullmatch(
        rf"  Normal  Scheduled  \d+s +default-scheduler  Successfully assigned {cluster.ns}/web to fit-large",
        events[3],
    ), events
    assert re.search(r"^Node:\s+fit-large/$", described, re.MULTILINE), described


def test_an_unschedulable_pod_is_told_why_and_placed_once_a_node_fits(cluster: Cluster) -> None:
    cluster.node("why-tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    cluster.node("why-small", cpu="1")
    cluster.pod("big", cpu="2")
    message = (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). " + PREEMPTION
        + "0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling."
    )

    pod = eventually(lambda: (p := cluster.get("big"))["status"].get("conditions") and p)
    condition = scheduled_condition(pod)
    assert {k: condition[k] for k in ("status", "reason", "message")} == {
        "status": "False", "reason": "Unschedulable", "message": message,
    }  # fmt: skip
    assert "nodeName" not in pod["spec"]
    [event] = eventually(lambda: cluster.events("big"))
    assert {k: event[k] for k in ("type", "reason", "action", "note", "reportingController")} == {
        "type": "Warning", "reason": "FailedScheduling", "action": "Scheduling", "note": message,
        "reportingController": "default-scheduler",
    }  # fmt: skip
    described = cluster.server.kubectl("describe", "pod", "-n", cluster.ns, "big").stdout
    assert re.search(rf"^  Warning  FailedScheduling  \d+s +default-scheduler  {re.escape(message)}$", described,
                     re.MULTILINE), described  # fmt: skip

    cluster.node("why-large", cpu="8")
    pod = cluster.bound("big")
    assert pod["spec"]["nodeName"] == "why-large"
    assert scheduled_condition(pod)["status"] == "True"
    notes = eventually(lambda: [e["note"] for e in cluster.events("big") if e["reason"] == "Scheduled"])
    assert notes == [f"Successfully assigned {cluster.ns}/big to why-large"]


def test_node_selector_picks_the_labelled_node(cluster: Cluster) -> None:
    cluster.node("sel-hdd", labels={"disk": "hdd"})
    cluster.node("sel-ssd", labels={"disk": "ssd"})
    for index in range(3):
        cluster.pod(f"db-{index}", nodeSelector={"disk": "ssd"})
    assert [cluster.bound(f"db-{index}")["spec"]["nodeName"] for index in range(3)] == ["sel-ssd"] * 3

    cluster.pod("nowhere", nodeSelector={"disk": "nvme"})
    pod = eventually(lambda: (p := cluster.get("nowhere"))["status"].get("conditions") and p)
    assert scheduled_condition(pod)["message"] == (
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. " + PREEMPTION
        + "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )


def test_taints_keep_out_pods_that_do_not_tolerate_them(cluster: Cluster) -> None:
    taint = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}
    cluster.node("taint-a", taints=[taint])
    cluster.node("taint-b", taints=[taint])
    cluster.pod("plain")
    cluster.pod("tolerant", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "infra",
                                          "effect": "NoSchedule"}])  # fmt: skip
    assert cluster.bound("tolerant")["spec"]["nodeName"] in ("taint-a", "taint-b")
    pod = eventually(lambda: (p := cluster.get("plain"))["status"].get("conditions") and p)
    assert scheduled_condition(pod)["message"] == (
        "0/2 nodes are available: 2 node(s) had untolerated taint(s). " + PREEMPTION
        + "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    assert "nodeName" not in cluster.get("plain")["spec"]


def test_requests_fill_a_node_and_the_next_pod_waits(cluster: Cluster) -> None:
    cluster.node("fill-0", cpu="1")
    cluster.node("fill-1", cpu="1")
    cluster.pod("first", cpu="600m")
    cluster.pod("second", cpu="600m")
    placed = {cluster.bound("first")["spec"]["nodeName"], cluster.bound("second")["spec"]["nodeName"]}
    assert placed == {"fill-0", "fill-1"}
    cluster.pod("third", cpu="600m")
    pod = eventually(lambda: (p := cluster.get("third"))["status"].get("conditions") and p)
    assert scheduled_condition(pod)["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. " + PREEMPTION
        + "0/2 nodes are available: 2 No preemption victims found for incoming pod."
    )
    # deleting a pod frees its room: the waiting one takes it
    freed = cluster.get("first")["spec"]["nodeName"]
    deleted = cluster.server.http("DELETE", f"/api/v1/namespaces/{cluster.ns}/pods/first", {"gracePeriodSeconds": 0})
    assert deleted.status == 200
    assert cluster.bound("third")["spec"]["nodeName"] == freed


def test_pods_spread_over_the_least_allocated_nodes(cluster: Cluster) -> None:
    cluster.node("spread-0")
    cluster.node("spread-1")
    for index in range(4):
        cluster.pod(f"replica-{index}", cpu="500m")
    placed = [cluster.bound(f"replica-{index}")["spec"]["nodeName"] for index in range(4)]
    assert sorted(placed) == ["spread-0", "spread-0", "spread-1", "spread-1"]


def test_a_pod_for_another_scheduler_is_left_alone(cluster: Cluster) -> None:
    cluster.node("other-0")
    cluster.pod("theirs", schedulerName="other")
    cluster.pod("ours")
    assert cluster.bound("ours")["spec"]["nodeName"] == "other-0"
    time.sleep(0.5)  # the scheduler has seen both; ours came after
    pod = cluster.get("theirs")
    assert ("nodeName" in pod["spec"], pod["status"].get("conditions")) == (False, None)
    assert cluster.events("theirs") == []


def test_a_node_made_schedulable_again_takes_the_waiting_pod(cluster: Cluster) -> None:
    cluster.node("cordon-0")
    cordoned = cluster.server.http("PATCH", "/api/v1/nodes/cordon-0", {"spec": {"unschedulable": True}},
                                   headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert cordoned.status == 200
    cluster.pod("waiting")
    pod = eventually(lambda: (p := cluster.get("waiting"))["status"].get("conditions") and p)
    assert scheduled_condition(pod)["message"] == (
        "0/1 nodes are available: 1 node(s) were unschedulable. " + PREEMPTION
        + "0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    uncordoned = cluster.server.http("PATCH", "/api/v1/nodes/cordon-0", {"spec": {"unschedulable": None}},
                                     headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert uncordoned.status == 200
    assert cluster.bound("waiting")["spec"]["nodeName"] == "cordon-0"


def test_a_node_keeps_the_status_it_is_created_with(cluster: Cluster) -> None:
    created = cluster.node("status-0", cpu="2")
    assert created["status"]["conditions"] == [READY]
    assert created["status"]["allocatable"] == {"cpu": "2", "memory": "8Gi", "pods": "110"}
    table = cluster.server.kubectl("get", "node", "status-0", "--no-headers").stdout.split()
    assert table[:3] == ["status-0", "Ready", "<none>"]


def test_a_binding_for_a_recreated_pod_is_refused(cluster: Cluster) -> None:
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p", "uid": "not-the-uid"},
               "target": {"kind": "Node", "name": "n"}}  # fmt: skip
    cluster.pod("p", schedulerName="nobody")
    refused = cluster.server.http("POST", f"/api/v1/namespaces/{cluster.ns}/pods/p/binding", binding)
    uid = cluster.get("p")["metadata"]["uid"]
    assert (refused.status, refused.json()["reason"], refused.json()["message"]) == (
        409, "Conflict",
        f'Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: not-the-uid, '
        f"UID in object meta: {uid}",
    )  # fmt: skip
    bound = cluster.server.http("POST", f"/api/v1/namespaces/{cluster.ns}/pods/p/binding",
                                {**binding, "metadata": {"name": "p", "uid": uid}})  # fmt: skip
    assert bound.status == 201
    pod = cluster.get("p")
    assert (pod["spec"]["nodeName"], scheduled_condition(pod)["status"]) == ("n", "True")


def test_a_scheduler_stopped_and_run_again_picks_up_where_it_was(tmp_path: Path) -> None:
    """The component in this process, as a lead that lost its lease and won it back runs it again: the pods that
    arrived while it was stopped are placed once it runs again. Its own server runs no scheduler."""
    proc = KubeliteProcess(tmp_path / "data", cluster=True, extra_args=["--nodes=0", "--scheduler=false"])
    proc.start(timeout=START_TIMEOUT)
    cluster = Cluster(proc, "default")

    async def scenario() -> None:
        clients = ComponentClient("default-scheduler", load_kube_config(proc.kubeconfig))
        scheduler = SchedulerComponent(clients)

        async def bound(name: str) -> str:
            pod = await asyncio.to_thread(cluster.bound, name)
            return str(pod["spec"]["nodeName"])

        try:
            await asyncio.to_thread(cluster.node, "rerun-0")
            running = asyncio.create_task(scheduler.run())
            await asyncio.to_thread(cluster.pod, "first")
            assert await bound("first") == "rerun-0"
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await asyncio.to_thread(cluster.pod, "second")
            await asyncio.sleep(0.5)
            assert "nodeName" not in (await asyncio.to_thread(cluster.get, "second"))["spec"]
            running = asyncio.create_task(scheduler.run())
            assert await bound("second") == "rerun-0"
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        finally:
            await clients.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        proc.stop()


def test_the_same_failure_of_the_same_pod_version_becomes_a_series(cluster: Cluster) -> None:
    cluster.node("again-0", cpu="1")
    cluster.pod("huge", cpu="2")
    message = ("0/1 nodes are available: 1 Insufficient cpu. " + PREEMPTION
               + "0/1 nodes are available: 1 No preemption victims found for incoming pod.")

    def relabel(zone: str) -> None:
        # a label change may help (node affinity), so the pod is tried again, and fails the same way
        labelled = cluster.server.http("PATCH", "/api/v1/nodes/again-0", {"metadata": {"labels": {"zone": zone}}},
                                       headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
        assert labelled.status == 200

    [first] = eventually(lambda: cluster.events("huge"))
    patched = eventually(lambda: (p := cluster.get("huge"))["status"].get("conditions") and p)
    # the first event is about the pod before its PodScheduled condition was written: the next one is another
    relabel("a")
    second = eventually(
        lambda: [e for e in cluster.events("huge") if e["metadata"]["name"] != first["metadata"]["name"]])
    assert [e["regarding"]["resourceVersion"] for e in second] == [patched["metadata"]["resourceVersion"]]
    relabel("b")
    [series] = eventually(lambda: [e for e in cluster.events("huge") if e.get("series")])
    assert series["metadata"]["name"] == second[0]["metadata"]["name"]
    assert (series["series"]["count"], series["note"], first["note"]) == (2, message, message)
    assert cluster.get("huge")["metadata"]["resourceVersion"] == patched["metadata"]["resourceVersion"]
    described = cluster.server.kubectl("describe", "pod", "-n", cluster.ns, "huge").stdout
    lines = described[described.index("Events:"):].splitlines()[3:]
    assert len(lines) == 2, lines
    assert re.fullmatch(rf"  Warning  FailedScheduling  \d+s +default-scheduler  {re.escape(message)}", lines[0])
    assert re.fullmatch(rf"  Warning  FailedScheduling  \d+s \(x2 over \d+s\)  default-scheduler  {re.escape(message)}",
                        lines[1]), lines  # fmt: skip
