"""The StatefulSet controller in a whole cluster: ordered members with their claims, scale down from the top,
a rolling update held by a partition, and kubectl's rollout status, history and undo on it.

Where the build has simulated kubelets, they run the members; where it has none, the test plays the kubelet
and marks each member Running and Ready through pods/status, which also lets it check that OrderedReady
creates nothing more while a member is not Ready."""

from __future__ import annotations

import importlib.util
import itertools
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

#: the build runs members on simulated kubelets (else the test marks them Ready itself)
KUBELETS = importlib.util.find_spec("kubelite.cluster.kubelet.kubelet") is not None
STS = "/apis/apps/v1/namespaces/{ns}/statefulsets"


@pytest.fixture(scope="module")
def proc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    server = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=2"])
    server.start()
    yield server
    server.stop()


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def get(proc: KubeliteProcess, path: str) -> dict[str, Any] | None:
    got = proc.http("GET", path)
    return dict(got.json()) if got.status == 200 else None


def pod(proc: KubeliteProcess, ns: str, name: str) -> dict[str, Any] | None:
    return get(proc, f"/api/v1/namespaces/{ns}/pods/{name}")


def pod_names(proc: KubeliteProcess, ns: str) -> list[str]:
    items = (get(proc, f"/api/v1/namespaces/{ns}/pods") or {}).get("items", [])
    return sorted(p["metadata"]["name"] for p in items)


def statefulset(proc: KubeliteProcess, ns: str) -> dict[str, Any]:
    found = get(proc, STS.format(ns=ns) + "/web")
    assert found is not None
    return found


def is_ready(obj: dict[str, Any] | None) -> bool:
    conditions = ((obj or {}).get("status") or {}).get("conditions") or []
    return (obj or {}).get("status", {}).get("phase") == "Running" and any(
        c["type"] == "Ready" and c["status"] == "True" for c in conditions
    )


def make_ready(proc: KubeliteProcess, ns: str, name: str, revision: str | None = None) -> dict[str, Any]:
    """Wait for the member (at `revision`, when given) to exist, then for it to be Ready (playing the kubelet
    when there is none)."""

    def current() -> dict[str, Any] | None:
        found = pod(proc, ns, name)
        if found is None or found["metadata"].get("deletionTimestamp"):
            return None
        if revision is not None and found["metadata"]["labels"].get("controller-revision-hash") != revision:
            return None
        return found

    found = wait_for(f"pod {name}", current)
    if not KUBELETS and not is_ready(found):
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = {
            "status": {
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
            }
        }
        headers = {"Content-Type": "application/merge-patch+json"}
        got = proc.http("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status", body=json.dumps(body), headers=headers)
        assert got.status == 200, got.body
    return dict(wait_for(f"pod {name} Ready", lambda: (p := current()) is not None and is_ready(p) and p))


def create_namespace(proc: KubeliteProcess, ns: str) -> None:
    got = proc.http(
        "POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
    )
    assert got.status == 201, got.body


def web(replicas: int, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "c", "image": "nginx:1.25"}]},
            },
            **spec,
        },
    }


def create_web(proc: KubeliteProcess, ns: str, replicas: int, **spec: Any) -> None:
    create_namespace(proc, ns)
    got = proc.http("POST", STS.format(ns=ns), body=web(replicas, **spec))
    assert got.status == 201, got.body


def bring_up(proc: KubeliteProcess, ns: str, replicas: int) -> dict[str, Any]:
    for i in range(replicas):
        make_ready(proc, ns, f"web-{i}")
    return dict(
        wait_for(
            "the set ready",
            lambda: (
                (s := statefulset(proc, ns))["status"].get("readyReplicas") == replicas
                and s["status"].get("observedGeneration") == s["metadata"]["generation"]
                and s
            ),
        )
    )


def events(proc: KubeliteProcess, ns: str, reason: str) -> list[str]:
    items = (get(proc, f"/api/v1/namespaces/{ns}/events") or {}).get("items", [])
    ours = [e for e in items if e["reason"] == reason and e["involvedObject"]["kind"] == "StatefulSet"]
    ours.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    for event in ours:
        assert event["source"] == {"component": "statefulset-controller"}
        assert event["type"] == "Normal"
    return [e["message"] for e in ours]


def wait_events(proc: KubeliteProcess, ns: str, reason: str, count: int) -> list[str]:
    """The set's events of `reason` once there are `count` of them (the recorder writes them after the fact)."""
    return list(wait_for(f"{count} {reason} events", lambda: len(found := events(proc, ns, reason)) >= count and found))


