"""A ResourceQuota's usage as kube's evaluators count it: pods (terminal, terminating, init containers,
sidecars, overhead), scopes, services, claims by storage class, and object counts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubelite.controllers.resourcequota.usage import GroupResource, quota_status

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def quota(hard: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "q", "namespace": "ns"}, "spec": {"hard": hard, **spec}}


def pod(name: str, requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, **extra: Any) -> Any:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    spec = {"containers": [{"name": "c", "image": "nginx", "resources": resources}], **extra.pop("spec", {})}
    return {"metadata": {"name": name, "namespace": "ns", **extra.pop("metadata", {})}, "spec": spec, **extra}


def deleted(at: str, grace: int) -> dict[str, Any]:
    return {"deletionTimestamp": at, "deletionGracePeriodSeconds": grace}


def status_of(q: dict[str, Any], objects: dict[GroupResource, list[Any]]) -> dict[str, Any]:
    return quota_status(q, lambda gr: objects.get(gr, []), NOW)


def test_hard_is_spec_and_used_starts_at_zero() -> None:
    q = quota({"pods": "2", "requests.cpu": "1", "services": "1", "configmaps": "3", "count/deployments.apps": "1"})
    assert status_of(q, {}) == {
        "hard": {"configmaps": "3", "count/deployments.apps": "1", "pods": "2", "requests.cpu": "1", "services": "1"},
        "used": {"configmaps": "0", "count/deployments.apps": "0", "pods": "0", "requests.cpu": "0", "services": "0"},
    }


def test_pods_sum_requests_and_limits_in_canonical_form() -> None:
    q = quota({"pods": "10", "cpu": "4", "requests.memory": "4Gi", "limits.cpu": "4", "limits.memory": "8Gi"})
    pods = [
        pod("a", {"cpu": "250m", "memory": "512Mi"}, {"cpu": "500m", "memory": "1Gi"}),
        pod("b", {"cpu": "750m", "memory": "512Mi"}, {"cpu": "1", "memory": "1Gi"}),
    ]
    assert status_of(q, {("", "pods"): pods})["used"] == {
        "cpu": "1",
        "limits.cpu": "1500m",
        "limits.memory": "2Gi",
        "pods": "2",
        "requests.memory": "1Gi",
    }


def test_terminal_and_expired_terminating_pods_count_only_as_objects() -> None:
    q = quota({"pods": "10", "count/pods": "10", "requests.cpu": "4"})
    pods = [
        pod("running", {"cpu": "1"}),
        pod("done", {"cpu": "1"}, status={"phase": "Succeeded"}),
        pod("failed", {"cpu": "1"}, status={"phase": "Failed"}),
        pod("gone", {"cpu": "1"}, metadata=deleted("2026-01-01T11:59:00Z", 30)),
        pod("going", {"cpu": "1"}, metadata=deleted("2026-01-01T12:00:10Z", 30)),
    ]
    assert status_of(q, {("", "pods"): pods})["used"] == {"count/pods": "5", "pods": "2", "requests.cpu": "2"}


def test_init_containers_sidecars_and_overhead() -> None:
    spec = {
        "initContainers": [
            {"name": "setup", "resources": {"requests": {"cpu": "2"}}},
            {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
        ],
        "overhead": {"cpu": "50m"},
    }
    q = quota({"requests.cpu": "10"})
    # the sum (1 + 100m sidecar) is below the first init container's 2: 2, plus the overhead
    assert status_of(q, {("", "pods"): [pod("p", {"cpu": "1"}, spec=spec)]})["used"] == {"requests.cpu": "2050m"}


def test_scopes_select_pods() -> None:
    pods = [
        pod("besteffort"),
        pod("burstable", {"cpu": "100m"}),
        pod("deadline", {"cpu": "200m"}, spec={"activeDeadlineSeconds": 60}),
        pod("high", {"cpu": "300m"}, spec={"priorityClassName": "high"}),
    ]
    objects: dict[GroupResource, list[Any]] = {("", "pods"): pods}
    assert status_of(quota({"pods": "9"}, scopes=["BestEffort"]), objects)["used"] == {"pods": "1"}
    assert status_of(quota({"pods": "9"}, scopes=["NotBestEffort"]), objects)["used"] == {"pods": "3"}
    assert status_of(quota({"pods": "9"}, scopes=["Terminating"]), objects)["used"] == {"pods": "1"}
    assert status_of(quota({"pods": "9"}, scopes=["NotTerminating", "NotBestEffort"]), objects)["used"] == {"pods": "2"}
    selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}
    assert status_of(quota({"requests.cpu": "9"}, scopeSelector=selector), objects)["used"] == {"requests.cpu": "300m"}
    not_in = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "NotIn", "values": ["high"]}]}
    assert status_of(quota({"pods": "9"}, scopeSelector=not_in), objects)["used"] == {"pods": "3"}


def test_services_node_ports_and_load_balancers() -> None:
    services = [
        {"metadata": {"name": "a"}, "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}},
        {"metadata": {"name": "b"}, "spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 443}]}},
        {"metadata": {"name": "c"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}},
        {
            "metadata": {"name": "d"},
            "spec": {
                "type": "LoadBalancer",
                "allocateLoadBalancerNodePorts": False,
                "ports": [{"port": 80}, {"port": 81, "nodePort": 30001}],
            },
        },
    ]
    q = quota({"services": "9", "count/services": "9", "services.nodeports": "9", "services.loadbalancers": "9"})
    assert status_of(q, {("", "services"): services})["used"] == {
        "count/services": "4",
        "services": "4",
        "services.loadbalancers": "2",
        "services.nodeports": "4",
    }


def test_claims_by_storage_class() -> None:
    gold = ".storageclass.storage.k8s.io/"
    claims = [
        {"metadata": {"name": "a"},
         "spec": {"storageClassName": "gold", "resources": {"requests": {"storage": "1Gi"}}}},
        {
            "metadata": {"name": "b", "annotations": {"volume.beta.kubernetes.io/storage-class": "gold"}},
            "spec": {"resources": {"requests": {"storage": "512Mi"}}},
        },
        {"metadata": {"name": "c"}, "spec": {"resources": {"requests": {"storage": "2Gi"}}},
         "status": {"allocatedResources": {"storage": "3Gi"}}},
    ]  # fmt: skip
    q = quota({"persistentvolumeclaims": "9", "requests.storage": "9Gi", f"gold{gold}requests.storage": "9Gi",
               f"gold{gold}persistentvolumeclaims": "9"})  # fmt: skip
    assert status_of(q, {("", "persistentvolumeclaims"): claims})["used"] == {
        f"gold{gold}persistentvolumeclaims": "2",
        f"gold{gold}requests.storage": "1536Mi",
        "persistentvolumeclaims": "3",
        "requests.storage": "4608Mi",
    }


def test_object_counts_and_unserved_resources() -> None:
    q = quota({"secrets": "9", "count/secrets": "9", "count/widgets.example.com": "9"})
    secrets = [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]

    def objects(gr: GroupResource) -> list[Any] | None:
        return secrets if gr == ("", "secrets") else None  # widgets cannot be listed

    old = {"used": {"count/widgets.example.com": "4"}}
    got = quota_status({**q, "status": old}, objects, NOW)
    # what cannot be observed keeps its last recorded value, as kube's controller keeps it
    assert got["used"] == {"count/secrets": "2", "count/widgets.example.com": "4", "secrets": "2"}


def test_used_drops_what_hard_no_longer_names() -> None:
    recorded = {"hard": {"pods": "2", "secrets": "1"}, "used": {"pods": "1", "secrets": "1"}}
    q = {**quota({"pods": "2"}), "status": recorded}
    assert status_of(q, {}) == {"hard": {"pods": "2"}, "used": {"pods": "0"}}
