"""The DaemonSet controller in a whole cluster: a daemon pod on every eligible node, pinned there by node
affinity for the scheduler to bind; nodes a nodeSelector or an untolerated taint rules out get none; a node
that joins gets one; a template change rolls pods over one node at a time, with ControllerRevisions and
the status `kubectl rollout status` reads.

The server runs three simulated nodes. Where a build has no scheduler and kubelets yet, the module stands
in for them: it registers the nodes, binds each pending pod to the node its affinity names, reports bound
pods Running and Ready, and finishes the deletion of terminating pods, as a kubelet would.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.controllers.daemonset.controller import DaemonSetController
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

NODES = ["kubelite-node-0", "kubelite-node-1", "kubelite-node-2"]
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
STRATEGIC_PATCH = {"Content-Type": "application/strategic-merge-patch+json"}

DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _get(server: KubeliteProcess, path: str) -> Any:
    result = server.http("GET", path)
    return result.json() if result.status == 200 else None


def _eventually(check: Callable[[], Any], timeout: float = 45.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in time")
        time.sleep(0.1)


def _ready_node(name: str, labels: dict[str, str] | None = None, taints: list[Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {"taints": taints} if taints else {},
    }


def _create_node(server: KubeliteProcess, name: str, **kwargs: Any) -> None:
    created = server.http("POST", "/api/v1/nodes", _ready_node(name, **kwargs))
    assert created.status == 201, created.body
    status = {
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": _now(),
                    "lastTransitionTime": _now(),
                }
            ],
        }
    }
    patched = server.http("PATCH", f"/api/v1/nodes/{name}/status", status, headers=MERGE_PATCH)
    assert patched.status == 200, patched.body


def _target(pod: dict[str, Any]) -> str:
    terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return str(terms["nodeSelectorTerms"][0]["matchFields"][0]["values"][0])


class StandIn:
    """The scheduler and kubelets of a build that has none: binds, runs and finishes daemon pods."""

    def __init__(self, server: KubeliteProcess) -> None:
        self.server = server
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                self._pass()
            except Exception:  # a race with the controller; the next pass sees the new state
                pass
            time.sleep(0.1)

    def _pass(self) -> None:
        pods = _get(self.server, "/api/v1/pods") or {"items": []}
        for pod in pods["items"]:
            meta = pod["metadata"]
            base = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
            if meta.get("deletionTimestamp"):
                self.server.http("DELETE", base, {"gracePeriodSeconds": 0, "preconditions": {"uid": meta["uid"]}})
                continue
            if not pod["spec"].get("nodeName"):
                binding = {
                    "apiVersion": "v1",
                    "kind": "Binding",
                    "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": _target(pod)},
                }
                self.server.http("POST", base + "/binding", binding)
                continue
            if pod.get("status", {}).get("phase") in (None, "Pending"):
                now = _now()
                status = {
                    "status": {
                        "phase": "Running",
                        "conditions": [
                            {"type": "PodScheduled", "status": "True", "lastTransitionTime": now},
                            {"type": "Initialized", "status": "True", "lastTransitionTime": now},
                            {"type": "ContainersReady", "status": "True", "lastTransitionTime": now},
                            {"type": "Ready", "status": "True", "lastTransitionTime": now},
                        ],
                    }
                }
                self.server.http("PATCH", base + "/status", status, headers=STRATEGIC_PATCH)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=3"])
    proc.start()
    stand_in: StandIn | None = None
    try:
        if not _kubelets_register(proc):
            for name in NODES:
                _create_node(proc, name)
            stand_in = StandIn(proc)
            stand_in.thread.start()
        yield proc
    finally:
        if stand_in is not None:
            stand_in.stop.set()
            stand_in.thread.join(5)
        proc.stop()


def _kubelets_register(proc: KubeliteProcess) -> bool:
    """Whether the build runs kubelets: their nodes appear soon after start."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        nodes = _get(proc, "/api/v1/nodes") or {"items": []}
        if {n["metadata"]["name"] for n in nodes["items"]} >= set(NODES):
            return True
        time.sleep(0.1)
    return False


def _daemon_set(name: str, *, node_selector: dict[str, str] | None = None, tolerations: list[Any] | None = None,
                image: str = "registry.k8s.io/pause:3.10", strategy: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "agent", "image": image}],
    }
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    ds: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }
    if strategy is not None:
        ds["spec"]["updateStrategy"] = strategy
    return ds


