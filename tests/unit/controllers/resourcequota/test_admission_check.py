"""The ResourceQuota admission check: kube's refusals, texts and the usage charged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubelite.controllers.resourcequota.admission import check_request

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def quota(name: str, hard: dict[str, str], used: dict[str, str] | None, **spec: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"hard": hard}
    if used is not None:
        status["used"] = used
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "7"}, "spec": {"hard": hard, **spec},
            "status": status}  # fmt: skip


def pod(cpu: str | None = "100m", name: str = "p", **spec: Any) -> dict[str, Any]:
    resources = {"requests": {"cpu": cpu}} if cpu is not None else {}
    return {"metadata": {"name": name, "namespace": "ns"},
            "spec": {"containers": [{"name": "app", "resources": resources}], **spec}}  # fmt: skip


def create(quotas: list[Any], obj: Any, resource: str = "pods", group: str = "") -> Any:
    return check_request(quotas, "CREATE", group, resource, "", obj, None, NOW)


def test_pod_within_quota_is_charged() -> None:
    q = quota("q", {"pods": "2", "requests.cpu": "1"}, {"pods": "1", "requests.cpu": "500m"})
    verdict = create([q], pod("200m"))
    assert verdict.refusal is None
    assert verdict.charged == {0: {"pods": "2", "requests.cpu": "700m"}}


def test_exceeded_quota_names_only_the_exceeded_resources() -> None:
    q = quota("q", {"pods": "2", "requests.cpu": "1"}, {"pods": "2", "requests.cpu": "500m"})
    assert create([q], pod("100m")).refusal == "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"
    q = quota("q", {"pods": "5", "requests.cpu": "1"}, {"pods": "2", "requests.cpu": "800m"})
    assert create([q], pod("300m")).refusal == (
        "exceeded quota: q, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1"
    )


def test_pod_without_the_quota_d_requests() -> None:
    q = quota("q", {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"}, {"pods": "0"})
    assert create([q], pod(None, name="x")).refusal == (
        "failed quota: q: must specify limits.memory for: app; requests.cpu for: app"
    )


def test_unknown_status_is_refused() -> None:
    q = quota("q", {"pods": "2"}, None)
    assert create([q], pod()).refusal == "status unknown for quota: q, resources: pods"


def test_scoped_quota_ignores_other_pods_and_other_kinds() -> None:
    q = quota("q", {"pods": "0"}, {"pods": "0"}, scopes=["Terminating"])
    assert create([q], pod()).refusal is None and create([q], pod()).charged == {}
    assert create([q], pod(activeDeadlineSeconds=5)).refusal is not None
    svc = quota("s", {"services": "1"}, {"services": "1"})
    assert create([svc], {"metadata": {"name": "x"}, "spec": {}}, "configmaps").refusal is None


def test_object_count_of_any_resource() -> None:
    q = quota("q", {"count/deployments.apps": "1"}, {"count/deployments.apps": "1"})
    assert create([q], {"metadata": {"name": "d"}}, "deployments", "apps").refusal == (
        "exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, "
        "limited: count/deployments.apps=1"
    )


def test_service_update_is_charged_only_its_growth() -> None:
    q = quota("q", {"services.nodeports": "2"}, {"services.nodeports": "1"})
    old = {"metadata": {"name": "s", "resourceVersion": "3"}, "spec": {"type": "NodePort", "ports": [{"port": 1}]}}
    new = {"metadata": {"name": "s"}, "spec": {"type": "NodePort", "ports": [{"port": 1}, {"port": 2}]}}
    verdict = check_request([q], "UPDATE", "", "services", "", new, old, NOW)
    assert verdict.refusal is None and verdict.charged == {0: {"services.nodeports": "2"}}
    same = check_request([q], "UPDATE", "", "services", "", old, old, NOW)
    assert same.refusal is None and same.charged == {}
