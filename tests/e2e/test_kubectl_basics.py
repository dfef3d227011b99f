"""kubectl against kubelite before any workload: cluster-info, version, discovery (api-resources,
api-versions), raw paths, explain, clients without credentials, and the plain-HTTP port.

Expected texts are what kubectl 1.36 prints against a real 1.36 kube-apiserver serving the same resources.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.server import KUBECTL, KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace, parse_table, table

SYSTEM_NAMESPACES = ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_cluster_info(server: KubeliteProcess) -> None:
    result = server.kubectl("cluster-info")
    assert result.stdout == (
        f"Kubernetes control plane is running at {server.secure_url}\n"
        "\n"
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"
    )


def test_version_prints_the_server_version(server: KubeliteProcess) -> None:
    lines = server.kubectl("version").stdout.splitlines()
    assert lines[-1] == "Server Version: v1.36.0+kubelite"


def test_api_resources_header(server: KubeliteProcess) -> None:
    header = server.kubectl("api-resources").stdout.splitlines()[0].split()
    assert header == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(["bindings", "", "v1", "true", "Binding"], id="bindings"),
        pytest.param(["configmaps", "cm", "v1", "true", "ConfigMap"], id="configmaps"),
        pytest.param(["events", "ev", "v1", "true", "Event"], id="events-core"),
        pytest.param(["events", "ev", "events.k8s.io/v1", "true", "Event"], id="events-events.k8s.io"),
        pytest.param(["namespaces", "ns", "v1", "false", "Namespace"], id="namespaces"),
        pytest.param(["nodes", "no", "v1", "false", "Node"], id="nodes"),
        pytest.param(["pods", "po", "v1", "true", "Pod"], id="pods"),
        pytest.param(["secrets", "", "v1", "true", "Secret"], id="secrets"),
        pytest.param(["deployments", "deploy", "apps/v1", "true", "Deployment"], id="deployments"),
        pytest.param(["statefulsets", "sts", "apps/v1", "true", "StatefulSet"], id="statefulsets"),
        pytest.param(
            ["horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler"], id="hpa"
        ),
        pytest.param(
            ["subjectaccessreviews", "", "authorization.k8s.io/v1", "false", "SubjectAccessReview"], id="sar"
        ),
        pytest.param(["cronjobs", "cj", "batch/v1", "true", "CronJob"], id="cronjobs"),
        pytest.param(["jobs", "", "batch/v1", "true", "Job"], id="jobs"),
        pytest.param(["leases", "", "coordination.k8s.io/v1", "true", "Lease"], id="leases"),
        pytest.param(["ingresses", "ing", "networking.k8s.io/v1", "true", "Ingress"], id="ingresses"),
        pytest.param(
            ["clusterroles", "", "rbac.authorization.k8s.io/v1", "false", "ClusterRole"], id="clusterroles"
        ),
        pytest.param(["priorityclasses", "pc", "scheduling.k8s.io/v1", "false", "PriorityClass"], id="pc"),
        pytest.param(["storageclasses", "sc", "storage.k8s.io/v1", "false", "StorageClass"], id="sc"),
        pytest.param(
            ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition"],
            id="crds",
        ),
    ],
)
def test_api_resources_rows(server: KubeliteProcess, row: list[str]) -> None:
    rows = parse_table(server.kubectl("api-resources").stdout)[1:]
    assert row in rows


def test_api_versions(server: KubeliteProcess) -> None:
    assert server.kubectl("api-versions").stdout.splitlines() == [
        "apiextensions.k8s.io/v1",
        "apps/v1",
        "authentication.k8s.io/v1",
        "authorization.k8s.io/v1",
        "autoscaling/v2",
        "batch/v1",
        "certificates.k8s.io/v1",
        "coordination.k8s.io/v1",
        "discovery.k8s.io/v1",
        "events.k8s.io/v1",
        "networking.k8s.io/v1",
        "policy/v1",
        "rbac.authorization.k8s.io/v1",
        "scheduling.k8s.io/v1",
        "storage.k8s.io/v1",
        "v1",
    ]


def test_get_raw_healthz(server: KubeliteProcess) -> None:
    assert server.kubectl("get", "--raw", "/healthz").stdout == "ok"


def _raw_namespaces(server: KubeliteProcess) -> dict[str, object]:
    out = server.kubectl("get", "--raw", "/api/v1/namespaces").stdout
    assert "\n" not in out, "the raw body is compact JSON"
    body: dict[str, object] = json.loads(out)
    return body


def test_get_raw_namespace_list(server: KubeliteProcess) -> None:
    body = _raw_namespaces(server)
    assert (body["kind"], body["apiVersion"]) == ("NamespaceList", "v1")
    metadata = body["metadata"]
    assert isinstance(metadata, dict) and list(metadata) == ["resourceVersion"]
    assert metadata["resourceVersion"].isdigit()
    items = body["items"]
    assert isinstance(items, list)
    # other tests of this module add namespaces; the system ones are always there, in name order
    system = [item for item in items if item["metadata"]["name"] in SYSTEM_NAMESPACES]
    assert [item["metadata"]["name"] for item in system] == SYSTEM_NAMESPACES
    for item in system:
        name = item["metadata"]["name"]
        assert item["metadata"]["labels"] == {"kubernetes.io/metadata.name": name}
        assert item["spec"] == {"finalizers": ["kubernetes"]}
        assert item["status"] == {"phase": "Active"}


def test_get_raw_namespace_list_items_have_no_type_meta(server: KubeliteProcess) -> None:
    items = _raw_namespaces(server)["items"]
    assert isinstance(items, list)
    assert {tuple(sorted(item)) for item in items} == {("metadata", "spec", "status")}


@pytest.mark.xfail(
    reason="the namespaces kubelite creates at start carry no managedFields: its bootstrap writes them through "
    "the registry, below the handlers that record field managers (kube's bootstrap controller writes through "
    "the API, as manager kube-apiserver)",
    strict=True,
)
def test_get_raw_namespace_managed_fields(server: KubeliteProcess) -> None:
    items = _raw_namespaces(server)["items"]
    assert isinstance(items, list)
    default = next(item for item in items if item["metadata"]["name"] == "default")
    fields = default["metadata"]["managedFields"]
    assert [(f["manager"], f["operation"], f["apiVersion"]) for f in fields] == [
        ("kube-apiserver", "Update", "v1")
    ]


def test_explain_pod_containers(server: KubeliteProcess) -> None:
    lines = server.kubectl("explain", "pods.spec.containers").stdout.splitlines()
    assert lines[:10] == [
        "KIND:       Pod",
        "VERSION:    v1",
        "",
        "FIELD: containers <[]Container>",
        "",
        "",
        "DESCRIPTION:",
        "    List of containers belonging to the pod. Containers cannot currently be",
        "    added or removed. There must be at least one container in a Pod. Cannot be",
        "    updated.",
    ]
    assert lines[10] == "    A single application container that you want to run within a pod."
    fields = [line.strip() for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert fields[:10] == [
        "args\t<[]string>",
        "command\t<[]string>",
        "env\t<[]EnvVar>",
        "envFrom\t<[]EnvFromSource>",
        "image\t<string>",
        "imagePullPolicy\t<string>",
        "lifecycle\t<Lifecycle>",
        "livenessProbe\t<Probe>",
        "name\t<string> -required-",
        "ports\t<[]ContainerPort>",
    ]
    assert "resources\t<ResourceRequirements>" in fields
    assert "volumeMounts\t<[]VolumeMount>" in fields
    assert fields[-1] == "workingDir\t<string>"
    name = lines.index("  name\t<string> -required-")
    assert lines[name + 1 : name + 3] == [
        "    Name of the container specified as a DNS_LABEL. Each container in a pod must",
        "    have a unique name (DNS_LABEL). Cannot be updated.",
    ]


def _kubectl_without_credentials(
    server: KubeliteProcess, tmp_path: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """kubectl with an empty kubeconfig: no client certificate, the server's CA not trusted."""
    kubeconfig = tmp_path / "empty.kubeconfig"
    kubeconfig.write_text("")
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HOME": str(tmp_path)}
    return subprocess.run(
        [
            KUBECTL,
            "--kubeconfig",
            str(kubeconfig),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--server",
            server.secure_url,
            "--insecure-skip-tls-verify",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_raw_request_without_credentials_is_unauthorized(server: KubeliteProcess, tmp_path: Path) -> None:
    """A bearer token the server does not know authenticates no one; the Status reason is printed."""
    result = _kubectl_without_credentials(
        server, tmp_path, "--token", "not-a-token", "get", "--raw", "/api/v1/pods"
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "error: You must be logged in to the server (Unauthorized)\n"


def test_get_without_credentials_is_unauthorized(server: KubeliteProcess, tmp_path: Path) -> None:
    """Discovery reads the 401 without decoding its Status, so kubectl shows client-go's generic text."""
    result = _kubectl_without_credentials(server, tmp_path, "--token", "not-a-token", "get", "pods")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines()[-1] == (
        "error: You must be logged in to the server "
        "(the server has asked for the client to provide credentials)"
    )


def test_insecure_port_create_get_delete(server: KubeliteProcess) -> None:
    manifest = (
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: plain-http\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: plain-http\n"
        "data:\n  mode: plain\n"
    )
    created = server.kubectl("create", "-f", "-", input=manifest, secure=False)
    assert created.stdout == "namespace/plain-http created\nconfigmap/settings created\n"
    got = server.kubectl("get", "configmaps", "-n", "plain-http", "settings", secure=False)
    assert table(got.stdout) == [["NAME", "DATA", "AGE"], ["settings", "1", "<age>"]]
    deleted = server.kubectl("delete", "configmap", "settings", "-n", "plain-http", secure=False)
    assert deleted.stdout == 'configmap "settings" deleted from plain-http namespace\n'
    gone = server.kubectl("get", "configmap", "settings", "-n", "plain-http", secure=False, check=False)
    assert (gone.returncode, gone.stderr) == (
        1,
        'Error from server (NotFound): configmaps "settings" not found\n',
    )
    namespace = server.kubectl("delete", "namespace", "plain-http", secure=False)
    assert namespace.stdout == 'namespace "plain-http" deleted\n'


def test_secure_and_insecure_ports_see_the_same_objects(server: KubeliteProcess) -> None:
    create_namespace(server, "both-ports")
    secure = server.kubectl("get", "namespace", "both-ports", "-o", "name").stdout
    plain = server.kubectl("get", "namespace", "both-ports", "-o", "name", secure=False).stdout
    assert secure == plain == "namespace/both-ports\n"
