"""kubectl commands that write: `create -f` of a multi-document file (with server dry run and the
AlreadyExists errors), `describe`, `label`, `annotate`, `replace` (and its Conflict), `scale` (with the
current-replicas precondition) and `delete` (by name, by label, a whole namespace, cascade options, dry run).

As in the other kubectl modules the cluster is a bare API server, and every test works in a namespace of
its own so the tests of the module stay independent.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import (
    AGE,
    MANIFESTS,
    create_namespace,
    start_kubectl,
    table,
    wait_for_namespace_defaults,
)

SHOP = MANIFESTS / "shop.yaml"
SHOP_KINDS = ["configmap/web-config", "secret/web-secret", "deployment.apps/web", "service/web"]


def _shop_in(namespace: str, tmp_path: Path, *, with_namespace: bool = True) -> Path:
    """shop.yaml moved to another namespace, written where error messages can name it."""
    documents = SHOP.read_text().replace("namespace: shop", f"namespace: {namespace}").split("\n---\n")
    documents[0] = documents[0].replace("name: shop", f"name: {namespace}")
    if not with_namespace:
        documents = documents[1:]
    path = tmp_path / f"{namespace}.yaml"
    path.write_text("\n---\n".join(documents))
    return path


def _manifest(kind: str, name: str, body: str, api_version: str = "v1") -> str:
    return f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n{body}"


def _deployment(name: str, replicas: int = 1, api_kind: str = "Deployment") -> str:
    return _manifest(
        api_kind,
        name,
        f"spec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n"
        f"  template:\n    metadata:\n      labels:\n        app: {name}\n"
        "    spec:\n      containers:\n      - name: app\n        image: busybox:1.36\n",
        "apps/v1",
    )


def _pod(name: str, labels: str = "") -> str:
    meta = f"  labels:\n{labels}" if labels else ""
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{meta}" + (
        "spec:\n  containers:\n  - name: app\n    image: busybox:1.36\n"
    )


def _configmap(name: str, labels: str = "") -> str:
    meta = f"  labels:\n{labels}" if labels else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{meta}data:\n  key: value\n"


# -- create -f ----------------------------------------------------------------------------------------


def test_create_multi_document_file(server: KubeliteProcess) -> None:
    created = server.kubectl("create", "-f", str(SHOP))
    assert created.stdout == (
        "namespace/shop created\n"
        "configmap/web-config created\n"
        "secret/web-secret created\n"
        "deployment.apps/web created\n"
        "service/web created\n"
    )
    wait_for_namespace_defaults(server, "shop")
    names = server.kubectl("get", "-n", "shop", "configmaps,secrets,deployments,services", "-o", "name")
    assert names.stdout.splitlines() == ["configmap/kube-root-ca.crt", *SHOP_KINDS]
    secret = server.kubectl("get", "-n", "shop", "secret", "web-secret", "-o", "jsonpath={.data.password}")
    assert secret.stdout == "czNjcjN0"  # stringData is folded into data, base64 encoded
    stored = server.kubectl("get", "-n", "shop", "secret", "web-secret", "-o", "jsonpath={.stringData}")
    assert stored.stdout == ""

    again = server.kubectl("create", "-f", str(SHOP), check=False)
    assert (again.returncode, again.stdout) == (1, "")
    prefix = f'Error from server (AlreadyExists): error when creating "{SHOP}": '
    assert again.stderr.splitlines() == [
        prefix + 'namespaces "shop" already exists',
        prefix + 'configmaps "web-config" already exists',
        prefix + 'secrets "web-secret" already exists',
        prefix + 'deployments.apps "web" already exists',
        prefix + 'services "web" already exists',
    ]


def test_create_dry_run_into_a_missing_namespace(server: KubeliteProcess, tmp_path: Path) -> None:
    """Nothing persists, so the namespaced objects find no namespace: kube's answer too."""
    path = _shop_in("dry-missing", tmp_path)
    result = server.kubectl("create", "-f", str(path), "--dry-run=server", check=False)
    assert (result.returncode, result.stdout) == (1, "namespace/dry-missing created (server dry run)\n")
    assert (
        result.stderr.splitlines()
        == [f'Error from server (NotFound): error when creating "{path}": namespaces "dry-missing" not found']
        * 4
    )
    gone = server.kubectl("get", "namespace", "dry-missing", check=False)
    assert gone.stderr == 'Error from server (NotFound): namespaces "dry-missing" not found\n'


