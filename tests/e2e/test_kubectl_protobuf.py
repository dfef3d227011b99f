"""kubectl commands whose typed clients speak protobuf: the `create` generators, `autoscale`, `auth can-i`,
`auth whoami`, and a protobuf watch read back over raw HTTP."""

from __future__ import annotations

import http.client
import json

import pytest

from kubelite.apimachinery import protobuf
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

NS = "generated"


@pytest.fixture(scope="module", autouse=True)
def _namespace(server: KubeliteProcess) -> None:
    create_namespace(server, NS)


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        (("deployment", "web", "--image=nginx:1.27", "--replicas=2"), "deployment.apps/web created"),
        (("configmap", "settings", "--from-literal=mode=fast"), "configmap/settings created"),
        (("secret", "generic", "creds", "--from-literal=password=s3cr3t"), "secret/creds created"),
        (("service", "clusterip", "web", "--tcp=80:8080"), "service/web created"),
        (("job", "once", "--image=busybox"), "job.batch/once created"),
        (("cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"), "cronjob.batch/tick created"),
        (("serviceaccount", "robot"), "serviceaccount/robot created"),
        (("role", "reader", "--verb=get", "--resource=pods"), "role.rbac.authorization.k8s.io/reader created"),
        (
            ("rolebinding", "reader", "--role=reader", "--serviceaccount=generated:robot"),
            "rolebinding.rbac.authorization.k8s.io/reader created",
        ),
        (("quota", "small", "--hard=pods=5"), "resourcequota/small created"),
        (
            ("poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"),
            "poddisruptionbudget.policy/web created",
        ),
    ],
    ids=lambda v: v[0] if isinstance(v, tuple) else None,
)
def test_create_generators(server: KubeliteProcess, args: tuple[str, ...], printed: str) -> None:
    result = server.kubectl("create", "-n", NS, *args)
    assert result.stdout == printed + "\n"


def test_generated_objects_read_back(server: KubeliteProcess) -> None:
    server.kubectl("create", "-n", NS, "configmap", "readback", "--from-literal=k=v")
    got = json.loads(server.kubectl("get", "-n", NS, "configmap", "readback", "-o", "json").stdout)
    assert got["data"] == {"k": "v"}
    server.kubectl("create", "-n", NS, "secret", "generic", "bin", "--from-literal=p=q")
    secret = json.loads(server.kubectl("get", "-n", NS, "secret", "bin", "-o", "json").stdout)
    assert (secret["type"], secret["data"]) == ("Opaque", {"p": "cQ=="})
    server.kubectl("create", "-n", NS, "deployment", "readback", "--image=nginx:1.27")
    deployment = json.loads(server.kubectl("get", "-n", NS, "deployment", "readback", "-o", "json").stdout)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert (container["name"], container["image"]) == ("nginx", "nginx:1.27")
    assert deployment["spec"]["selector"] == {"matchLabels": {"app": "readback"}}


def test_create_namespace(server: KubeliteProcess) -> None:
    assert server.kubectl("create", "namespace", "made-by-generator").stdout == (
        "namespace/made-by-generator created\n"
    )


def test_autoscale(server: KubeliteProcess) -> None:
    server.kubectl("create", "-n", NS, "deployment", "scaled", "--image=nginx")
    result = server.kubectl("autoscale", "-n", NS, "deployment", "scaled", "--max=4")
    assert result.stdout == "horizontalpodautoscaler.autoscaling/scaled autoscaled\n"


def test_auth_can_i(server: KubeliteProcess) -> None:
    result = server.kubectl("auth", "can-i", "create", "pods")
    assert (result.returncode, result.stdout) == (0, "yes\n")


def test_auth_whoami(server: KubeliteProcess) -> None:
    lines = server.kubectl("auth", "whoami").stdout.splitlines()
    assert lines[0].split() == ["ATTRIBUTE", "VALUE"]
    assert lines[1].split() == ["Username", "kubelite-admin"]
    assert lines[2].split() == ["Groups", "[system:masters", "system:authenticated]"]


def test_protobuf_get_and_status(server: KubeliteProcess) -> None:
    server.kubectl("create", "-n", NS, "configmap", "wire", "--from-literal=a=b")
    accept = {"Accept": "application/vnd.kubernetes.protobuf,application/json"}
    got = server.http("GET", f"/api/v1/namespaces/{NS}/configmaps/wire", headers=accept)
    assert got.headers["content-type"] == "application/vnd.kubernetes.protobuf"
    obj = protobuf.decode(got.body)
    assert (obj["kind"], obj["metadata"]["name"], obj["data"]) == ("ConfigMap", "wire", {"a": "b"})
    missing = server.http("GET", f"/api/v1/namespaces/{NS}/configmaps/nope", headers=accept)
    status = protobuf.decode(missing.body)
    assert (missing.status, status["reason"], status["message"]) == (404, "NotFound", 'configmaps "nope" not found')


def test_protobuf_watch_frames(server: KubeliteProcess) -> None:
    listed = server.http("GET", f"/api/v1/namespaces/{NS}/configmaps").json()
    rv = listed["metadata"]["resourceVersion"]
    conn = http.client.HTTPConnection("127.0.0.1", server.insecure_port, timeout=10)
    conn.request(
        "GET",
        f"/api/v1/namespaces/{NS}/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds=5",
        headers={"Accept": "application/vnd.kubernetes.protobuf,application/json"},
    )
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "application/vnd.kubernetes.protobuf;stream=watch"
    server.kubectl("create", "-n", NS, "configmap", "watched", "--from-literal=x=y")
    length = int.from_bytes(response.read(4), "big")
    event_type, obj = protobuf.decode_watch_event(response.read(length))
    conn.close()
    assert (event_type, obj["kind"], obj["metadata"]["name"]) == ("ADDED", "ConfigMap", "watched")
