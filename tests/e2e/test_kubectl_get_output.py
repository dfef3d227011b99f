"""`kubectl get` output other than the tables of each kind: yaml, json, names and jsonpath, label and field
selectors, all namespaces, label columns, the `all` category, client-side sorting, pagination and watch.

The objects are the same one-of-each-kind set as in test_kubectl_get, created again on this module's server.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator

import pytest
import yaml

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import (
    AGE,
    IP,
    KINDS_NAMESPACE,
    create_kinds,
    create_namespace,
    get_table,
    normalise_cells,
    normalise_durations,
    parse_tables,
    start_kubectl,
    table,
)

NS = KINDS_NAMESPACE


@pytest.fixture(scope="module", autouse=True)
def objects(server: KubeliteProcess) -> None:
    create_kinds(server, NS)


# -- yaml, json, names ------------------------------------------------------------------------------

_VOLATILE = [
    (re.compile(r'creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"'), 'creationTimestamp: "<ts>"'),
    (re.compile(r'"creationTimestamp": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"'), '"creationTimestamp": "<ts>"'),
    (re.compile(r'resourceVersion: "\d+"'), 'resourceVersion: "<rv>"'),
    (re.compile(r'"resourceVersion": "\d+"'), '"resourceVersion": "<rv>"'),
    (re.compile(r"uid: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "uid: <uid>"),
    (re.compile(r'"uid": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"'), '"uid": "<uid>"'),
    (re.compile(r"(clusterIP: |  - )10\.\d+\.\d+\.\d+"), r"\g<1><ip>"),
]


def _stable(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


CONFIGMAP_YAML = f"""\
apiVersion: v1
data:
  a: "1"
  b: "2"
kind: ConfigMap
metadata:
  creationTimestamp: "<ts>"
  labels:
    tier: config
  name: cm1
  namespace: {NS}
  resourceVersion: "<rv>"
  uid: <uid>
"""

SECRET_JSON = f"""\
{{
    "apiVersion": "v1",
    "data": {{
        "password": "aHVudGVyMg=="
    }},
    "kind": "Secret",
    "metadata": {{
        "creationTimestamp": "<ts>",
        "name": "secret1",
        "namespace": "{NS}",
        "resourceVersion": "<rv>",
        "uid": "<uid>"
    }},
    "type": "Opaque"
}}
"""

SERVICE_YAML = f"""\
apiVersion: v1
kind: Service
metadata:
  creationTimestamp: "<ts>"
  name: svc1
  namespace: {NS}
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  clusterIP: <ip>
  clusterIPs:
  - <ip>
  internalTrafficPolicy: Cluster
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - port: 80
    protocol: TCP
    targetPort: 8080
  selector:
    app: one
  sessionAffinity: None
  type: ClusterIP
status:
  loadBalancer: {{}}
"""

DEPLOYMENT_YAML = f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  creationTimestamp: "<ts>"
  generation: 1
  name: deploy1
  namespace: {NS}
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  progressDeadlineSeconds: 600
  replicas: 1
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: deploy1
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: deploy1
    spec:
      containers:
      - image: busybox:1.36
        imagePullPolicy: IfNotPresent
        name: app
        resources: {{}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status: {{}}
"""

