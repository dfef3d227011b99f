"""ResourceQuotas on a whole simulated cluster, through kubectl: the resource quota controller keeps
status.used (`kubectl describe quota`), the ResourceQuota admission plugin charges and refuses writes with
kube's texts, and a Deployment over its quota reports the ReplicaSet's FailedCreate and ReplicaFailure."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

DEADLINE = 60.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=1"]).start()
    yield proc
    proc.stop()


def wait_for(what: str, probe: Any, timeout: float = DEADLINE) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = probe()
        if last:
            return last
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def used(cluster: KubeliteProcess, namespace: str, name: str) -> dict[str, str] | None:
    quota = cluster.http("GET", f"/api/v1/namespaces/{namespace}/resourcequotas/{name}").json()
    return (quota.get("status") or {}).get("used")


def wait_used(cluster: KubeliteProcess, namespace: str, name: str, expected: dict[str, str]) -> None:
    seen: list[Any] = []

    def probe() -> bool:
        seen.append(used(cluster, namespace, name))
        return seen[-1] == expected

    try:
        wait_for(f"quota {name} to use {expected}", probe)
    except AssertionError:
        raise AssertionError(f"quota {name} used {seen[-1]}, expected {expected}") from None


def pod_manifest(name: str, cpu: str) -> str:
    return json.dumps({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]},
    })  # fmt: skip


def namespace(cluster: KubeliteProcess, name: str) -> None:
    cluster.kubectl("create", "namespace", name)


def test_describe_shows_used_as_kube_prints_it(cluster: KubeliteProcess) -> None:
    namespace(cluster, "quota-describe")
    out = cluster.kubectl("-n", "quota-describe", "create", "quota", "q", "--hard=pods=2,requests.cpu=1")
    assert out.stdout == "resourcequota/q created\n"
    wait_used(cluster, "quota-describe", "q", {"pods": "0", "requests.cpu": "0"})
    quota = cluster.http("GET", "/api/v1/namespaces/quota-describe/resourcequotas/q").json()
    assert quota["status"]["hard"] == {"pods": "2", "requests.cpu": "1"}
    described = cluster.kubectl("-n", "quota-describe", "describe", "quota").stdout
    assert described == (
        "Name:         q\n"
        "Namespace:    quota-describe\n"
        "Resource      Used  Hard\n"
        "--------      ----  ----\n"
        "pods          0     2\n"
        "requests.cpu  0     1\n"
    )


def test_pods_move_used_and_the_third_is_refused(cluster: KubeliteProcess) -> None:
    ns = "quota-pods"
    namespace(cluster, ns)
    cluster.kubectl("-n", ns, "create", "quota", "q", "--hard=pods=2,requests.cpu=1")
    wait_used(cluster, ns, "q", {"pods": "0", "requests.cpu": "0"})

    bare = cluster.kubectl("-n", ns, "run", "bare", "--image=nginx", check=False)
    assert bare.returncode == 1
    assert bare.stderr == (
        'Error from server (Forbidden): pods "bare" is forbidden: '
        "failed quota: q: must specify requests.cpu for: bare\n"
    )

    cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("p1", "800m"))
    assert used(cluster, ns, "q") == {"pods": "1", "requests.cpu": "800m"}  # charged by admission, at once
    greedy = cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("greedy", "300m"), check=False)
    assert greedy.returncode == 1
    assert greedy.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": pods "greedy" is forbidden: exceeded quota: q, '
        "requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1\n"
    )
    cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("p2", "200m"))
    wait_used(cluster, ns, "q", {"pods": "2", "requests.cpu": "1"})

    third = cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("p3", "0"), check=False)
    assert third.returncode == 1
    assert third.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": pods "p3" is forbidden: exceeded quota: q, '
        "requested: pods=1, used: pods=2, limited: pods=2\n"
    )
    described = cluster.kubectl("-n", ns, "describe", "quota", "q").stdout
    assert described.endswith("pods          2     2\nrequests.cpu  1     1\n")

    # the controller gives back what a deleted pod used once it is gone
    cluster.kubectl("-n", ns, "delete", "pod", "p1", "--wait=true")
    wait_used(cluster, ns, "q", {"pods": "1", "requests.cpu": "200m"})
    cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("p3", "0"))
    wait_used(cluster, ns, "q", {"pods": "2", "requests.cpu": "200m"})


def test_object_counts(cluster: KubeliteProcess) -> None:
    ns = "quota-objects"
    namespace(cluster, ns)
    cluster.kubectl(
        "-n", ns, "create", "quota", "objects",
        "--hard=configmaps=2,count/deployments.apps=1,services.nodeports=1,count/secrets=5",
    )  # fmt: skip
    # the namespace's kube-root-ca.crt is a config map already
    wait_used(
        cluster, ns, "objects",
        {"configmaps": "1", "count/deployments.apps": "0", "count/secrets": "0", "services.nodeports": "0"},
    )  # fmt: skip
    cluster.kubectl("-n", ns, "create", "configmap", "c1")
    second = cluster.kubectl("-n", ns, "create", "configmap", "c2", check=False)
    assert second.stderr == (
        'error: failed to create configmap: configmaps "c2" is forbidden: exceeded quota: objects, '
        "requested: configmaps=1, used: configmaps=2, limited: configmaps=2\n"
    )
    cluster.kubectl("-n", ns, "create", "deployment", "one", "--image=nginx", "--replicas=0")
    other = cluster.kubectl("-n", ns, "create", "deployment", "two", "--image=nginx", check=False)
    assert other.stderr == (
        'error: failed to create deployment: deployments.apps "two" is forbidden: exceeded quota: objects, '
        "requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1\n"
    )
    ports = cluster.kubectl("-n", ns, "create", "service", "nodeport", "web", "--tcp=80:80,443:443", check=False)
    assert ports.stderr == (
        'error: failed to create NodePort service: services "web" is forbidden: exceeded quota: objects, '
        "requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1\n"
    )
    wait_used(
        cluster, ns, "objects",
        {"configmaps": "2", "count/deployments.apps": "1", "count/secrets": "0", "services.nodeports": "0"},
    )  # fmt: skip
    cluster.kubectl("-n", ns, "create", "secret", "generic", "s", "--from-literal=a=b")
    wait_used(
        cluster, ns, "objects",
        {"configmaps": "2", "count/deployments.apps": "1", "count/secrets": "1", "services.nodeports": "0"},
    )  # fmt: skip


def test_deployment_over_quota_reports_replica_failure(cluster: KubeliteProcess) -> None:
    ns = "quota-deploy"
    namespace(cluster, ns)
    cluster.kubectl("-n", ns, "create", "quota", "q", "--hard=pods=1")
    wait_used(cluster, ns, "q", {"pods": "0"})
    cluster.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=3")
    refusal = re.compile(
        r'pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: q, '
        r"requested: pods=1, used: pods=1, limited: pods=1"
    )

    def failed_create() -> list[Any]:
        events = cluster.http("GET", f"/api/v1/namespaces/{ns}/events").json()["items"]
        return [
            e for e in events
            if e["involvedObject"]["kind"] == "ReplicaSet" and e["reason"] == "FailedCreate"
        ]  # fmt: skip

    event = wait_for("the ReplicaSet's FailedCreate event", failed_create)[0]
    assert event["type"] == "Warning"
    assert event["source"] == {"component": "replicaset-controller"}
    assert re.fullmatch("Error creating: " + refusal.pattern, event["message"]), event["message"]

    def replica_failure() -> dict[str, Any] | None:
        deployment = cluster.http("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/web").json()
        found = [c for c in (deployment.get("status") or {}).get("conditions") or [] if c["type"] == "ReplicaFailure"]
        return found[0] if found else None

    condition = wait_for("the Deployment's ReplicaFailure condition", replica_failure)
    assert (condition["status"], condition["reason"]) == ("True", "FailedCreate")
    assert refusal.fullmatch(condition["message"]), condition["message"]
    wait_used(cluster, ns, "q", {"pods": "1"})
    pods = cluster.http("GET", f"/api/v1/namespaces/{ns}/pods").json()["items"]
    assert len(pods) == 1


def test_scoped_quota_and_claims_by_storage_class(cluster: KubeliteProcess) -> None:
    ns = "quota-scopes"
    namespace(cluster, ns)
    cluster.kubectl("-n", ns, "create", "quota", "besteffort", "--hard=pods=1", "--scopes=BestEffort")
    gold = "gold.storageclass.storage.k8s.io/persistentvolumeclaims"
    cluster.kubectl("-n", ns, "create", "quota", "storage", f"--hard=requests.storage=3Gi,{gold}=1")
    wait_used(cluster, ns, "besteffort", {"pods": "0"})
    wait_used(cluster, ns, "storage", {gold: "0", "requests.storage": "0"})

    cluster.kubectl("-n", ns, "run", "free", "--image=nginx")
    second = cluster.kubectl("-n", ns, "run", "free2", "--image=nginx", check=False)
    assert second.stderr == (
        'Error from server (Forbidden): pods "free2" is forbidden: exceeded quota: besteffort, '
        "requested: pods=1, used: pods=1, limited: pods=1\n"
    )
    # a pod with requests is outside the BestEffort scope
    cluster.kubectl("-n", ns, "create", "-f", "-", input=pod_manifest("burstable", "100m"))
    wait_used(cluster, ns, "besteffort", {"pods": "1"})

    def claim(name: str, storage_class: str, size: str) -> str:
        return json.dumps({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name},
            "spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": size}}},
        })  # fmt: skip

    cluster.kubectl("-n", ns, "create", "-f", "-", input=claim("gold-1", "gold", "1Gi"))
    refused = cluster.kubectl("-n", ns, "create", "-f", "-", input=claim("gold-2", "gold", "1Gi"), check=False)
    assert refused.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "gold-2" is forbidden: '
        f"exceeded quota: storage, requested: {gold}=1, used: {gold}=1, limited: {gold}=1\n"
    )
    cluster.kubectl("-n", ns, "create", "-f", "-", input=claim("silver", "silver", "1536Mi"))
    wait_used(cluster, ns, "storage", {gold: "1", "requests.storage": "2560Mi"})
    too_big = cluster.kubectl("-n", ns, "create", "-f", "-", input=claim("big", "silver", "1Gi"), check=False)
    assert too_big.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "big" is forbidden: '
        "exceeded quota: storage, requested: requests.storage=1Gi, used: requests.storage=2560Mi, "
        "limited: requests.storage=3Gi\n"
    )
