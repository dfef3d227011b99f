"""Deployments, ReplicaSets and ReplicationControllers on a whole simulated cluster, through kubectl: a
rollout (`create deployment`, `rollout status`), a rolling update within maxSurge (`set image`), history
and undo, scaling, pause/resume/restart, a ReplicationController from a manifest, and the ReplicaSet
replacing, adopting and releasing pods; with the events `kubectl describe` shows.

The controllers run in the server as `system:kube-controller-manager`, the scheduler binds the pods to the
two simulated nodes and their kubelets start them. The tests of time (minReadySeconds, the progress deadline)
run the two controllers in the test process on a fake clock against an API server alone, where a stand-in
marks pods Running and Ready as a kubelet would.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.controllers.workloads.deployment_controller import DeploymentController
from kubelite.controllers.workloads.replicaset_controller import ReplicaSetController
from tests.e2e.fake_time import FakeTimeLoops
from tests.e2e.server import KubeliteProcess

POD_TEMPLATE_HASH = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
DEADLINE = 60.0
#: a pod with this label is left Pending by the stand-in kubelet (no real kubelet runs where it is used)
STUCK = "test.kubelite.io/stuck"


class StandInKubelet(threading.Thread):
    """What a kubelet would do to pods, for an API server that runs no nodes: every pod goes Running and
    Ready (but those labelled STUCK), and a pod being deleted goes at once."""

    def __init__(self, server: KubeliteProcess) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.1):
            try:
                self._pass()
            except Exception:  # the server stopping under us
                continue

    def _pass(self) -> None:
        pods = self.server.http("GET", "/api/v1/pods").json()["items"]
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for pod in pods:
            meta = pod["metadata"]
            path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
            if meta.get("deletionTimestamp"):
                options = {"gracePeriodSeconds": 0, "preconditions": {"uid": meta["uid"]}}
                self.server.http("DELETE", path, options)
            elif (pod.get("status") or {}).get("phase") != "Running" and STUCK not in (meta.get("labels") or {}):
                status = {
                    "phase": "Running",
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
                }
                self.server.http(
                    "PATCH",
                    f"{path}/status",
                    json.dumps({"status": status}),
                    headers={"Content-Type": "application/merge-patch+json"},
                )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(tmp_path_factory.mktemp("deployments"), cluster=True, extra_args=["--nodes=2"]).start()
    try:
        yield proc
    finally:
        proc.stop()


# -- helpers -----------------------------------------------------------------------------------------------


def wait_for(what: str, check: Callable[[], Any], deadline: float = DEADLINE) -> Any:
    end = time.monotonic() + deadline
    last: Any = None
    while time.monotonic() < end:
        last = check()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last saw {last!r}")


def get(server: KubeliteProcess, path: str) -> Any:
    result = server.http("GET", path)
    assert result.status == 200, (path, result.body)
    return result.json()


def deployment(server: KubeliteProcess, name: str) -> Any:
    return get(server, f"/apis/apps/v1/namespaces/default/deployments/{name}")


def replica_sets_of(server: KubeliteProcess, name: str) -> list[Any]:
    """The Deployment's ReplicaSets, oldest revision first."""
    uid = deployment(server, name)["metadata"]["uid"]
    items = get(server, "/apis/apps/v1/namespaces/default/replicasets")["items"]
    owned = [rs for rs in items if any(ref["uid"] == uid for ref in rs["metadata"].get("ownerReferences") or [])]
    return sorted(owned, key=lambda rs: int(rs["metadata"]["annotations"][REVISION]))


def pods_of(server: KubeliteProcess, owner_uid: str) -> list[Any]:
    items = get(server, "/api/v1/namespaces/default/pods")["items"]
    return [
        pod
        for pod in items
        if not pod["metadata"].get("deletionTimestamp")
        and any(ref["uid"] == owner_uid for ref in pod["metadata"].get("ownerReferences") or [])
    ]


def events_of(server: KubeliteProcess, kind: str, name: str) -> list[tuple[str, str, str, str]]:
    """(type, reason, source, message) of the events on an object, in the order they were recorded (an
    Event's name ends in the hex nanoseconds of its first occurrence)."""
    selector = quote(f"involvedObject.kind={kind},involvedObject.name={name}")
    items = get(server, f"/api/v1/namespaces/default/events?fieldSelector={selector}")["items"]
    items.sort(key=lambda e: int(e["metadata"]["name"].rsplit(".", 1)[1], 16))
    return [(e["type"], e["reason"], e["source"]["component"], e["message"]) for e in items]


