"""What kube-controller-manager's loops keep true, seen through the API: a deleted `default` ServiceAccount
comes back (serviceaccounts controller); a deleted or edited `kube-root-ca.crt` comes back with the cluster
CA (root-ca-cert-publisher); a gracefully deleted pod goes once its grace period is over (the kubelet's last
step, which kubelite stands in for)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters."
)
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def _get(server: KubeliteProcess, path: str) -> Any:
    result = server.http("GET", path)
    return result.json() if result.status == 200 else None


def _eventually(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def _ca(server: KubeliteProcess) -> str:
    return (server.data_dir / "pki" / "ca.crt").read_text()


def _replaced(server: KubeliteProcess, path: str, uid: str) -> Any:
    """The object at `path` once it is another than the one of `uid`."""

    def check() -> Any:
        current = _get(server, path)
        return current if current is not None and current["metadata"]["uid"] != uid else None

    return _eventually(check)


def test_a_deleted_default_service_account_comes_back(server: KubeliteProcess) -> None:
    create_namespace(server, "ctl-sa")
    path = "/api/v1/namespaces/ctl-sa/serviceaccounts/default"
    before = _get(server, path)["metadata"]["uid"]
    deleted = server.kubectl("delete", "-n", "ctl-sa", "serviceaccount", "default")
    expected = 'serviceaccount "default" deleted from ctl-sa namespace\n'
    assert (deleted.returncode, deleted.stdout) == (0, expected)
    after = _replaced(server, path, before)
    assert (after["metadata"]["name"], after["metadata"]["namespace"]) == ("default", "ctl-sa")


def test_a_deleted_root_ca_config_map_comes_back(server: KubeliteProcess) -> None:
    create_namespace(server, "ctl-ca-deleted")
    path = "/api/v1/namespaces/ctl-ca-deleted/configmaps/kube-root-ca.crt"
    before = _get(server, path)["metadata"]["uid"]
    assert server.http("DELETE", path).status == 200
    after = _replaced(server, path, before)
    assert (after["data"], after["metadata"]["annotations"]) == (
        {"ca.crt": _ca(server)},
        {"kubernetes.io/description": DESCRIPTION},
    )


@pytest.mark.parametrize(
    ("namespace", "patch", "annotations"),
    [
        ("ctl-ca-changed", {"data": {"ca.crt": "forged"}}, {"kubernetes.io/description": DESCRIPTION}),
        ("ctl-ca-added", {"data": {"extra": "x"}}, {"kubernetes.io/description": DESCRIPTION}),
        (
            "ctl-ca-undescribed",
            {"metadata": {"annotations": {"kubernetes.io/description": None, "team": "a"}}},
            {"kubernetes.io/description": DESCRIPTION, "team": "a"},
        ),
    ],
    ids=["changed-ca", "added-key", "removed-description"],
)
def test_an_edited_root_ca_config_map_is_restored(
    server: KubeliteProcess, namespace: str, patch: dict[str, Any], annotations: dict[str, str]
) -> None:
    create_namespace(server, namespace)
    path = f"/api/v1/namespaces/{namespace}/configmaps/kube-root-ca.crt"
    edited = server.http("PATCH", path, patch, headers=MERGE_PATCH)
    assert edited.status == 200, edited.body
    edited_version = edited.json()["metadata"]["resourceVersion"]

    def restored_version() -> Any:
        current = _get(server, path)
        return current if current["metadata"]["resourceVersion"] != edited_version else None

    restored = _eventually(restored_version)
    assert (restored["data"], restored["metadata"]["annotations"]) == ({"ca.crt": _ca(server)}, annotations)


def test_a_gracefully_deleted_pod_goes_after_its_grace_period(server: KubeliteProcess) -> None:
    create_namespace(server, "ctl-pods")
    pods = "/api/v1/namespaces/ctl-pods/pods"
    # scheduled: an unscheduled pod would be deleted at once, whatever the grace period
    spec = {"nodeName": "node-1", "containers": [{"name": "c", "image": "i"}]}
    body = {"metadata": {"name": "p"}, "spec": spec}
    assert server.http("POST", pods, body).status == 201
    marked = server.http("DELETE", f"{pods}/p", {"gracePeriodSeconds": 2})
    assert (marked.status, marked.json()["metadata"]["deletionGracePeriodSeconds"]) == (200, 2)
    deadline = datetime.fromisoformat(marked.json()["metadata"]["deletionTimestamp"].replace("Z", "+00:00"))
    time.sleep(0.5)  # the deadline has second precision: it is at least a second away
    assert server.http("GET", f"{pods}/p").status == 200
    _eventually(lambda: server.http("GET", f"{pods}/p").status == 404, timeout=5)
    # the positive side of "not before its grace period": it went, and not before its deadline (server and
    # test read the same machine's clock)
    assert datetime.now(UTC) >= deadline