def _time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def test_ordered_ready_members_come_one_at_a_time_with_their_claims(proc: KubeliteProcess) -> None:
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    create_web(proc, "ordered", 3, volumeClaimTemplates=[claim])
    first = wait_for("web-0", lambda: pod(proc, "ordered", "web-0"))
    if not KUBELETS:
        time.sleep(1.0)  # web-0 is not Ready: OrderedReady creates nothing more
        assert pod_names(proc, "ordered") == ["web-0"]
    readied = [make_ready(proc, "ordered", f"web-{i}") for i in range(3)]
    sts = bring_up(proc, "ordered", 3)
    for before, after in itertools.pairwise(readied):
        ready_at = next(c for c in before["status"]["conditions"] if c["type"] == "Ready")["lastTransitionTime"]
        assert _time(after["metadata"]["creationTimestamp"]) >= _time(ready_at)
    revision = sts["status"]["updateRevision"]
    assert first["metadata"]["labels"] == {
        "app": "web",
        "statefulset.kubernetes.io/pod-name": "web-0",
        "apps.kubernetes.io/pod-index": "0",
        "controller-revision-hash": revision,
    }
    assert first["metadata"]["generateName"] == "web-"
    assert (first["spec"]["hostname"], first["spec"]["subdomain"]) == ("web-0", "web")
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}} in first["spec"]["volumes"]
    for i in range(3):
        found = get(proc, f"/api/v1/namespaces/ordered/persistentvolumeclaims/data-web-{i}")
        assert found is not None
        assert found["metadata"]["labels"] == {"app": "web"}
        assert found["spec"]["accessModes"] == ["ReadWriteOnce"]
        assert "ownerReferences" not in found["metadata"]  # Retain, Retain
    assert wait_events(proc, "ordered", "SuccessfulCreate", 6) == [
        "create Claim data-web-0 Pod web-0 in StatefulSet web success",
        "create Pod web-0 in StatefulSet web successful",
        "create Claim data-web-1 Pod web-1 in StatefulSet web success",
        "create Pod web-1 in StatefulSet web successful",
        "create Claim data-web-2 Pod web-2 in StatefulSet web success",
        "create Pod web-2 in StatefulSet web successful",
    ]
    status = sts["status"]
    assert {k: v for k, v in status.items() if k != "observedGeneration"} == {
        "replicas": 3,
        "readyReplicas": 3,
        "currentReplicas": 3,
        "updatedReplicas": 3,
        "currentRevision": revision,
        "updateRevision": revision,
        "collisionCount": 0,
        "availableReplicas": 3,
    }
    [history] = (get(proc, "/apis/apps/v1/namespaces/ordered/controllerrevisions") or {})["items"]
    assert history["metadata"]["name"] == revision
    assert history["revision"] == 1
    assert history["data"]["spec"]["template"]["$patch"] == "replace"
    assert history["metadata"]["ownerReferences"][0]["uid"] == sts["metadata"]["uid"]
    done = proc.kubectl("rollout", "status", "statefulset/web", "-n", "ordered", "--timeout=30s")
    assert done.stdout == "partitioned roll out complete: 3 new pods have been updated...\n"


def test_scale_down_removes_the_highest_ordinal_first(proc: KubeliteProcess) -> None:
    create_web(
        proc,
        "scaling",
        3,
        volumeClaimTemplates=[
            {
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }
        ],
    )
    bring_up(proc, "scaling", 3)
    assert (
        proc.kubectl("scale", "statefulset/web", "--replicas=1", "-n", "scaling").stdout
        == "statefulset.apps/web scaled\n"
    )
    wait_for("one member left", lambda: pod_names(proc, "scaling") == ["web-0"])
    assert wait_events(proc, "scaling", "SuccessfulDelete", 2) == [
        "delete Pod web-2 in StatefulSet web successful",
        "delete Pod web-1 in StatefulSet web successful",
    ]
    sts = wait_for("the status", lambda: (s := statefulset(proc, "scaling"))["status"]["replicas"] == 1 and s)
    assert sts["status"]["readyReplicas"] == 1
    # Retain: the claims of the removed members stay for them to come back to
    for i in range(3):
        assert get(proc, f"/api/v1/namespaces/scaling/persistentvolumeclaims/data-web-{i}") is not None