def _create_ds(server: KubeliteProcess, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
    created = server.http("POST", f"/apis/apps/v1/namespaces/{namespace}/daemonsets", body)
    assert created.status == 201, created.body
    result: dict[str, Any] = created.json()
    return result


def _pods(server: KubeliteProcess, namespace: str, app: str) -> list[dict[str, Any]]:
    listed = _get(server, f"/api/v1/namespaces/{namespace}/pods?labelSelector=app%3D{app}") or {"items": []}
    return [p for p in listed["items"] if not p["metadata"].get("deletionTimestamp")]


def _pods_by_node(server: KubeliteProcess, namespace: str, app: str) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for pod in _pods(server, namespace, app):
        grouped.setdefault(_target(pod), []).append(pod)
    return grouped


def _ds(server: KubeliteProcess, namespace: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = _get(server, f"/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}")
    return found


def _status_is(server: KubeliteProcess, namespace: str, name: str, expected: dict[str, int]) -> Callable[[], bool]:
    def check() -> bool:
        status = _ds(server, namespace, name).get("status") or {}
        return all(status.get(k, 0) == v for k, v in expected.items())

    return check


def _events(server: KubeliteProcess, namespace: str, name: str) -> list[tuple[str, str, str]]:
    listed = _get(server, f"/api/v1/namespaces/{namespace}/events") or {"items": []}
    found = [e for e in listed["items"] if e["involvedObject"]["name"] == name
             and e["involvedObject"]["kind"] == "DaemonSet"]
    return [(e["type"], e["reason"], e["message"]) for e in found]


def test_one_pod_per_node_pinned_by_affinity(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-basic")
    ds = _create_ds(server, "ds-basic", _daemon_set("agent"))
    by_node = _eventually(
        lambda: (found := _pods_by_node(server, "ds-basic", "agent")) and sorted(found) == NODES and found,
        what="a pod on every node",
    )
    assert sorted(len(pods) for pods in by_node.values()) == [1, 1, 1]
    revisions = _get(server, "/apis/apps/v1/namespaces/ds-basic/controllerrevisions")["items"]
    assert len(revisions) == 1
    revision = revisions[0]
    revision_hash = revision["metadata"]["labels"]["controller-revision-hash"]
    assert revision["metadata"]["name"] == f"agent-{revision_hash}"
    assert revision["revision"] == 1
    assert revision["metadata"]["ownerReferences"] == [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": ds["metadata"]["uid"],
         "controller": True, "blockOwnerDeletion": True}
    ]
    assert revision["data"]["spec"]["template"]["$patch"] == "replace"
    assert ds["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert revision["metadata"]["annotations"] == ds["metadata"]["annotations"]
    for node, (pod,) in by_node.items():
        assert pod["metadata"]["generateName"] == "agent-"
        assert pod["metadata"]["labels"] == {"app": "agent", "controller-revision-hash": revision_hash,
                                             "pod-template-generation": "1"}
        assert pod["metadata"]["ownerReferences"] == revision["metadata"]["ownerReferences"]
        assert pod["spec"]["affinity"] == {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                    ]
                }
            }
        }
        assert pod["spec"]["tolerations"] == DAEMON_TOLERATIONS
    _eventually(
        _status_is(server, "ds-basic", "agent", {
            "desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberMisscheduled": 0,
            "numberReady": 3, "updatedNumberScheduled": 3, "numberAvailable": 3, "observedGeneration": 1,
        }),
        what="all three pods ready",
    )
    status = _ds(server, "ds-basic", "agent")["status"]
    assert "numberUnavailable" not in status  # zero, omitted
    table = server.kubectl("get", "daemonset", "agent", "-n", "ds-basic", "--no-headers").stdout.split()
    assert table[:7] == ["agent", "3", "3", "3", "3", "3", "<none>"]
    # every pod bound where its affinity pinned it
    for node, (pod,) in _pods_by_node(server, "ds-basic", "agent").items():
        assert pod["spec"]["nodeName"] == node
    created = sorted(m for _, r, m in _events(server, "ds-basic", "agent") if r == "SuccessfulCreate")
    names = sorted(f"Created pod: {pods[0]['metadata']['name']}" for pods in by_node.values())
    assert created == names
    assert {t for t, r, _ in _events(server, "ds-basic", "agent")} == {"Normal"}