def test_create_dry_run_persists_nothing(server: KubeliteProcess, tmp_path: Path) -> None:
    create_namespace(server, "dry")
    path = _shop_in("dry", tmp_path, with_namespace=False)
    result = server.kubectl("create", "-f", str(path), "--dry-run=server")
    assert result.stdout.splitlines() == [f"{kind} created (server dry run)" for kind in SHOP_KINDS]
    listed = server.kubectl("get", "-n", "dry", "configmaps,secrets,deployments,services", "-o", "name")
    assert listed.stdout.splitlines() == ["configmap/kube-root-ca.crt"]  # only what the namespace had


# -- describe -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def described(server: KubeliteProcess, tmp_path_factory: pytest.TempPathFactory) -> str:
    create_namespace(server, "described")
    path = _shop_in("described", tmp_path_factory.mktemp("described"), with_namespace=False)
    server.kubectl("create", "-f", str(path))
    server.kubectl("create", "-n", "described", "-f", "-", input=_pod("web-0", "    app: web\n"))
    return "described"


#: describe prints creation times in RFC 1123 with a numeric zone
_RFC1123Z = re.compile(
    r"^CreationTimestamp:      [A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000$"
)


def test_describe_pod(server: KubeliteProcess, described: str) -> None:
    lines = server.kubectl("describe", "-n", described, "pod", "web-0").stdout.splitlines()
    assert lines[:15] == [
        "Name:             web-0",
        f"Namespace:        {described}",
        "Priority:         0",
        "Service Account:  default",
        "Node:             <none>",
        "Labels:           app=web",
        "Annotations:      <none>",
        "Status:           Pending",
        "IP:               ",
        "IPs:              <none>",
        "Containers:",
        "  app:",
        "    Image:        busybox:1.36",
        "    Port:         <none>",
        "    Host Port:    <none>",
    ]
    assert "QoS Class:                   BestEffort" in lines
    assert lines[-1] == "Events:                      <none>"


def test_describe_deployment(server: KubeliteProcess, described: str) -> None:
    lines = server.kubectl("describe", "-n", described, "deployment", "web").stdout.splitlines()
    assert _RFC1123Z.match(lines[2]), lines[2]
    assert lines[:2] + lines[3:] == [
        "Name:                   web",
        f"Namespace:              {described}",
        "Labels:                 app=web",
        "Annotations:            <none>",
        "Selector:               app=web",
        "Replicas:               2 desired | 0 updated | 0 total | 0 available | 0 unavailable",
        "StrategyType:           RollingUpdate",
        "MinReadySeconds:        0",
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge",
        "Pod Template:",
        "  Labels:  app=web",
        "  Containers:",
        "   nginx:",
        "    Image:         nginx:1.27",
        "    Port:          80/TCP",
        "    Host Port:     0/TCP",
        "    Environment:   <none>",
        "    Mounts:        <none>",
        "  Volumes:         <none>",
        "  Node-Selectors:  <none>",
        "  Tolerations:     <none>",
        "Events:            <none>",
    ]


def test_describe_service(server: KubeliteProcess, described: str) -> None:
    lines = server.kubectl("describe", "-n", described, "service", "web").stdout.splitlines()
    ip = server.kubectl("get", "-n", described, "service", "web", "-o", "jsonpath={.spec.clusterIP}").stdout
    assert re.fullmatch(r"10\.\d+\.\d+\.\d+", ip)
    assert lines == [
        "Name:                     web",
        f"Namespace:                {described}",
        "Labels:                   <none>",
        "Annotations:              <none>",
        "Selector:                 app=web",
        "Type:                     ClusterIP",
        "IP Family Policy:         SingleStack",
        "IP Families:              IPv4",
        f"IP:                       {ip}",
        f"IPs:                      {ip}",
        "Port:                     <unset>  80/TCP",
        "TargetPort:               80/TCP",
        "Endpoints:                <none>",
        "Session Affinity:         None",
        "Internal Traffic Policy:  Cluster",
        "Events:                   <none>",
    ]


def test_describe_namespace(server: KubeliteProcess, described: str) -> None:
    out = server.kubectl("describe", "namespace", described).stdout
    assert out == (
        f"Name:         {described}\n"
        f"Labels:       kubernetes.io/metadata.name={described}\n"
        "Annotations:  <none>\n"
        "Status:       Active\n"
        "\n"
        "No resource quota.\n"
        "\n"
        "No LimitRange resource.\n"
    )


# -- label, annotate ----------------------------------------------------------------------------------


