"""PodDisruptionBudgets end to end: the disruption controller keeps their status, evictions spend it, and
`kubectl drain` stops where the budget says, as on a real cluster."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

CONTROLLERS = (
    "--controllers=disruption-controller,namespace-controller,serviceaccount-controller,"
    "root-ca-certificate-publisher-controller,pod-termination-controller,garbage-collector-controller"
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    args = ["--nodes=0", "--scheduler=false", CONTROLLERS]
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=args).start()
    yield proc
    proc.stop()


def wait_for(what: str, probe: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def ready_node(cluster: KubeliteProcess, name: str) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    assert cluster.http("POST", "/api/v1/nodes", node).status == 201


def running_pod(cluster: KubeliteProcess, name: str, node: str, labels: dict[str, str]) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
    }
    assert cluster.http("POST", "/api/v1/namespaces/default/pods", pod).status == 201
    status = {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    patched = cluster.http("PATCH", f"/api/v1/namespaces/default/pods/{name}/status", status,
                           headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert patched.status == 200


def pdb_status(cluster: KubeliteProcess, name: str) -> dict[str, Any]:
    got = cluster.http("GET", f"/apis/policy/v1/namespaces/default/poddisruptionbudgets/{name}")
    return dict(got.json().get("status") or {})


def test_the_controller_counts_healthy_pods_and_kubectl_shows_the_allowance(cluster: KubeliteProcess) -> None:
    ready_node(cluster, "count-node")
    for name in ("count-a", "count-b"):
        running_pod(cluster, name, "count-node", {"app": "count"})
    cluster.kubectl("create", "pdb", "count", "--selector=app=count", "--min-available=1")
    status = wait_for("the budget's status", lambda: (s := pdb_status(cluster, "count")).get("expectedPods") and s)
    assert {k: status[k] for k in ("expectedPods", "desiredHealthy", "currentHealthy", "disruptionsAllowed")} == {
        "expectedPods": 2,
        "desiredHealthy": 1,
        "currentHealthy": 2,
        "disruptionsAllowed": 1,
    }
    assert status["observedGeneration"] == 1
    table = cluster.kubectl("get", "pdb", "count").stdout.splitlines()
    assert table[0].split() == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"]
    assert table[1].split()[:4] == ["count", "1", "N/A", "1"]


def test_drain_evicts_what_the_budget_allows_and_retries_the_rest(cluster: KubeliteProcess) -> None:
    ready_node(cluster, "drain-node")
    for name in ("drain-a", "drain-b"):
        running_pod(cluster, name, "drain-node", {"app": "drain"})
    cluster.kubectl("create", "pdb", "drain", "--selector=app=drain", "--min-available=1")
    wait_for("the allowance", lambda: pdb_status(cluster, "drain").get("disruptionsAllowed") == 1)
    result = cluster.kubectl("drain", "drain-node", "--force", "--grace-period=1", "--timeout=8s", check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "node/drain-node cordoned" in result.stdout
    node = cluster.http("GET", "/api/v1/nodes/drain-node").json()
    assert node["spec"]["unschedulable"] is True
    # kubectl evicts both at once: one goes (its 1 s grace period over), the budget holds the other
    pods = ("drain-a", "drain-b")
    left = [n for n in pods if cluster.http("GET", f"/api/v1/namespaces/default/pods/{n}").status == 200]
    assert len(left) == 1, left
    assert (
        f'error when evicting pods/"{left[0]}" -n "default" (will retry after 5s): '
        "Cannot evict pod as it would violate the pod's disruption budget." in result.stderr
    ), result.stderr
    status = wait_for("the recount", lambda: (s := pdb_status(cluster, "drain")).get("currentHealthy") == 1 and s)
    assert (status["disruptionsAllowed"], status.get("disruptedPods")) == (0, None)
