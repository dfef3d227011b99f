"""The garbage collector: dependents of a deleted owner go (Background), lose their owner reference
(Orphan), or go before their owner (Foreground); a dependent whose owner never existed is collected."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

NS = "gc"


@pytest.fixture(scope="module", autouse=True)
def _namespace(server: KubeliteProcess) -> None:
    create_namespace(server, NS)


def _deployment(server: KubeliteProcess, name: str) -> str:
    body = {
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    result = server.http("POST", f"/apis/apps/v1/namespaces/{NS}/deployments", body)
    assert result.status == 201, result.body
    return str(result.json()["metadata"]["uid"])


def _child(server: KubeliteProcess, name: str, owner: str, owner_uid: str) -> None:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": owner, "uid": owner_uid, "blockOwnerDeletion": True}
    body = {"metadata": {"name": name, "ownerReferences": [ref]}, "data": {"k": "v"}}
    result = server.http("POST", f"/api/v1/namespaces/{NS}/configmaps", body)
    assert result.status == 201, result.body


def _get(server: KubeliteProcess, path: str) -> tuple[int, Any]:
    result = server.http("GET", path)
    return result.status, result.json() if result.status == 200 else None


def _eventually(check: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def _gone(server: KubeliteProcess, path: str) -> bool:
    return server.http("GET", path).status == 404


def test_background_deletes_dependents(server: KubeliteProcess) -> None:
    uid = _deployment(server, "bg")
    _child(server, "bg-child", "bg", uid)
    assert server.kubectl("delete", "-n", NS, "deployment", "bg", "--cascade=background").returncode == 0
    _eventually(lambda: _gone(server, f"/api/v1/namespaces/{NS}/configmaps/bg-child"))


def test_orphan_keeps_dependents_without_the_owner_reference(server: KubeliteProcess) -> None:
    uid = _deployment(server, "orph")
    _child(server, "orph-child", "orph", uid)
    server.kubectl("delete", "-n", NS, "deployment", "orph", "--cascade=orphan")
    _eventually(lambda: _gone(server, f"/apis/apps/v1/namespaces/{NS}/deployments/orph"))
    status, child = _get(server, f"/api/v1/namespaces/{NS}/configmaps/orph-child")
    assert status == 200
    assert "ownerReferences" not in child["metadata"]


def test_foreground_deletes_dependents_first(server: KubeliteProcess) -> None:
    uid = _deployment(server, "fg")
    _child(server, "fg-child", "fg", uid)
    # a finalizer on the child holds it, so the owner must wait in foreground deletion
    server.http(
        "PATCH",
        f"/api/v1/namespaces/{NS}/configmaps/fg-child",
        {"metadata": {"finalizers": ["example.com/hold"]}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    held = server.http("DELETE", f"/apis/apps/v1/namespaces/{NS}/deployments/fg", {"propagationPolicy": "Foreground"})
    assert held.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    _eventually(
        lambda: (
            _get(server, f"/api/v1/namespaces/{NS}/configmaps/fg-child")[1]["metadata"].get("deletionTimestamp")
            is not None
        )
    )
    status, owner = _get(server, f"/apis/apps/v1/namespaces/{NS}/deployments/fg")
    assert (status, owner["metadata"]["finalizers"]) == (200, ["foregroundDeletion"])
    server.http(
        "PATCH",
        f"/api/v1/namespaces/{NS}/configmaps/fg-child",
        {"metadata": {"finalizers": None}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    _eventually(lambda: _gone(server, f"/api/v1/namespaces/{NS}/configmaps/fg-child"))
    _eventually(lambda: _gone(server, f"/apis/apps/v1/namespaces/{NS}/deployments/fg"))


def test_dependent_of_a_missing_owner_is_collected(server: KubeliteProcess) -> None:
    _child(server, "stray", "never-was", "00000000-0000-0000-0000-000000000000")
    _eventually(lambda: _gone(server, f"/api/v1/namespaces/{NS}/configmaps/stray"))


def test_dependent_with_a_live_owner_stays(server: KubeliteProcess) -> None:
    uid = _deployment(server, "alive")
    _child(server, "alive-child", "alive", uid)
    # the collector has had its chance: a later stray ConfigMap (its owner never existed) is collected, and the
    # collector handles the ConfigMaps' events in order
    _child(server, "alive-sentinel", "never-was", "00000000-0000-0000-0000-000000000000")
    _eventually(lambda: _gone(server, f"/api/v1/namespaces/{NS}/configmaps/alive-sentinel"))
    assert _get(server, f"/api/v1/namespaces/{NS}/configmaps/alive-child")[0] == 200