def test_a_node_selector_limits_the_nodes(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-selector")
    labelled = server.http("PATCH", "/api/v1/nodes/kubelite-node-1",
                           {"metadata": {"labels": {"ds-test/role": "edge"}}}, headers=MERGE_PATCH)
    assert labelled.status == 200
    _create_ds(server, "ds-selector", _daemon_set("edge", node_selector={"ds-test/role": "edge"}))
    _eventually(_status_is(server, "ds-selector", "edge", {"desiredNumberScheduled": 1, "numberReady": 1}),
                what="one ready pod")
    assert sorted(_pods_by_node(server, "ds-selector", "edge")) == ["kubelite-node-1"]
    # the label going makes the pod misplaced: it is deleted
    unlabelled = server.http("PATCH", "/api/v1/nodes/kubelite-node-1",
                             {"metadata": {"labels": {"ds-test/role": None}}}, headers=MERGE_PATCH)
    assert unlabelled.status == 200
    _eventually(lambda: not _pods(server, "ds-selector", "edge"), what="the pod gone")
    _eventually(_status_is(server, "ds-selector", "edge", {"desiredNumberScheduled": 0, "currentNumberScheduled": 0}))
    deleted = [m for _, r, m in _events(server, "ds-selector", "edge") if r == "SuccessfulDelete"]
    assert len(deleted) == 1 and deleted[0].startswith("Deleted pod: edge-")


def test_a_tainted_node_is_skipped_unless_tolerated(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-taints")
    taint = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}
    _create_node(server, "ds-tainted-node", labels={"ds-test/pool": "tainted"}, taints=[taint])
    try:
        _create_ds(server, "ds-taints", _daemon_set("plain"))
        tolerating = _daemon_set("tolerant", tolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}
        ])
        _create_ds(server, "ds-taints", tolerating)
        everywhere = sorted([*NODES, "ds-tainted-node"])
        _eventually(lambda: sorted(_pods_by_node(server, "ds-taints", "tolerant")) == everywhere,
                    what="a tolerating pod on every node")
        _eventually(lambda: sorted(_pods_by_node(server, "ds-taints", "plain")) == NODES, what="plain pods")
        _eventually(_status_is(server, "ds-taints", "plain", {"desiredNumberScheduled": 3,
                                                              "currentNumberScheduled": 3}))
        _eventually(_status_is(server, "ds-taints", "tolerant", {"desiredNumberScheduled": 4,
                                                                 "currentNumberScheduled": 4}))
        pod = _pods_by_node(server, "ds-taints", "tolerant")["ds-tainted-node"][0]
        assert pod["spec"]["tolerations"] == [
            {"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"},
            *DAEMON_TOLERATIONS,
        ]
        time.sleep(0.5)
        assert "ds-tainted-node" not in _pods_by_node(server, "ds-taints", "plain")
    finally:
        server.http("DELETE", "/api/v1/nodes/ds-tainted-node")
        for name in ("plain", "tolerant"):
            server.http("DELETE", f"/apis/apps/v1/namespaces/ds-taints/daemonsets/{name}")