#: what the ServiceAccount and DefaultTolerationSeconds admission plugins add to every pod
POD_YAML = f"""\
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "<ts>"
  generation: 1
  labels:
    app: one
  name: pod1
  namespace: {NS}
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  containers:
  - image: busybox:1.36
    imagePullPolicy: IfNotPresent
    name: app
    resources: {{}}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: kube-api-access-<x>
      readOnly: true
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {{}}
  serviceAccount: default
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
  volumes:
  - name: kube-api-access-<x>
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken:
          expirationSeconds: 3607
          path: token
      - configMap:
          items:
          - key: ca.crt
            path: ca.crt
          name: kube-root-ca.crt
      - downwardAPI:
          items:
          - fieldRef:
              apiVersion: v1
              fieldPath: metadata.namespace
            path: namespace
status:
  phase: Pending
  qosClass: BestEffort
"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(("configmap", "cm1", "-o", "yaml"), CONFIGMAP_YAML, id="configmap-yaml"),
        pytest.param(("secret", "secret1", "-o", "json"), SECRET_JSON, id="secret-json"),
        pytest.param(("service", "svc1", "-o", "yaml"), SERVICE_YAML, id="service-yaml"),
        pytest.param(("deployment", "deploy1", "-o", "yaml"), DEPLOYMENT_YAML, id="deployment-yaml"),
    ],
)
def test_get_object_as_yaml_or_json(server: KubeliteProcess, args: tuple[str, ...], expected: str) -> None:
    assert _stable(server.kubectl("get", "-n", NS, *args).stdout) == expected


def test_get_pod_yaml_has_admission_defaults(server: KubeliteProcess) -> None:
    out = _stable(server.kubectl("get", "-n", NS, "pod", "pod1", "-o", "yaml").stdout)
    assert re.sub(r"kube-api-access-[a-z0-9]{5}", "kube-api-access-<x>", out) == POD_YAML


def test_get_list_as_yaml_carries_item_types(server: KubeliteProcess) -> None:
    """kubectl prints a v1 List whose items have kind and apiVersion, whatever the server put in them."""
    out = server.kubectl("get", "-n", NS, "configmaps", "-o", "yaml").stdout
    assert out.startswith("apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n")
    assert out.endswith('kind: List\nmetadata:\n  resourceVersion: ""\n')


@pytest.mark.parametrize(
    ("resource", "api_version", "kind", "namespaced"),
    [
        pytest.param(resource, api_version, kind, namespaced, id=resource.split("/")[0])
        for resource, api_version, kind, namespaced in [
            ("configmaps/cm1", "v1", "ConfigMap", True),
            ("endpoints/ep1", "v1", "Endpoints", True),
            ("events/ev1", "v1", "Event", True),
            ("limitranges/lr1", "v1", "LimitRange", True),
            ("namespaces/kinds", "v1", "Namespace", False),
            ("nodes/kctl-node1", "v1", "Node", False),
            ("persistentvolumeclaims/pvc1", "v1", "PersistentVolumeClaim", True),
            ("persistentvolumes/kctl-pv1", "v1", "PersistentVolume", False),
            ("pods/pod1", "v1", "Pod", True),
            ("podtemplates/pt1", "v1", "PodTemplate", True),
            ("replicationcontrollers/rc1", "v1", "ReplicationController", True),
            ("resourcequotas/rq1", "v1", "ResourceQuota", True),
            ("secrets/secret1", "v1", "Secret", True),
            ("serviceaccounts/sa1", "v1", "ServiceAccount", True),
            ("services/svc1", "v1", "Service", True),
            ("controllerrevisions/cr1", "apps/v1", "ControllerRevision", True),
            ("daemonsets/ds1", "apps/v1", "DaemonSet", True),
            ("deployments/deploy1", "apps/v1", "Deployment", True),
            ("replicasets/rs1", "apps/v1", "ReplicaSet", True),
            ("statefulsets/sts1", "apps/v1", "StatefulSet", True),
            ("horizontalpodautoscalers/hpa1", "autoscaling/v2", "HorizontalPodAutoscaler", True),
            ("cronjobs/cj1", "batch/v1", "CronJob", True),
            ("jobs/job1", "batch/v1", "Job", True),
            ("leases/lease1", "coordination.k8s.io/v1", "Lease", True),
            ("endpointslices/eps1", "discovery.k8s.io/v1", "EndpointSlice", True),
            ("events.events.k8s.io/ev2", "events.k8s.io/v1", "Event", True),
            ("ingressclasses/kctl-ic1", "networking.k8s.io/v1", "IngressClass", False),
            ("ingresses/ing1", "networking.k8s.io/v1", "Ingress", True),
            ("networkpolicies/np1", "networking.k8s.io/v1", "NetworkPolicy", True),
            ("poddisruptionbudgets/pdb1", "policy/v1", "PodDisruptionBudget", True),
            ("clusterrolebindings/kctl-crb1", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", False),
            ("clusterroles/kctl-cr1", "rbac.authorization.k8s.io/v1", "ClusterRole", False),
            ("rolebindings/rb1", "rbac.authorization.k8s.io/v1", "RoleBinding", True),
            ("roles/role1", "rbac.authorization.k8s.io/v1", "Role", True),
            ("priorityclasses/kctl-pc1", "scheduling.k8s.io/v1", "PriorityClass", False),
            ("storageclasses/kctl-sc1", "storage.k8s.io/v1", "StorageClass", False),
        ]
    ],
)
@pytest.mark.parametrize("output", ["yaml", "json"])
def test_get_every_kind_as_yaml_and_json(
    server: KubeliteProcess, resource: str, api_version: str, kind: str, namespaced: bool, output: str
) -> None:
    """Each object reads back typed, named and placed, with the system fields of a stored object."""
    text = server.kubectl("get", "-n", NS, resource, "-o", output).stdout
    obj = yaml.safe_load(text) if output == "yaml" else json.loads(text)
    meta = obj["metadata"]
    assert (obj["apiVersion"], obj["kind"], meta["name"]) == (api_version, kind, resource.split("/")[1])
    assert meta.get("namespace") == (NS if namespaced else None)
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", meta["uid"])
    assert meta["resourceVersion"].isdigit()
    assert "managedFields" not in meta  # kubectl hides them unless --show-managed-fields


def test_get_several_kinds_as_names(server: KubeliteProcess) -> None:
    out = server.kubectl("get", "-n", NS, "configmaps,secrets,deployments,services,jobs", "-o", "name").stdout
    assert out.splitlines() == [
        "configmap/cm1",
        "configmap/kube-root-ca.crt",
        "secret/secret1",
        "deployment.apps/deploy1",
        "service/svc1",
        "job.batch/job1",
    ]


def test_get_jsonpath(server: KubeliteProcess) -> None:
    out = server.kubectl(
        "get", "-n", NS, "pods", "-o", "jsonpath={.items[*].spec.containers[*].image}"
    ).stdout
    assert out == "busybox:1.36"


# -- selectors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "names"),
    [
        pytest.param(("pods", "-l", "app=one"), ["pod/pod1"], id="label-equals"),
        pytest.param(("configmaps", "-l", "tier in (config,cache)"), ["configmap/cm1"], id="label-set"),
        pytest.param(("configmaps", "-l", "!tier"), ["configmap/kube-root-ca.crt"], id="label-absent"),
        pytest.param(("configmaps", "--field-selector", "metadata.name=cm1"), ["configmap/cm1"], id="name"),
        pytest.param(
            ("configmaps", "--field-selector", "metadata.name!=cm1"), ["configmap/kube-root-ca.crt"], id="name-not"
        ),
        pytest.param(("pods", "--field-selector", "status.phase=Pending"), ["pod/pod1"], id="phase-pending"),
        pytest.param(("pods", "--field-selector", "status.phase=Running"), [], id="phase-running"),
        pytest.param(("pods", "--field-selector", "spec.nodeName="), ["pod/pod1"], id="unscheduled"),
        pytest.param(("pods", "--field-selector", "spec.nodeName=node-a"), [], id="on-a-node"),
        pytest.param(
            ("events", "--field-selector", "involvedObject.name=pod1"), ["event/ev1"], id="event-object"
        ),
        pytest.param(
            ("events", "--field-selector", "involvedObject.kind=Deployment,type=Normal"),
            ["event/ev2"],
            id="event-kind-and-type",
        ),
        pytest.param(("secrets", "--field-selector", "type=Opaque"), ["secret/secret1"], id="secret-type"),
        pytest.param(("secrets", "--field-selector", "type=kubernetes.io/tls"), [], id="secret-other-type"),
    ],
)
def test_get_with_selector(server: KubeliteProcess, args: tuple[str, ...], names: list[str]) -> None:
    result = server.kubectl("get", "-n", NS, *args, "-o", "name")
    assert result.stdout.splitlines() == names


def test_get_with_selector_matching_nothing_says_so(server: KubeliteProcess) -> None:
    result = server.kubectl("get", "-n", NS, "pods", "-l", "app=none")
    assert (result.stdout, result.stderr) == ("", f"No resources found in {NS} namespace.\n")


def test_get_with_unsupported_field_label(server: KubeliteProcess) -> None:
    result = server.kubectl("get", "-n", NS, "configmaps", "--field-selector", "data.a=1", check=False)
    assert result.returncode == 1
    assert result.stderr == (
        'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" '
        'that match label selector "", '
        'field selector "data.a=1": field label not supported: data.a\n'
    )


# -- all namespaces, labels, categories, sorting, paging ----------------------------------------------


def test_get_all_namespaces_adds_a_namespace_column(server: KubeliteProcess) -> None:
    parsed = get_table(server, "configmaps", "-A", "--field-selector", "metadata.name=cm1")
    assert parsed == [["NAMESPACE", "NAME", "DATA", "AGE"], [NS, "cm1", "2", AGE]]


def test_get_show_labels(server: KubeliteProcess) -> None:
    parsed = get_table(server, "-n", NS, "pods", "--show-labels")
    assert parsed == [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "LABELS"],
        ["pod1", "0/1", "Pending", "0", AGE, "app=one"],
    ]


def test_get_label_columns(server: KubeliteProcess) -> None:
    parsed = get_table(server, "-n", NS, "configmaps", "-L", "tier,missing")
    assert parsed == [
        ["NAME", "DATA", "AGE", "TIER", "MISSING"],
        ["cm1", "2", AGE, "config", ""],
        ["kube-root-ca.crt", "1", AGE, "", ""],
    ]


def test_get_all(server: KubeliteProcess) -> None:
    tables = [
        normalise_cells(normalise_durations(t))
        for t in parse_tables(server.kubectl("get", "all", "-n", NS).stdout)
    ]
    assert tables == [
        [["NAME", "READY", "STATUS", "RESTARTS", "AGE"], ["pod/pod1", "0/1", "Pending", "0", AGE]],
        [["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["replicationcontroller/rc1", "1", "0", "0", AGE]],
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
            ["service/svc1", "ClusterIP", IP, "<none>", "80/TCP", AGE],
        ],
        [
            ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
            ["daemonset.apps/ds1", "0", "0", "0", "0", "0", "<none>", AGE],
        ],
        [
            ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            ["deployment.apps/deploy1", "0/1", "0", "0", AGE],
        ],
        [["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["replicaset.apps/rs1", "1", "0", "0", AGE]],
        [["NAME", "READY", "AGE"], ["statefulset.apps/sts1", "0/1", AGE]],
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "horizontalpodautoscaler.autoscaling/hpa1",
                "Deployment/deploy1",
                "cpu: <unknown>/80%",
                "1",
                "3",
                "0",
                AGE,
            ],
        ],
        [
            ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
            ["cronjob.batch/cj1", "*/5 * * * *", "<none>", "False", "0", "<none>", AGE],
        ],
        [["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], ["job.batch/job1", "Running", "0/1", "", AGE]],
    ]


@pytest.fixture(scope="module")
def spread_configmaps(server: KubeliteProcess) -> None:
    """Configmaps whose name order differs from their namespace order, labelled for the tests below."""
    for namespace, name in [("spread-a", "zulu"), ("spread-b", "mike"), ("spread-c", "alpha")]:
        create_namespace(server, namespace)
        manifest = (
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            '  labels:\n    spread: "yes"\n'
        )
        server.kubectl("create", "-f", "-", input=manifest)


@pytest.mark.usefixtures("spread_configmaps")
@pytest.mark.parametrize(
    ("extra", "order"),
    [
        pytest.param((), ["spread-a/zulu", "spread-b/mike", "spread-c/alpha"], id="server-order"),
        pytest.param(
            ("--sort-by=.metadata.name",), ["spread-c/alpha", "spread-b/mike", "spread-a/zulu"], id="by-name"
        ),
        pytest.param(
            ("--sort-by=.metadata.namespace",),
            ["spread-a/zulu", "spread-b/mike", "spread-c/alpha"],
            id="by-namespace",
        ),
    ],
)
def test_get_sort_by(server: KubeliteProcess, extra: tuple[str, ...], order: list[str]) -> None:
    parsed = get_table(server, "configmaps", "-A", "-l", "spread=yes", *extra)
    assert parsed[0] == ["NAMESPACE", "NAME", "DATA", "AGE"]
    assert [f"{row[0]}/{row[1]}" for row in parsed[1:]] == order


@pytest.mark.usefixtures("spread_configmaps")
def test_get_chunk_size_pages_through_the_list(server: KubeliteProcess) -> None:
    """One object per page: three list requests, the later ones with the continue token of the one before."""
    result = server.kubectl("get", "configmaps", "-A", "-l", "spread=yes", "--chunk-size=1", "-v=6")
    urls = re.findall(r'verb="GET" url="[^"]*(/api/v1/configmaps\?[^"]*)" status="200 OK"', result.stderr)
    assert len(urls) == 3
    assert "continue=" not in urls[0] and "limit=1" in urls[0]
    assert all("continue=" in url and "limit=1" in url for url in urls[1:])
    assert [row[1] for row in table(result.stdout)[1:]] == ["zulu", "mike", "alpha"]


# -- watch --------------------------------------------------------------------------------------------


@pytest.fixture
def watch_namespace(server: KubeliteProcess) -> Iterator[str]:
    create_namespace(server, "watched")
    yield "watched"


def _pod(name: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"
        "spec:\n  containers:\n  - name: c\n    image: busybox\n"
    )


def test_get_watch_prints_new_rows(server: KubeliteProcess, watch_namespace: str) -> None:
    server.kubectl("create", "-n", watch_namespace, "-f", "-", input=_pod("first"))
    proc = start_kubectl(server, "get", "pods", "-n", watch_namespace, "-w", "--request-timeout=20s")
    killer = threading.Timer(30, proc.kill)
    killer.start()
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        first = proc.stdout.readline().split()
        assert first[:4] == ["first", "0/1", "Pending", "0"]
        server.kubectl("create", "-n", watch_namespace, "-f", "-", input=_pod("second"))
        second = proc.stdout.readline().split()
        assert second[:4] == ["second", "0/1", "Pending", "0"]
        server.kubectl("label", "-n", watch_namespace, "pod", "first", "changed=yes")
        assert proc.stdout.readline().split()[:4] == ["first", "0/1", "Pending", "0"]
    finally:
        proc.kill()
        proc.communicate()
        killer.cancel()