def test_label_overwrite_and_remove(server: KubeliteProcess) -> None:
    create_namespace(server, "labels")
    server.kubectl("create", "-n", "labels", "-f", "-", input=_configmap("target"))

    def labels() -> str:
        return table(server.kubectl("get", "-n", "labels", "configmap", "target", "--show-labels").stdout)[1][
            -1
        ]

    assert server.kubectl("label", "-n", "labels", "configmap", "target", "env=dev").stdout == (
        "configmap/target labeled\n"
    )
    assert labels() == "env=dev"
    refused = server.kubectl("label", "-n", "labels", "configmap", "target", "env=prod", check=False)
    assert (refused.returncode, refused.stderr) == (
        1,
        "error: 'env' already has a value (dev), and --overwrite is false\n",
    )
    overwritten = server.kubectl("label", "-n", "labels", "configmap", "target", "env=prod", "--overwrite")
    assert overwritten.stdout == "configmap/target labeled\n"
    assert labels() == "env=prod"
    assert server.kubectl("label", "-n", "labels", "configmap", "target", "env-").stdout == (
        "configmap/target unlabeled\n"
    )
    assert labels() == "<none>"


def test_annotate(server: KubeliteProcess) -> None:
    create_namespace(server, "annotations")
    server.kubectl("create", "-n", "annotations", "-f", "-", input=_configmap("target"))
    added = server.kubectl("annotate", "-n", "annotations", "configmap", "target", "owner=team-a", "note=x y")
    assert added.stdout == "configmap/target annotated\n"
    jsonpath = "jsonpath={.metadata.annotations}"
    got = server.kubectl("get", "-n", "annotations", "configmap", "target", "-o", jsonpath)
    assert got.stdout == '{"note":"x y","owner":"team-a"}'
    removed = server.kubectl("annotate", "-n", "annotations", "configmap", "target", "note-")
    assert removed.stdout == "configmap/target annotated\n"
    got = server.kubectl("get", "-n", "annotations", "configmap", "target", "-o", jsonpath)
    assert got.stdout == '{"owner":"team-a"}'


# -- replace ------------------------------------------------------------------------------------------


def test_replace_and_stale_resource_version(server: KubeliteProcess, tmp_path: Path) -> None:
    create_namespace(server, "replace")
    server.kubectl("create", "-n", "replace", "-f", "-", input=_configmap("settings"))
    current = server.kubectl("get", "-n", "replace", "configmap", "settings", "-o", "yaml").stdout
    path = tmp_path / "settings.yaml"
    path.write_text(current.replace("key: value", "key: changed"))

    assert server.kubectl("replace", "-f", str(path)).stdout == "configmap/settings replaced\n"
    data = server.kubectl("get", "-n", "replace", "configmap", "settings", "-o", "jsonpath={.data.key}")
    assert data.stdout == "changed"

    stale = server.kubectl("replace", "-f", str(path), check=False)
    assert (stale.returncode, stale.stdout) == (1, "")
    assert stale.stderr == (
        f'Error from server (Conflict): error when replacing "{path}": Operation cannot be fulfilled on '
        'configmaps "settings": the object has been modified; '
        "please apply your changes to the latest version and try again\n"
    )


def test_replace_without_resource_version_overwrites(server: KubeliteProcess) -> None:
    create_namespace(server, "replace-blind")
    server.kubectl("create", "-n", "replace-blind", "-f", "-", input=_configmap("settings"))
    replaced = server.kubectl(
        "replace", "-n", "replace-blind", "-f", "-", input=_configmap("settings").replace("value", "blind")
    )
    assert replaced.stdout == "configmap/settings replaced\n"
    missing = server.kubectl(
        "replace", "-n", "replace-blind", "-f", "-", input=_configmap("absent"), check=False
    )
    assert missing.stderr == (
        'Error from server (NotFound): error when replacing "STDIN": configmaps "absent" not found\n'
    )


# -- scale --------------------------------------------------------------------------------------------


def _replication_controller(name: str) -> str:
    return _manifest(
        "ReplicationController",
        name,
        f"spec:\n  replicas: 1\n  selector:\n    app: {name}\n  template:\n    metadata:\n      labels:\n"
        f"        app: {name}\n    spec:\n      containers:\n"
        "      - name: app\n        image: busybox:1.36\n",
    )


def _stateful_set(name: str) -> str:
    return _deployment(name, api_kind="StatefulSet").replace(
        "spec:\n  replicas: 1\n", "spec:\n  replicas: 1\n  serviceName: x\n", 1
    )


