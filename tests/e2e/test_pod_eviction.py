"""pods/eviction: kube's EvictionREST, a deletion that spends a PodDisruptionBudget's allowance, over raw HTTP."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.server import KubeliteProcess

NS = "default"
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


def make_pod(server: KubeliteProcess, name: str, *, labels: dict[str, str], ready: bool = True,
             phase: str = "Running") -> dict[str, Any]:  # fmt: skip
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    created = server.http("POST", f"/api/v1/namespaces/{NS}/pods", pod)
    assert created.status == 201, created.body
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    patched = server.http(
        "PATCH",
        f"/api/v1/namespaces/{NS}/pods/{name}/status",
        {"status": status},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status == 200, patched.body
    return dict(patched.json())


def make_pdb(server: KubeliteProcess, name: str, *, labels: dict[str, str], status: dict[str, Any],
             **spec: Any) -> dict[str, Any]:  # fmt: skip
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": labels}, "minAvailable": 1, **spec},
    }
    created = server.http("POST", f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets", pdb)
    assert created.status == 201, created.body
    generation = created.json()["metadata"]["generation"]
    patched = server.http(
        "PATCH",
        f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets/{name}/status",
        {"status": {"observedGeneration": generation, "expectedPods": 1, **status}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status == 200, patched.body
    return dict(patched.json())


def evict(server: KubeliteProcess, name: str, body: dict[str, Any] | None = None, query: str = "") -> Any:
    eviction = body or {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": NS}}
    return server.http("POST", f"/api/v1/namespaces/{NS}/pods/{name}/eviction{query}", eviction)


def pdb_status(server: KubeliteProcess, name: str) -> dict[str, Any]:
    got = server.http("GET", f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets/{name}")
    return dict(got.json()["status"])


def gone(server: KubeliteProcess, name: str) -> bool:
    return server.http("GET", f"/api/v1/namespaces/{NS}/pods/{name}").status == 404


SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def test_a_pod_no_budget_covers_is_deleted(server: KubeliteProcess) -> None:
    make_pod(server, "free", labels={"app": "free"})
    got = evict(server, "free")
    assert (got.status, got.json()) == (201, SUCCESS)
    assert gone(server, "free")


def test_discovery_lists_the_eviction_subresource_as_kube_does(server: KubeliteProcess) -> None:
    resources = server.http("GET", "/api/v1").json()["resources"]
    entry = next(r for r in resources if r["name"] == "pods/eviction")
    assert entry == {
        "name": "pods/eviction",
        "singularName": "",
        "namespaced": True,
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
        "verbs": ["create"],
    }


def test_a_budget_without_allowance_refuses_with_429_and_its_counts(server: KubeliteProcess) -> None:
    make_pod(server, "held", labels={"app": "held"})
    make_pdb(server, "held", labels={"app": "held"},
             status={"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1})  # fmt: skip
    got = evict(server, "held")
    assert got.status == 429
    assert "retry-after" not in got.headers
    assert got.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": VIOLATION,
        "reason": "TooManyRequests",
        "details": {
            "causes": [
                {
                    "reason": "DisruptionBudget",
                    "message": "The disruption budget held needs 1 healthy pods and has 1 currently",
                }
            ]
        },
        "code": 429,
    }
    assert not gone(server, "held")


def test_an_allowed_eviction_spends_the_allowance_and_records_the_pod(server: KubeliteProcess) -> None:
    make_pod(server, "spend", labels={"app": "spend"})
    make_pdb(server, "spend", labels={"app": "spend"},
             status={"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1})  # fmt: skip
    got = evict(server, "spend")
    assert (got.status, got.json()) == (201, SUCCESS)
    assert gone(server, "spend")
    status = pdb_status(server, "spend")
    assert status["disruptionsAllowed"] == 0
    assert list(status["disruptedPods"]) == ["spend"]
    [condition] = status["conditions"]
    assert {k: condition[k] for k in ("type", "status", "reason", "message")} == {
        "type": "DisruptionAllowed",
        "status": "False",
        "reason": "InsufficientPods",
        "message": "",
    }


def test_a_budget_not_yet_observed_asks_to_retry_after_ten_seconds(server: KubeliteProcess) -> None:
    make_pod(server, "stale", labels={"app": "stale"})
    make_pdb(server, "stale", labels={"app": "stale"}, status={"disruptionsAllowed": 5})
    changed = server.http(
        "PATCH",
        f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets/stale",
        {"spec": {"minAvailable": 2}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert changed.json()["metadata"]["generation"] == 2
    got = evict(server, "stale")
    assert got.status == 429
    assert got.headers["retry-after"] == "10"
    assert got.json()["details"] == {
        "causes": [
            {
                "reason": "DisruptionBudget",
                "message": "The disruption budget stale is still being processed by the server.",
            }
        ],
        "retryAfterSeconds": 10,
    }


def test_pending_and_unready_pods_do_not_spend_a_healthy_budget(server: KubeliteProcess) -> None:
    make_pdb(server, "calm", labels={"app": "calm"},
             status={"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2})  # fmt: skip
    make_pod(server, "calm-pending", labels={"app": "calm"}, phase="Pending", ready=False)
    make_pod(server, "calm-unready", labels={"app": "calm"}, ready=False)
    for name in ("calm-pending", "calm-unready"):
        got = evict(server, name)
        assert (got.status, got.json()) == (201, SUCCESS), name
        assert gone(server, name)
    assert pdb_status(server, "calm")["disruptionsAllowed"] == 0


def test_two_budgets_over_one_pod_are_not_supported(server: KubeliteProcess) -> None:
    make_pod(server, "twice", labels={"app": "twice", "tier": "web"})
    make_pdb(server, "twice-a", labels={"app": "twice"}, status={"disruptionsAllowed": 1})
    make_pdb(server, "twice-b", labels={"tier": "web"}, status={"disruptionsAllowed": 1})
    got = evict(server, "twice")
    assert got.status == 500
    assert got.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        "code": 500,
    }


def test_an_eviction_naming_another_pod_is_400(server: KubeliteProcess) -> None:
    make_pod(server, "named", labels={"app": "named"})
    got = evict(server, "named", {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}})
    assert got.status == 400, got.body
    assert (got.json()["reason"], got.json()["message"]) == (
        "BadRequest",
        "name in URL does not match name in Eviction object",
    )
    assert not gone(server, "named")


def test_a_dry_run_eviction_leaves_pod_and_budget_alone(server: KubeliteProcess) -> None:
    make_pod(server, "dry", labels={"app": "dry"})
    make_pdb(server, "dry", labels={"app": "dry"}, status={"disruptionsAllowed": 1})
    got = evict(server, "dry", query="?dryRun=All")
    assert (got.status, got.json()) == (201, SUCCESS)
    assert not gone(server, "dry")
    assert pdb_status(server, "dry")["disruptionsAllowed"] == 1
    assert json.loads(server.http("GET", f"/api/v1/namespaces/{NS}/pods/dry").body)["metadata"]["name"] == "dry"