def test_a_new_node_gets_a_pod(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-join")
    _create_ds(server, "ds-join", _daemon_set("joiner"))
    _eventually(lambda: sorted(_pods_by_node(server, "ds-join", "joiner")) == NODES, what="pods on the nodes")
    _create_node(server, "ds-joining-node")
    try:
        _eventually(
            lambda: sorted(_pods_by_node(server, "ds-join", "joiner")) == sorted([*NODES, "ds-joining-node"]),
            what="a pod on the new node",
        )
        _eventually(_status_is(server, "ds-join", "joiner", {"desiredNumberScheduled": 4,
                                                             "currentNumberScheduled": 4}))
    finally:
        server.http("DELETE", "/api/v1/nodes/ds-joining-node")
        server.http("DELETE", "/apis/apps/v1/namespaces/ds-join/daemonsets/joiner")


def test_a_rolling_update_replaces_pods_and_rollout_status_follows(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-roll")
    _create_ds(server, "ds-roll", _daemon_set("roller"))
    _eventually(_status_is(server, "ds-roll", "roller", {"numberAvailable": 3, "updatedNumberScheduled": 3}),
                what="the first rollout")
    done = server.kubectl("rollout", "status", "daemonset/roller", "-n", "ds-roll", "--timeout=30s")
    assert done.stdout == 'daemon set "roller" successfully rolled out\n'
    old_names = {p["metadata"]["name"] for p in _pods(server, "ds-roll", "roller")}
    first_hash = _ds_revision_hash(server)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "registry.k8s.io/pause:3.9"}]}}}}
    updated = server.http("PATCH", "/apis/apps/v1/namespaces/ds-roll/daemonsets/roller", patch,
                          headers=STRATEGIC_PATCH)
    assert updated.status == 200 and updated.json()["metadata"]["generation"] == 2
    assert updated.json()["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "2"}
    rolled = server.kubectl("rollout", "status", "daemonset/roller", "-n", "ds-roll", "--timeout=60s", timeout=90)
    assert rolled.stdout.endswith('daemon set "roller" successfully rolled out\n')
    pods = _pods(server, "ds-roll", "roller")
    assert len(pods) == 3
    assert not old_names & {p["metadata"]["name"] for p in pods}
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"registry.k8s.io/pause:3.9"}
    revisions = sorted(_get(server, "/apis/apps/v1/namespaces/ds-roll/controllerrevisions")["items"],
                       key=lambda r: r["revision"])
    assert [r["revision"] for r in revisions] == [1, 2]
    assert revisions[0]["metadata"]["labels"]["controller-revision-hash"] == first_hash
    new_hash = revisions[1]["metadata"]["labels"]["controller-revision-hash"]
    assert {p["metadata"]["labels"]["controller-revision-hash"] for p in pods} == {new_hash}
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in pods} == {"2"}
    status = _ds(server, "ds-roll", "roller")["status"]
    assert {k: status.get(k) for k in ("desiredNumberScheduled", "updatedNumberScheduled", "numberAvailable",
                                       "observedGeneration")} == {
        "desiredNumberScheduled": 3, "updatedNumberScheduled": 3, "numberAvailable": 3, "observedGeneration": 2}
    deletes = [m for _, r, m in _events(server, "ds-roll", "roller") if r == "SuccessfulDelete"]
    assert sorted(deletes) == sorted(f"Deleted pod: {name}" for name in old_names)
    history = server.kubectl("rollout", "history", "daemonset/roller", "-n", "ds-roll")
    assert history.stdout.split("\n")[:4] == ["daemonset.apps/roller ", "REVISION  CHANGE-CAUSE", "1         <none>",
                                              "2         <none>"]
    # undo applies revision 1's patch: its template is current again, renumbered 3
    undone = server.kubectl("rollout", "undo", "daemonset/roller", "-n", "ds-roll")
    assert undone.stdout == "daemonset.apps/roller rolled back\n"
    server.kubectl("rollout", "status", "daemonset/roller", "-n", "ds-roll", "--timeout=60s", timeout=90)
    pods = _pods(server, "ds-roll", "roller")
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"registry.k8s.io/pause:3.10"}
    assert {p["metadata"]["labels"]["controller-revision-hash"] for p in pods} == {first_hash}
    revisions = _get(server, "/apis/apps/v1/namespaces/ds-roll/controllerrevisions")["items"]
    assert sorted((r["revision"], r["metadata"]["labels"]["controller-revision-hash"]) for r in revisions) == [
        (2, new_hash), (3, first_hash)]


def _ds_revision_hash(server: KubeliteProcess) -> str:
    revisions = _get(server, "/apis/apps/v1/namespaces/ds-roll/controllerrevisions")["items"]
    assert len(revisions) == 1
    return str(revisions[0]["metadata"]["labels"]["controller-revision-hash"])