@pytest.fixture(scope="module")
def scalable(server: KubeliteProcess) -> str:
    create_namespace(server, "scaling")
    manifests = [
        _deployment("deploy"),
        _deployment("rs", api_kind="ReplicaSet"),
        _stateful_set("sts"),
        _replication_controller("rc"),
    ]
    server.kubectl("create", "-n", "scaling", "-f", "-", input="---\n".join(manifests))
    return "scaling"


@pytest.mark.parametrize(
    ("resource", "printed", "path"),
    [
        pytest.param(
            "deployment/deploy",
            "deployment.apps/deploy",
            "/apis/apps/v1/namespaces/scaling/deployments/deploy",
            id="deployment",
        ),
        pytest.param(
            "replicaset/rs",
            "replicaset.apps/rs",
            "/apis/apps/v1/namespaces/scaling/replicasets/rs",
            id="replicaset",
        ),
        pytest.param(
            "statefulset/sts",
            "statefulset.apps/sts",
            "/apis/apps/v1/namespaces/scaling/statefulsets/sts",
            id="statefulset",
        ),
        pytest.param(
            "replicationcontroller/rc",
            "replicationcontroller/rc",
            "/api/v1/namespaces/scaling/replicationcontrollers/rc",
            id="rc",
        ),
    ],
)
def test_scale(server: KubeliteProcess, scalable: str, resource: str, printed: str, path: str) -> None:
    result = server.kubectl("scale", "-n", scalable, resource, "--replicas=3")
    assert result.stdout == f"{printed} scaled\n"
    replicas = server.kubectl("get", "-n", scalable, resource, "-o", "jsonpath={.spec.replicas}").stdout
    assert replicas == "3"
    scale = json.loads(server.kubectl("get", "--raw", f"{path}/scale").stdout)
    assert (scale["kind"], scale["apiVersion"], scale["spec"]) == ("Scale", "autoscaling/v1", {"replicas": 3})