def wait_for_events(server: KubeliteProcess, kind: str, name: str, count: int) -> list[tuple[str, str, str, str]]:
    end = time.monotonic() + DEADLINE
    while True:
        found = events_of(server, kind, name)
        if len(found) >= count or time.monotonic() > end:
            return found
        time.sleep(0.1)


def scaled(name: str, direction: str, old: int, new: int) -> tuple[str, str, str, str]:
    return (
        "Normal",
        "ScalingReplicaSet",
        "deployment-controller",
        f"Scaled {direction} replica set {name} from {old} to {new}",
    )


def rollout_status(server: KubeliteProcess, name: str) -> list[str]:
    result = server.kubectl("rollout", "status", f"deployment/{name}", "--timeout=30s", check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == f'deployment "{name}" successfully rolled out'
    waiting = re.compile(
        rf'^(Waiting for deployment "{name}" rollout to finish: ('
        r"\d+ out of \d+ new replicas have been updated|\d+ old replicas are pending termination"
        r"|\d+ of \d+ updated replicas are available)|Waiting for deployment spec update to be observed)\.\.\.$"
    )
    assert all(waiting.match(line) for line in lines[:-1]), lines
    return lines


def hash_named(rs: Any, deployment_name: str) -> str:
    """The ReplicaSet's pod-template hash, checked to be the suffix of its name and in its selector."""
    hash_value = rs["metadata"]["labels"][POD_TEMPLATE_HASH]
    assert rs["metadata"]["name"] == f"{deployment_name}-{hash_value}"
    assert rs["spec"]["selector"]["matchLabels"][POD_TEMPLATE_HASH] == hash_value
    assert rs["spec"]["template"]["metadata"]["labels"][POD_TEMPLATE_HASH] == hash_value
    return str(hash_value)


def without_times(conditions: list[Any]) -> list[Any]:
    return [{k: v for k, v in c.items() if not k.endswith("Time")} for c in conditions]


def rolled_out_conditions(rs_name: str) -> list[Any]:
    return [
        {
            "type": "Available",
            "status": "True",
            "reason": "MinimumReplicasAvailable",
            "message": "Deployment has minimum availability.",
        },
        {
            "type": "Progressing",
            "status": "True",
            "reason": "NewReplicaSetAvailable",
            "message": f'ReplicaSet "{rs_name}" has successfully progressed.',
        },
    ]


def apply_manifest(server: KubeliteProcess, manifest: str, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(manifest)
    return server.kubectl("create", "-f", str(path)).stdout


def delete_pod(server: KubeliteProcess, name: str) -> None:
    out = server.kubectl("delete", "pod", name, "--wait=false").stdout
    assert out == f'pod "{name}" deleted from default namespace\n'


# -- Deployments ---------------------------------------------------------------------------------------------


def test_create_deployment_rolls_out_and_describe_shows_its_events(server: KubeliteProcess) -> None:
    out = server.kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3").stdout
    assert out == "deployment.apps/web created\n"
    rollout_status(server, "web")

    [rs] = replica_sets_of(server, "web")
    rs_name = rs["metadata"]["name"]
    hash_named(rs, "web")
    assert rs["metadata"]["annotations"][REVISION] == "1"
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "3"
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "4"
    d = deployment(server, "web")
    assert rs["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "web",
            "uid": d["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert d["metadata"]["annotations"][REVISION] == "1"
    status = d["status"]
    assert {k: v for k, v in status.items() if k != "conditions"} == {
        "observedGeneration": 1,
        "replicas": 3,
        "updatedReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
        **({"terminatingReplicas": 0} if "terminatingReplicas" in status else {}),
    }
    assert without_times(status["conditions"]) == rolled_out_conditions(rs_name)

    pods = pods_of(server, rs["metadata"]["uid"])
    assert len(pods) == 3
    # bound by the scheduler, started by the nodes' kubelets
    assert {pod["spec"]["nodeName"] for pod in pods} <= {"kubelite-node-0", "kubelite-node-1"}
    for pod in pods:
        assert pod["metadata"]["generateName"] == f"{rs_name}-"
        assert pod["metadata"]["labels"] == {
            "app": "web",
            POD_TEMPLATE_HASH: rs["metadata"]["labels"][POD_TEMPLATE_HASH],
        }
        assert pod["metadata"]["ownerReferences"] == [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": rs_name,
                "uid": rs["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    rs_events = wait_for_events(server, "ReplicaSet", rs_name, 3)
    assert sorted(rs_events) == sorted(
        ("Normal", "SuccessfulCreate", "replicaset-controller", f"Created pod: {pod['metadata']['name']}")
        for pod in pods
    )
    assert wait_for_events(server, "Deployment", "web", 1) == [scaled(rs_name, "up", 0, 3)]

    described = server.kubectl("describe", "deployment", "web").stdout
    assert re.search(
        r"^Replicas:\s+3 desired \| 3 updated \| 3 total \| 3 available \| 0 unavailable$", described, re.M
    )
    assert re.search(rf"^NewReplicaSet:\s+{rs_name} \(3/3 replicas created\)$", described, re.M)
    events = described[described.index("Events:") :].splitlines()
    assert re.fullmatch(r"  Type    Reason             Age\s+From                   Message", events[1])
    assert re.fullmatch(
        rf"  Normal  ScalingReplicaSet  \S+\s+deployment-controller  Scaled up replica set {rs_name} from 0 to 3",
        events[3],
    )


def test_set_image_rolls_within_max_surge_then_history_and_undo(server: KubeliteProcess) -> None:
    server.kubectl("create", "deployment", "roll", "--image=nginx:1.26", "--replicas=3")
    rollout_status(server, "roll")
    [first] = replica_sets_of(server, "roll")
    out = server.kubectl("set", "image", "deployment/roll", "nginx=nginx:1.27").stdout
    assert out == "deployment.apps/roll image updated\n"
    rollout_status(server, "roll")

    old, new = replica_sets_of(server, "roll")
    assert old["metadata"]["name"] == first["metadata"]["name"]
    old_name, new_name = old["metadata"]["name"], new["metadata"]["name"]
    assert hash_named(new, "roll") != hash_named(old, "roll")
    assert (old["metadata"]["annotations"][REVISION], new["metadata"]["annotations"][REVISION]) == ("1", "2")
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 3)
    assert new["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    # 25% of 3: one pod over the desired count (surge rounds up), none under it (unavailable rounds down),
    # so the rollout goes one pod at a time, each new pod available before an old one goes
    assert wait_for_events(server, "Deployment", "roll", 7) == [
        scaled(old_name, "up", 0, 3),
        scaled(new_name, "up", 0, 1),
        scaled(old_name, "down", 3, 2),
        scaled(new_name, "up", 1, 2),
        scaled(old_name, "down", 2, 1),
        scaled(new_name, "up", 2, 3),
        scaled(old_name, "down", 1, 0),
    ]
    d = deployment(server, "roll")
    assert d["metadata"]["annotations"][REVISION] == "2"
    assert without_times(d["status"]["conditions"]) == rolled_out_conditions(new_name)

    history = server.kubectl("rollout", "history", "deployment/roll").stdout
    assert history == "deployment.apps/roll \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n"

    assert server.kubectl("rollout", "undo", "deployment/roll").stdout == "deployment.apps/roll rolled back\n"
    rollout_status(server, "roll")
    newer, back = replica_sets_of(server, "roll")
    assert (newer["metadata"]["name"], back["metadata"]["name"]) == (new_name, old_name)
    assert back["metadata"]["annotations"][REVISION] == "3"
    assert back["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
    assert (newer["spec"]["replicas"], back["spec"]["replicas"]) == (0, 3)
    assert deployment(server, "roll")["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    history = server.kubectl("rollout", "history", "deployment/roll").stdout
    assert history == "deployment.apps/roll \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"


def test_scale_up_and_down(server: KubeliteProcess) -> None:
    server.kubectl("create", "deployment", "scale", "--image=nginx", "--replicas=3")
    rollout_status(server, "scale")
    [rs] = replica_sets_of(server, "scale")
    name = rs["metadata"]["name"]
    assert server.kubectl("scale", "deployment/scale", "--replicas=5").stdout == "deployment.apps/scale scaled\n"
    rollout_status(server, "scale")
    assert len(pods_of(server, rs["metadata"]["uid"])) == 5
    assert server.kubectl("scale", "deployment/scale", "--replicas=2").stdout == "deployment.apps/scale scaled\n"
    wait_for("two pods", lambda: len(pods_of(server, rs["metadata"]["uid"])) == 2)
    wait_for("the status at 2", lambda: deployment(server, "scale")["status"].get("replicas") == 2)
    assert wait_for_events(server, "Deployment", "scale", 3) == [
        scaled(name, "up", 0, 3),
        scaled(name, "up", 3, 5),
        scaled(name, "down", 5, 2),
    ]
    rs_events = wait_for_events(server, "ReplicaSet", name, 8)
    assert [e[1] for e in rs_events] == ["SuccessfulCreate"] * 5 + ["SuccessfulDelete"] * 3
    assert all(e[2] == "replicaset-controller" for e in rs_events)
    assert all(re.fullmatch(rf"Deleted pod: {name}-[a-z0-9]{{5}}", e[3]) for e in rs_events[5:])


def test_pause_resume_and_restart(server: KubeliteProcess) -> None:
    server.kubectl("create", "deployment", "pause", "--image=nginx:1.26", "--replicas=2")
    rollout_status(server, "pause")
    assert server.kubectl("rollout", "pause", "deployment/pause").stdout == "deployment.apps/pause paused\n"
    server.kubectl("set", "image", "deployment/pause", "nginx=nginx:1.27")

    def paused_observed() -> Any:
        d = deployment(server, "pause")
        return d if d["status"].get("observedGeneration") == d["metadata"]["generation"] else None

    d = wait_for("the paused Deployment observed", paused_observed)
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert without_times([progressing]) == [
        {"type": "Progressing", "status": "Unknown", "reason": "DeploymentPaused", "message": "Deployment is paused"}
    ]
    assert len(replica_sets_of(server, "pause")) == 1

    assert server.kubectl("rollout", "resume", "deployment/pause").stdout == "deployment.apps/pause resumed\n"
    rollout_status(server, "pause")
    _, second = replica_sets_of(server, "pause")
    assert second["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"

    assert server.kubectl("rollout", "restart", "deployment/pause").stdout == "deployment.apps/pause restarted\n"
    rollout_status(server, "pause")
    rss = replica_sets_of(server, "pause")
    assert [rs["metadata"]["annotations"][REVISION] for rs in rss] == ["1", "2", "3"]
    restarted = rss[2]
    assert "kubectl.kubernetes.io/restartedAt" in restarted["spec"]["template"]["metadata"]["annotations"]
    assert [rs["spec"]["replicas"] for rs in rss] == [0, 0, 2]


def test_recreate_starts_the_new_pods_once_the_old_ones_are_gone(server: KubeliteProcess, tmp_path: Path) -> None:
    manifest = deployment_manifest("redo", 2, "  strategy:\n    type: Recreate\n")
    apply_manifest(server, manifest, tmp_path, "redo")
    rollout_status(server, "redo")
    [old] = replica_sets_of(server, "redo")
    server.kubectl("set", "image", "deployment/redo", "app=nginx:1.27")
    rollout_status(server, "redo")
    first, second = replica_sets_of(server, "redo")
    assert first["metadata"]["name"] == old["metadata"]["name"]
    assert wait_for_events(server, "Deployment", "redo", 3) == [
        scaled(first["metadata"]["name"], "up", 0, 2),
        scaled(first["metadata"]["name"], "down", 2, 0),
        scaled(second["metadata"]["name"], "up", 0, 2),
    ]


# -- ReplicationControllers and ReplicaSets ------------------------------------------------------------------


RC = """apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 2
  selector:
    app: legacy
  template:
    metadata:
      labels:
        app: legacy
    spec:
      containers:
      - name: app
        image: nginx
"""


def test_replication_controller_keeps_its_replicas(server: KubeliteProcess, tmp_path: Path) -> None:
    assert apply_manifest(server, RC, tmp_path, "rc") == "replicationcontroller/legacy created\n"
    path = "/api/v1/namespaces/default/replicationcontrollers/legacy"

    def settled() -> Any:
        rc = get(server, path)
        return rc if rc.get("status", {}).get("availableReplicas") == 2 else None

    rc = wait_for("the RC's two pods available", settled)
    assert rc["status"] == {
        "replicas": 2,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "observedGeneration": 1,
    }
    pods = pods_of(server, rc["metadata"]["uid"])
    assert len(pods) == 2
    assert pods[0]["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "name": "legacy",
            "uid": rc["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    gone = pods[0]["metadata"]["name"]
    delete_pod(server, gone)
    wait_for(
        "a replacement pod",
        lambda: (
            len(names := {p["metadata"]["name"] for p in pods_of(server, rc["metadata"]["uid"])}) == 2
            and gone not in names
        ),
    )
    wait_for("the RC available again", settled)
    events = wait_for_events(server, "ReplicationController", "legacy", 3)
    assert [(e[0], e[1], e[2]) for e in events] == [("Normal", "SuccessfulCreate", "replication-controller")] * 3


RS = """apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: plain
spec:
  replicas: 2
  selector:
    matchLabels:
      app: plain
  template:
    metadata:
      labels:
        app: plain
    spec:
      containers:
      - name: app
        image: nginx
"""

ORPHAN = """apiVersion: v1
kind: Pod
metadata:
  name: stray
  labels:
    app: plain
spec:
  containers:
  - name: app
    image: nginx
"""


def test_replica_set_adopts_replaces_and_releases_pods(server: KubeliteProcess, tmp_path: Path) -> None:
    assert apply_manifest(server, ORPHAN, tmp_path, "orphan") == "pod/stray created\n"
    assert apply_manifest(server, RS, tmp_path, "rs") == "replicaset.apps/plain created\n"
    rs = get(server, "/apis/apps/v1/namespaces/default/replicasets/plain")
    uid = rs["metadata"]["uid"]
    pods = wait_for("two pods of the ReplicaSet", lambda: p if len(p := pods_of(server, uid)) == 2 else None)
    # the orphan was adopted, so one pod was created, not two
    assert "stray" in {p["metadata"]["name"] for p in pods}
    stray = next(p for p in pods if p["metadata"]["name"] == "stray")
    assert stray["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "plain",
            "uid": uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    created = wait_for_events(server, "ReplicaSet", "plain", 1)
    assert [e[1] for e in created] == ["SuccessfulCreate"]

    # a deleted pod is replaced
    delete_pod(server, "stray")
    wait_for(
        "a replacement for the deleted pod",
        lambda: len(names := {p["metadata"]["name"] for p in pods_of(server, uid)}) == 2 and "stray" not in names,
    )

    # a pod relabelled out of the selector is released, and replaced
    leaving = pods_of(server, uid)[0]["metadata"]["name"]
    server.kubectl("label", "pod", leaving, "app=elsewhere", "--overwrite")

    def released() -> Any:
        pod = get(server, f"/api/v1/namespaces/default/pods/{leaving}")
        return pod if not pod["metadata"].get("ownerReferences") else None

    wait_for("the relabelled pod released", released)
    wait_for(
        "a replacement for the released pod",
        lambda: len(names := {p["metadata"]["name"] for p in pods_of(server, uid)}) == 2 and leaving not in names,
    )
    events = wait_for_events(server, "ReplicaSet", "plain", 3)
    assert [(e[1], e[2]) for e in events] == [("SuccessfulCreate", "replicaset-controller")] * 3

    def status_settled() -> Any:
        current = get(server, "/apis/apps/v1/namespaces/default/replicasets/plain")
        return current if current["status"].get("availableReplicas") == 2 else None

    status = wait_for("the ReplicaSet's status", status_settled)["status"]
    assert {k: v for k, v in status.items() if k != "terminatingReplicas"} == {
        "replicas": 2,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "observedGeneration": 1,
    }


# -- time: minReadySeconds and progressDeadlineSeconds, on a fake clock --------------------------------------


class FakeTimeControllers(FakeTimeLoops):
    """The Deployment and ReplicaSet controllers in this process, on a FakeClock that follows real time in
    small ticks (so retries and polls go on) and that a test moves ahead with `step`, against a server that
    runs neither controller."""

    def __init__(self, server: KubeliteProcess) -> None:
        super().__init__(server, FakeClock(wall_offset=time.time() - 1_000.0))

    def loops(self, clients: ComponentClient) -> list[Any]:
        return [DeploymentController(clients), ReplicaSetController(clients)]


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KubeliteProcess, FakeTimeControllers]]:
    proc = KubeliteProcess(tmp_path_factory.mktemp("deployments-time")).start()  # an API server alone
    kubelet = StandInKubelet(proc)
    kubelet.start()
    controllers = FakeTimeControllers(proc)
    controllers.start()
    try:
        yield proc, controllers
    finally:
        controllers.stop()
        kubelet.stopped.set()
        kubelet.join(5)
        proc.stop()


def deployment_manifest(name: str, replicas: int, spec: str, pod_labels: str = "") -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n{spec}"
        f"  selector:\n    matchLabels:\n      app: {name}\n"
        f"  template:\n    metadata:\n      labels:\n        app: {name}\n{pod_labels}"
        "    spec:\n      containers:\n      - name: app\n        image: nginx\n"
    )


def condition(d: Any, kind: str) -> dict[str, Any] | None:
    found = next((c for c in (d.get("status") or {}).get("conditions") or [] if c["type"] == kind), None)
    return None if found is None else {k: v for k, v in found.items() if not k.endswith("Time")}


def test_pods_count_as_available_after_min_ready_seconds(
    timed: tuple[KubeliteProcess, FakeTimeControllers], tmp_path: Path
) -> None:
    server, controllers = timed
    manifest = deployment_manifest("patient", 2, "  minReadySeconds: 30\n")
    assert apply_manifest(server, manifest, tmp_path, "patient") == "deployment.apps/patient created\n"

    def ready_not_available() -> Any:
        rss = replica_sets_of(server, "patient")
        return rss and rss[0].get("status", {}).get("readyReplicas") == 2

    wait_for("two ready pods", ready_not_available)
    [rs] = replica_sets_of(server, "patient")
    assert "availableReplicas" not in rs["status"]
    wait_for("the Deployment's status", lambda: deployment(server, "patient")["status"].get("readyReplicas") == 2)
    assert condition(deployment(server, "patient"), "Available") == {
        "type": "Available",
        "status": "False",
        "reason": "MinimumReplicasUnavailable",
        "message": "Deployment does not have minimum availability.",
    }

    controllers.step(32)
    wait_for("the pods available", lambda: deployment(server, "patient")["status"].get("availableReplicas") == 2)
    rs = get(server, f"/apis/apps/v1/namespaces/default/replicasets/{rs['metadata']['name']}")
    assert rs["status"]["availableReplicas"] == 2
    assert condition(deployment(server, "patient"), "Available") == {
        "type": "Available",
        "status": "True",
        "reason": "MinimumReplicasAvailable",
        "message": "Deployment has minimum availability.",
    }


def test_a_stuck_rollout_exceeds_its_progress_deadline(
    timed: tuple[KubeliteProcess, FakeTimeControllers], tmp_path: Path
) -> None:
    server, controllers = timed
    manifest = deployment_manifest("stuck", 2, "  progressDeadlineSeconds: 60\n", f"        {STUCK}: 'yes'\n")
    apply_manifest(server, manifest, tmp_path, "stuck")

    def progressing() -> Any:
        return condition(deployment(server, "stuck"), "Progressing")

    wait_for("the rollout progressing", lambda: (c := progressing()) and c["reason"] == "ReplicaSetUpdated")
    [rs] = replica_sets_of(server, "stuck")
    rs_name = rs["metadata"]["name"]
    assert progressing() == {
        "type": "Progressing",
        "status": "True",
        "reason": "ReplicaSetUpdated",
        "message": f'ReplicaSet "{rs_name}" is progressing.',
    }

    controllers.step(61)
    wait_for("the deadline exceeded", lambda: (c := progressing()) and c["reason"] == "ProgressDeadlineExceeded")
    assert progressing() == {
        "type": "Progressing",
        "status": "False",
        "reason": "ProgressDeadlineExceeded",
        "message": f'ReplicaSet "{rs_name}" has timed out progressing.',
    }
    result = server.kubectl("rollout", "status", "deployment/stuck", "--timeout=10s", check=False)
    assert result.returncode == 1
    assert result.stderr == 'error: deployment "stuck" exceeded its progress deadline\n'
