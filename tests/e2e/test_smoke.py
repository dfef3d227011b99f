"""The server starts, answers health and version, and kubectl sees a cluster."""

from __future__ import annotations

from tests.e2e.server import KubeliteProcess


def test_healthz_and_version(server: KubeliteProcess) -> None:
    assert server.http("GET", "/healthz").body == b"ok"
    version = server.http("GET", "/version").json()
    assert (version["major"], version["minor"]) == ("1", "36")


def test_kubectl_get_namespaces(server: KubeliteProcess) -> None:
    out = server.kubectl("get", "namespaces", "-o", "name").stdout.split()
    assert out == ["namespace/default", "namespace/kube-node-lease", "namespace/kube-public", "namespace/kube-system"]