def test_scale_with_current_replicas_precondition(server: KubeliteProcess) -> None:
    create_namespace(server, "scale-precondition")
    server.kubectl("create", "-n", "scale-precondition", "-f", "-", input=_deployment("web", replicas=2))
    wrong = server.kubectl(
        "scale",
        "-n",
        "scale-precondition",
        "deployment/web",
        "--current-replicas=5",
        "--replicas=4",
        check=False,
    )
    assert (wrong.returncode, wrong.stdout, wrong.stderr) == (
        1,
        "",
        "error: Expected replicas to be 5, was 2\n",
    )
    right = server.kubectl(
        "scale", "-n", "scale-precondition", "deployment/web", "--current-replicas=2", "--replicas=4"
    )
    assert right.stdout == "deployment.apps/web scaled\n"
    parsed = table(server.kubectl("get", "-n", "scale-precondition", "deployment", "web").stdout)
    assert parsed == [["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], ["web", "0/4", "0", "0", AGE]]


# -- delete -------------------------------------------------------------------------------------------


def test_delete_by_name_and_missing(server: KubeliteProcess) -> None:
    create_namespace(server, "delete-name")
    server.kubectl("create", "-n", "delete-name", "-f", "-", input=_configmap("doomed"))
    result = server.kubectl("delete", "-n", "delete-name", "configmap", "doomed")
    assert result.stdout == 'configmap "doomed" deleted from delete-name namespace\n'
    again = server.kubectl("delete", "-n", "delete-name", "configmap", "doomed", check=False)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr == 'Error from server (NotFound): configmaps "doomed" not found\n'
    ignored = server.kubectl("delete", "-n", "delete-name", "configmap", "doomed", "--ignore-not-found")
    assert (ignored.stdout, ignored.stderr) == ("", "")


def test_delete_by_label(server: KubeliteProcess) -> None:
    create_namespace(server, "delete-label")
    manifests = [_configmap(f"cm-{i}", f"    batch: {'one' if i < 2 else 'two'}\n") for i in range(3)]
    server.kubectl("create", "-n", "delete-label", "-f", "-", input="---\n".join(manifests))
    result = server.kubectl("delete", "-n", "delete-label", "configmaps", "-l", "batch=one")
    assert result.stdout.splitlines() == [
        'configmap "cm-0" deleted from delete-label namespace',
        'configmap "cm-1" deleted from delete-label namespace',
    ]
    left = server.kubectl("get", "-n", "delete-label", "configmaps", "-o", "name").stdout
    assert left == "configmap/cm-2\nconfigmap/kube-root-ca.crt\n"
    none = server.kubectl("delete", "-n", "delete-label", "configmaps", "-l", "batch=three")
    assert (none.stdout, none.stderr) == ("No resources found\n", "")


@pytest.mark.parametrize("cascade", ["foreground", "orphan", "background"])
def test_delete_with_cascade(server: KubeliteProcess, cascade: str) -> None:
    namespace = f"cascade-{cascade}"
    create_namespace(server, namespace)
    server.kubectl("create", "-n", namespace, "-f", "-", input=_deployment("web"))
    result = server.kubectl("delete", "-n", namespace, "deployment", "web", f"--cascade={cascade}")
    assert result.stdout == f'deployment.apps "web" deleted from {namespace} namespace\n'
    gone = server.kubectl("get", "-n", namespace, "deployment", "web", check=False)
    assert gone.stderr == 'Error from server (NotFound): deployments.apps "web" not found\n'


def test_delete_dry_run_keeps_the_object(server: KubeliteProcess) -> None:
    create_namespace(server, "delete-dry")
    server.kubectl("create", "-n", "delete-dry", "-f", "-", input=_configmap("kept"))
    result = server.kubectl("delete", "-n", "delete-dry", "configmap", "kept", "--dry-run=server")
    assert result.stdout == 'configmap "kept" deleted from delete-dry namespace (server dry run)\n'
    assert (
        server.kubectl("get", "-n", "delete-dry", "configmap", "kept", "-o", "name").stdout
        == "configmap/kept\n"
    )


def test_delete_namespace_waits_until_it_is_gone(server: KubeliteProcess) -> None:
    create_namespace(server, "short-lived")
    manifests = [_configmap("a"), _configmap("b"), _pod("p")]
    server.kubectl("create", "-n", "short-lived", "-f", "-", input="---\n".join(manifests))
    result = server.kubectl("delete", "namespace", "short-lived")
    assert result.stdout == 'namespace "short-lived" deleted\n'
    gone = server.kubectl("get", "namespace", "short-lived", check=False)
    assert gone.stderr == 'Error from server (NotFound): namespaces "short-lived" not found\n'
    content = server.kubectl("get", "--raw", "/api/v1/namespaces/short-lived/configmaps").stdout
    assert '"items":[]' in content


def test_delete_namespace_goes_terminating_until_its_content_is_gone(server: KubeliteProcess) -> None:
    """A finalizer holds one object: the namespace stays Terminating with the rest of its content deleted."""
    create_namespace(server, "held")
    held = _configmap("held").replace("metadata:\n", "metadata:\n  finalizers:\n  - example.com/hold\n", 1)
    server.kubectl("create", "-n", "held", "-f", "-", input="---\n".join([held, _configmap("free")]))

    started = server.kubectl("delete", "namespace", "held", "--wait=false")
    assert started.stdout == 'namespace "held" deleted\n'
    # the namespace controller runs in the background: wait for it to have deleted what it can
    deadline = _Deadline(10)
    while server.kubectl("get", "-n", "held", "configmaps", "-o", "name").stdout != "configmap/held\n":
        deadline.check("the namespace controller did not delete the free configmap")
    parsed = table(server.kubectl("get", "namespace", "held").stdout)
    assert parsed == [["NAME", "STATUS", "AGE"], ["held", "Terminating", AGE]]
    marked = server.kubectl(
        "get", "-n", "held", "configmap", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"
    )
    assert marked.stdout != ""
    refused = server.kubectl("create", "-n", "held", "-f", "-", input=_configmap("late"), check=False)
    assert refused.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": configmaps "late" is forbidden: '
        "unable to create new content in namespace held because it is being terminated\n"
    )

    # a second delete is accepted while the namespace terminates, and waits for it to disappear
    waiting = start_kubectl(server, "delete", "namespace", "held", "--timeout=30s")
    assert waiting.stdout is not None
    assert waiting.stdout.readline() == 'namespace "held" deleted\n'
    assert waiting.poll() is None, "kubectl delete returned while the namespace still exists"
    patch = '{"metadata":{"finalizers":null}}'
    server.kubectl("patch", "-n", "held", "configmap", "held", "--type=merge", "-p", patch)
    try:
        assert waiting.wait(30) == 0
    finally:
        waiting.kill()
        waiting.communicate()
    gone = server.kubectl("get", "namespace", "held", check=False)
    assert gone.stderr == 'Error from server (NotFound): namespaces "held" not found\n'


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def check(self, message: str) -> None:
        if time.monotonic() > self._end:
            raise AssertionError(message)
        time.sleep(0.1)