def test_a_rolling_update_held_by_a_partition_then_history_and_undo(proc: KubeliteProcess) -> None:
    create_web(proc, "rolling", 3)
    old = bring_up(proc, "rolling", 3)["status"]["currentRevision"]
    patch = {
        "spec": {
            "updateStrategy": {"rollingUpdate": {"partition": 2}},
            "template": {"spec": {"containers": [{"name": "c", "image": "nginx:1.26"}]}},
        }
    }
    proc.kubectl("patch", "statefulset/web", "-n", "rolling", "-p", json.dumps(patch))
    sts = wait_for(
        "the update revision",
        lambda: (s := statefulset(proc, "rolling"))["status"].get("updateRevision") not in (None, old) and s,
    )
    new = sts["status"]["updateRevision"]
    updated = make_ready(proc, "rolling", "web-2", revision=new)
    assert updated["spec"]["containers"][0]["image"] == "nginx:1.26"
    sts = wait_for(
        "the partitioned status",
        lambda: (
            (s := statefulset(proc, "rolling"))["status"].get("updatedReplicas") == 1
            and s["status"].get("readyReplicas") == 3
            and s
        ),
    )
    assert (sts["status"]["currentRevision"], sts["status"]["currentReplicas"]) == (old, 2)
    for name in ("web-0", "web-1"):
        kept = pod(proc, "rolling", name)
        assert kept is not None
        assert kept["metadata"]["labels"]["controller-revision-hash"] == old
        assert kept["spec"]["containers"][0]["image"] == "nginx:1.25"
    done = proc.kubectl("rollout", "status", "statefulset/web", "-n", "rolling", "--timeout=30s")
    assert done.stdout == "partitioned roll out complete: 1 new pods have been updated...\n"
    listed = proc.kubectl("rollout", "history", "statefulset/web", "-n", "rolling").stdout.splitlines()
    assert [line.split() for line in listed if line.strip()] == [
        ["statefulset.apps/web"],
        ["REVISION", "CHANGE-CAUSE"],
        ["1", "<none>"],
        ["2", "<none>"],
    ]

    # the partition lowered, the rest follow from the top down; then the update revision is current
    proc.kubectl(
        "patch",
        "statefulset/web",
        "-n",
        "rolling",
        "-p",
        '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}',
    )
    make_ready(proc, "rolling", "web-1", revision=new)
    make_ready(proc, "rolling", "web-0", revision=new)
    sts = wait_for(
        "the update complete",
        lambda: (
            (s := statefulset(proc, "rolling"))["status"].get("currentRevision") == new
            and s["status"].get("readyReplicas") == 3
            and s
        ),
    )
    assert (sts["status"]["currentReplicas"], sts["status"]["updatedReplicas"]) == (3, 3)
    deleted = wait_events(proc, "rolling", "SuccessfulDelete", 3)
    assert deleted == [f"delete Pod web-{i} in StatefulSet web successful" for i in (2, 1, 0)]

    # undo: the first revision's template comes back and that revision becomes number 3
    assert (
        proc.kubectl("rollout", "undo", "statefulset/web", "-n", "rolling").stdout
        == "statefulset.apps/web rolled back\n"
    )
    sts = wait_for(
        "the rollback revision",
        lambda: (s := statefulset(proc, "rolling"))["status"].get("updateRevision") == old and s,
    )
    assert sts["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.25"
    first = get(proc, f"/apis/apps/v1/namespaces/rolling/controllerrevisions/{old}")
    assert first is not None and first["revision"] == 3
    # and the rollback rolls like any update, from the top
    back = make_ready(proc, "rolling", "web-2", revision=old)
    assert back["spec"]["containers"][0]["image"] == "nginx:1.25"


def test_an_orphan_member_is_adopted_and_given_its_identity(proc: KubeliteProcess) -> None:
    create_namespace(proc, "adopting")
    orphan = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-0", "labels": {"app": "web"}},
        "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "c", "image": "nginx:1.25"}]},
    }
    got = proc.http("POST", "/api/v1/namespaces/adopting/pods", body=orphan)
    assert got.status == 201, got.body
    uid = got.json()["metadata"]["uid"]
    got = proc.http("POST", STS.format(ns="adopting"), body=web(1, updateStrategy={"type": "OnDelete"}))
    assert got.status == 201, got.body
    owner = got.json()["metadata"]["uid"]
    adopted = wait_for(
        "the adoption", lambda: (p := pod(proc, "adopting", "web-0")) and p["metadata"].get("ownerReferences") and p
    )
    assert adopted["metadata"]["uid"] == uid
    assert adopted["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "name": "web",
            "uid": owner,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    make_ready(proc, "adopting", "web-0")
    # once Running and Ready, the member gets the labels of its identity (in place: OnDelete replaces nothing)
    fixed = wait_for(
        "the identity labels",
        lambda: (
            (p := pod(proc, "adopting", "web-0"))
            and p["metadata"]["labels"].get("statefulset.kubernetes.io/pod-name") == "web-0"
            and p
        ),
    )
    assert fixed["metadata"]["uid"] == uid
    assert fixed["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "0"
    updates = wait_events(proc, "adopting", "SuccessfulUpdate", 1)
    assert updates == ["update Pod web-0 in StatefulSet web successful"]
    assert events(proc, "adopting", "SuccessfulCreate") == []


def test_parallel_members_and_claims_deleted_on_scale_down(proc: KubeliteProcess) -> None:
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    policy = {"whenDeleted": "Retain", "whenScaled": "Delete"}
    create_web(
        proc,
        "parallel",
        2,
        podManagementPolicy="Parallel",
        volumeClaimTemplates=[claim],
        persistentVolumeClaimRetentionPolicy=policy,
    )
    # Parallel: both members at once, neither waiting for the other to be Ready
    wait_for("both members", lambda: pod_names(proc, "parallel") == ["web-0", "web-1"])
    bring_up(proc, "parallel", 2)
    proc.kubectl("scale", "statefulset/web", "--replicas=1", "-n", "parallel")
    wait_for("one member left", lambda: pod_names(proc, "parallel") == ["web-0"])
    # the scaled-down member owned its claim, so the garbage collector takes the claim with it
    wait_for(
        "the claim gone", lambda: get(proc, "/api/v1/namespaces/parallel/persistentvolumeclaims/data-web-1") is None
    )
    kept = get(proc, "/api/v1/namespaces/parallel/persistentvolumeclaims/data-web-0")
    assert kept is not None and "ownerReferences" not in kept["metadata"]