def test_a_failed_daemon_pod_is_replaced(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-failed")
    labelled = server.http("PATCH", "/api/v1/nodes/kubelite-node-2",
                           {"metadata": {"labels": {"ds-test/failing": "yes"}}}, headers=MERGE_PATCH)
    assert labelled.status == 200
    _create_ds(server, "ds-failed", _daemon_set("fragile", node_selector={"ds-test/failing": "yes"}))
    _eventually(_status_is(server, "ds-failed", "fragile", {"numberReady": 1}), what="a ready pod")
    (first,) = _pods(server, "ds-failed", "fragile")
    name = first["metadata"]["name"]
    failed = server.http("PATCH", f"/api/v1/namespaces/ds-failed/pods/{name}/status",
                         {"status": {"phase": "Failed", "reason": "Evicted"}}, headers=MERGE_PATCH)
    assert failed.status == 200
    replacement = _eventually(
        lambda: [p for p in _pods(server, "ds-failed", "fragile") if p["metadata"]["name"] != name],
        what="a replacement pod",
    )
    assert [_target(p) for p in replacement] == ["kubelite-node-2"]
    events = _events(server, "ds-failed", "fragile")
    assert ("Warning", "FailedDaemonPod",
            f"Found failed daemon pod ds-failed/{name} on node kubelite-node-2, will try to kill it") in events
    assert ("Normal", "SuccessfulDelete", f"Deleted pod: {name}") in events


def test_on_delete_updates_only_pods_that_are_deleted(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-ondelete")
    _create_ds(server, "ds-ondelete", _daemon_set("manual", strategy={"type": "OnDelete"}))
    _eventually(_status_is(server, "ds-ondelete", "manual", {"numberReady": 3, "updatedNumberScheduled": 3}),
                what="three ready pods")
    before = {_target(p): p["metadata"]["name"] for p in _pods(server, "ds-ondelete", "manual")}
    patch = {"spec": {"template": {"metadata": {"labels": {"app": "manual", "track": "new"}}}}}
    updated = server.http("PATCH", "/apis/apps/v1/namespaces/ds-ondelete/daemonsets/manual", patch,
                          headers=MERGE_PATCH)
    assert updated.status == 200
    _eventually(_status_is(server, "ds-ondelete", "manual", {"observedGeneration": 2}), what="generation 2 seen")
    status = _ds(server, "ds-ondelete", "manual")["status"]
    assert "updatedNumberScheduled" not in status  # zero: no pod is of the new template
    assert {_target(p): p["metadata"]["name"] for p in _pods(server, "ds-ondelete", "manual")} == before
    deleted = server.http("DELETE", f"/api/v1/namespaces/ds-ondelete/pods/{before['kubelite-node-0']}",
                          {"gracePeriodSeconds": 0})
    assert deleted.status == 200
    _eventually(_status_is(server, "ds-ondelete", "manual", {"updatedNumberScheduled": 1, "numberReady": 3}),
                what="one updated pod")
    pods = {_target(p): p for p in _pods(server, "ds-ondelete", "manual")}
    assert pods["kubelite-node-0"]["metadata"]["labels"]["track"] == "new"
    assert {n: p["metadata"]["name"] for n, p in pods.items() if n != "kubelite-node-0"} == {
        n: name for n, name in before.items() if n != "kubelite-node-0"}


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    """An API server alone, with hand-made nodes: the test runs the controller itself, on a fake clock."""
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite-bare"))).start()
    stand_in = StandIn(proc)
    try:
        for name in NODES:
            _create_node(proc, name)
        stand_in.thread.start()
        yield proc
    finally:
        stand_in.stop.set()
        if stand_in.thread.is_alive():
            stand_in.thread.join(5)
        proc.stop()


async def _until(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll `check` (run in a thread: it may block on HTTP) in real time."""
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.to_thread(check)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in time")
        await asyncio.sleep(0.1)


def test_min_ready_seconds_pass_on_the_controllers_clock(bare_server: KubeliteProcess) -> None:
    create_namespace(bare_server, "ds-clock")
    body = _daemon_set("slow")
    body["spec"]["minReadySeconds"] = 60

    async def scenario() -> None:
        clock = FakeClock(start=1000.0, wall_offset=time.time() - 1000.0)
        clients = ComponentClient("kube-controller-manager", Config(host=bare_server.url), clock=clock)
        loop = DaemonSetController(clients)
        clients.start_informers()
        # the caches fill in real time; the controller's own waits are on the fake clock
        await _until(loop.has_synced, "informers synced")
        running = asyncio.create_task(loop.run())
        try:
            await asyncio.to_thread(_create_ds, bare_server, "ds-clock", body)
            await _until(_status_is(bare_server, "ds-clock", "slow", {"numberReady": 3, "numberUnavailable": 3}),
                         "three ready pods")
            status = (await asyncio.to_thread(_ds, bare_server, "ds-clock", "slow"))["status"]
            assert "numberAvailable" not in status
            clock.step(30)  # not yet a minute since the pods turned ready
            await asyncio.sleep(1.0)
            status = (await asyncio.to_thread(_ds, bare_server, "ds-clock", "slow"))["status"]
            assert (status.get("numberAvailable"), status["numberUnavailable"]) == (None, 3)
            clock.step(40)
            await _until(_status_is(bare_server, "ds-clock", "slow", {"numberAvailable": 3, "numberReady": 3}),
                         "three available pods")
            status = (await asyncio.to_thread(_ds, bare_server, "ds-clock", "slow"))["status"]
            assert "numberUnavailable" not in status
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await clients.close()

    asyncio.run(scenario())


def test_failed_pods_are_replaced_behind_a_backoff(bare_server: KubeliteProcess) -> None:
    create_namespace(bare_server, "ds-backoff")
    labelled = bare_server.http("PATCH", "/api/v1/nodes/kubelite-node-0",
                                {"metadata": {"labels": {"ds-test/backoff": "yes"}}}, headers=MERGE_PATCH)
    assert labelled.status == 200
    body = _daemon_set("flaky", node_selector={"ds-test/backoff": "yes"})

    def fail_the_pod() -> str:
        (pod,) = _pods(bare_server, "ds-backoff", "flaky")
        name = pod["metadata"]["name"]
        failed = bare_server.http("PATCH", f"/api/v1/namespaces/ds-backoff/pods/{name}/status",
                                  {"status": {"phase": "Failed"}}, headers=MERGE_PATCH)
        assert failed.status == 200
        return str(name)

    def running_pod_other_than(name: str) -> Callable[[], bool]:
        def check() -> bool:
            pods = _pods(bare_server, "ds-backoff", "flaky")
            return len(pods) == 1 and pods[0]["metadata"]["name"] != name and pods[0]["status"]["phase"] == "Running"

        return check

    async def scenario() -> None:
        clock = FakeClock(start=1000.0, wall_offset=time.time() - 1000.0)
        clients = ComponentClient("kube-controller-manager", Config(host=bare_server.url), clock=clock)
        loop = DaemonSetController(clients)
        clients.start_informers()
        await _until(loop.has_synced, "informers synced")
        running = asyncio.create_task(loop.run())
        try:
            await asyncio.to_thread(_create_ds, bare_server, "ds-backoff", body)
            await _until(_status_is(bare_server, "ds-backoff", "flaky", {"numberReady": 1}), "a ready pod")
            first = await asyncio.to_thread(fail_the_pod)
            await _until(running_pod_other_than(first), "the first replacement")
            second = await asyncio.to_thread(fail_the_pod)
            await asyncio.sleep(1.0)
            pods = await asyncio.to_thread(_pods, bare_server, "ds-backoff", "flaky")
            # within the one-second backoff of its node, the failed pod stays
            assert [(p["metadata"]["name"], p["status"]["phase"]) for p in pods] == [(second, "Failed")]
            clock.step(1.5)
            await _until(running_pod_other_than(second), "the second replacement")
            # (events are not compared here: on a clock that stands still they share a name, and the server
            # keeps the first; test_a_failed_daemon_pod_is_replaced reads them on a real clock)
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            await clients.close()

    asyncio.run(scenario())


def test_orphans_are_adopted_and_pods_that_stop_matching_released(server: KubeliteProcess) -> None:
    create_namespace(server, "ds-adopt")
    stray = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "stray", "labels": {"app": "adoptee"}},
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "agent", "image": "registry.k8s.io/pause:3.10"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["kubelite-node-0"]}]}
            ]}}},
        },
    }
    assert server.http("POST", "/api/v1/namespaces/ds-adopt/pods", stray).status == 201
    ds = _create_ds(server, "ds-adopt", _daemon_set("adoptee", strategy={"type": "OnDelete"}))
    reference = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "adoptee", "uid": ds["metadata"]["uid"],
                 "controller": True, "blockOwnerDeletion": True}

    def stray_owners() -> Any:
        pod = _get(server, "/api/v1/namespaces/ds-adopt/pods/stray")
        return pod["metadata"].get("ownerReferences")

    assert _eventually(stray_owners, what="the stray pod adopted") == [reference]
    by_node = _eventually(lambda: (found := _pods_by_node(server, "ds-adopt", "adoptee")) and len(found) == 3 and found,
                          what="pods on the other nodes")
    assert [p["metadata"]["name"] for p in by_node["kubelite-node-0"]] == ["stray"]
    _eventually(_status_is(server, "ds-adopt", "adoptee", {"currentNumberScheduled": 3, "updatedNumberScheduled": 2}),
                what="the adopted pod counted, not as updated")
    relabelled = server.http("PATCH", "/api/v1/namespaces/ds-adopt/pods/stray",
                             {"metadata": {"labels": {"app": "loose"}}}, headers=MERGE_PATCH)
    assert relabelled.status == 200
    _eventually(lambda: not stray_owners(), what="the stray pod released")
    replacement = _eventually(lambda: _pods_by_node(server, "ds-adopt", "adoptee").get("kubelite-node-0"),
                              what="a pod of the DaemonSet on the first node")
    assert replacement[0]["metadata"]["name"].startswith("adoptee-")
    _eventually(_status_is(server, "ds-adopt", "adoptee", {"currentNumberScheduled": 3, "updatedNumberScheduled": 3}))
