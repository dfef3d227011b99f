"""`kubectl get` of every kind kubelite serves as kubectl's tables show it: the default columns and
rows of each kind, the `-o wide` columns of the kinds that have them, and what a real cluster adds or warns.

The cluster has an API server and nothing else: no controller manager, scheduler or kubelet. The expected
texts are what kubectl 1.36 prints against a real 1.36 kube-apiserver in that state (a deployment stays at
0/1, a pod stays Pending, a quota has no usage). One object of each kind comes from the manifests under
`manifests/`, created once for the module; the tests only read them.
"""

from __future__ import annotations

import pytest

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import AGE, CREATED, IP, KINDS_NAMESPACE, create_kinds, get_table

NS = KINDS_NAMESPACE


@pytest.fixture(scope="module", autouse=True)
def objects(server: KubeliteProcess) -> None:
    create_kinds(server, NS)


EVENT_ROWS = [
    [AGE, "Normal", "Started", "pod/pod1", "Started container app"],
    [AGE, "Normal", "Scaled", "deployment/deploy1", "Scaled up"],
]


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        pytest.param(
            "configmaps", [["NAME", "DATA", "AGE"], ["cm1", "2", AGE], ["kube-root-ca.crt", "1", AGE]], id="configmaps"
        ),
        pytest.param(
            "endpoints", [["NAME", "ENDPOINTS", "AGE"], ["ep1", "10.1.2.3:8080", AGE]], id="endpoints"
        ),
        pytest.param(
            "events", [["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], *EVENT_ROWS], id="events"
        ),
        pytest.param("limitranges", [["NAME", "CREATED AT"], ["lr1", CREATED]], id="limitranges"),
        pytest.param(
            "persistentvolumeclaims",
            [
                [
                    "NAME",
                    "STATUS",
                    "VOLUME",
                    "CAPACITY",
                    "ACCESS MODES",
                    "STORAGECLASS",
                    "VOLUMEATTRIBUTESCLASS",
                    "AGE",
                ],
                ["pvc1", "Pending", "", "", "", "", "<unset>", AGE],
            ],
            id="persistentvolumeclaims",
        ),
        pytest.param(
            "pods",
            [["NAME", "READY", "STATUS", "RESTARTS", "AGE"], ["pod1", "0/1", "Pending", "0", AGE]],
            id="pods",
        ),
        pytest.param(
            "podtemplates",
            [["NAME", "CONTAINERS", "IMAGES", "POD LABELS"], ["pt1", "app", "busybox:1.36", "app=tmpl"]],
            id="podtemplates",
        ),
        pytest.param(
            "replicationcontrollers",
            [["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["rc1", "1", "0", "0", AGE]],
            id="replicationcontrollers",
        ),
        pytest.param(
            "resourcequotas", [["NAME", "REQUEST", "LIMIT", "AGE"], ["rq1", "", "", AGE]], id="resourcequotas"
        ),
        pytest.param(
            "secrets", [["NAME", "TYPE", "DATA", "AGE"], ["secret1", "Opaque", "1", AGE]], id="secrets"
        ),
        pytest.param(
            "serviceaccounts/sa1", [["NAME", "SECRETS", "AGE"], ["sa1", "0", AGE]], id="serviceaccounts"
        ),
        pytest.param(
            "services",
            [
                ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
                ["svc1", "ClusterIP", IP, "<none>", "80/TCP", AGE],
            ],
            id="services",
        ),
        pytest.param(
            "controllerrevisions",
            [["NAME", "CONTROLLER", "REVISION", "AGE"], ["cr1", "<none>", "1", AGE]],
            id="controllerrevisions",
        ),
        pytest.param(
            "daemonsets",
            [
                ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
                ["ds1", "0", "0", "0", "0", "0", "<none>", AGE],
            ],
            id="daemonsets",
        ),
        pytest.param(
            "deployments",
            [["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], ["deploy1", "0/1", "0", "0", AGE]],
            id="deployments",
        ),
        pytest.param(
            "replicasets",
            [["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["rs1", "1", "0", "0", AGE]],
            id="replicasets",
        ),
        pytest.param("statefulsets", [["NAME", "READY", "AGE"], ["sts1", "0/1", AGE]], id="statefulsets"),
        pytest.param(
            "horizontalpodautoscalers",
            [
                ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
                ["hpa1", "Deployment/deploy1", "cpu: <unknown>/80%", "1", "3", "0", AGE],
            ],
            id="horizontalpodautoscalers",
        ),
        pytest.param(
            "cronjobs",
            [
                ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
                ["cj1", "*/5 * * * *", "<none>", "False", "0", "<none>", AGE],
            ],
            id="cronjobs",
        ),
        pytest.param(
            "jobs",
            [["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], ["job1", "Running", "0/1", "", AGE]],
            id="jobs",
        ),
        pytest.param("leases", [["NAME", "HOLDER", "AGE"], ["lease1", "holder-a", AGE]], id="leases"),
        pytest.param(
            "endpointslices",
            [["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], ["eps1", "IPv4", "8080", "10.1.2.3", AGE]],
            id="endpointslices",
        ),
        pytest.param(
            "events.events.k8s.io",
            [["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], *EVENT_ROWS],
            id="events.events.k8s.io",
        ),
        pytest.param(
            "ingresses",
            [
                ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
                ["ing1", "<none>", "shop.example.com", "", "80", AGE],
            ],
            id="ingresses",
        ),
        pytest.param(
            "networkpolicies",
            [["NAME", "POD-SELECTOR", "AGE"], ["np1", "app=one", AGE]],
            id="networkpolicies",
        ),
        pytest.param(
            "poddisruptionbudgets",
            [
                ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
                ["pdb1", "1", "N/A", "0", AGE],
            ],
            id="poddisruptionbudgets",
        ),
        pytest.param("roles", [["NAME", "CREATED AT"], ["role1", CREATED]], id="roles"),
        pytest.param(
            "rolebindings", [["NAME", "ROLE", "AGE"], ["rb1", "Role/role1", AGE]], id="rolebindings"
        ),
    ],
)
def test_get_namespaced_kind(server: KubeliteProcess, resource: str, expected: list[list[str]]) -> None:
    assert get_table(server, "-n", NS, resource) == expected


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        pytest.param(
            "nodes/kctl-node1",
            [["NAME", "STATUS", "ROLES", "AGE", "VERSION"], ["kctl-node1", "Unknown", "<none>", AGE, ""]],
            id="nodes",
        ),
        pytest.param(
            "persistentvolumes/kctl-pv1",
            [
                [
                    "NAME",
                    "CAPACITY",
                    "ACCESS MODES",
                    "RECLAIM POLICY",
                    "STATUS",
                    "CLAIM",
                    "STORAGECLASS",
                    "VOLUMEATTRIBUTESCLASS",
                    "REASON",
                    "AGE",
                ],
                ["kctl-pv1", "5Gi", "RWO", "Retain", "Pending", "", "", "<unset>", "", AGE],
            ],
            id="persistentvolumes",
        ),
        pytest.param(
            "ingressclasses/kctl-ic1",
            [
                ["NAME", "CONTROLLER", "PARAMETERS", "AGE"],
                ["kctl-ic1", "example.com/ingress-controller", "<none>", AGE],
            ],
            id="ingressclasses",
        ),
        pytest.param(
            "clusterroles/kctl-cr1", [["NAME", "CREATED AT"], ["kctl-cr1", CREATED]], id="clusterroles"
        ),
        pytest.param(
            "clusterrolebindings/kctl-crb1",
            [["NAME", "ROLE", "AGE"], ["kctl-crb1", "ClusterRole/kctl-cr1", AGE]],
            id="clusterrolebindings",
        ),
        pytest.param(
            "priorityclasses/kctl-pc1",
            [
                ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"],
                ["kctl-pc1", "1000", "false", AGE, "PreemptLowerPriority"],
            ],
            id="priorityclasses",
        ),
        pytest.param(
            "storageclasses/kctl-sc1",
            [
                ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
                ["kctl-sc1", "example.com/provisioner", "Delete", "Immediate", "false", AGE],
            ],
            id="storageclasses",
        ),
        pytest.param(f"namespaces/{NS}", [["NAME", "STATUS", "AGE"], [NS, "Active", AGE]], id="namespaces"),
    ],
)
def test_get_cluster_scoped_kind(server: KubeliteProcess, resource: str, expected: list[list[str]]) -> None:
    assert get_table(server, resource) == expected


@pytest.mark.parametrize(
    "resource",
    [
        "bindings",
        "selfsubjectreviews",
        "localsubjectaccessreviews",
        "selfsubjectaccessreviews",
        "selfsubjectrulesreviews",
        "subjectaccessreviews",
    ],
)
def test_get_create_only_kinds_is_not_allowed(server: KubeliteProcess, resource: str) -> None:
    """Kinds that only support create answer a list with 405."""
    result = server.kubectl("get", "-n", NS, resource, check=False)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "Error from server (MethodNotAllowed): "
        "the server does not allow this method on the requested resource\n"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ("-n", NS, "pods"),
            [
                [
                    "NAME",
                    "READY",
                    "STATUS",
                    "RESTARTS",
                    "AGE",
                    "IP",
                    "NODE",
                    "NOMINATED NODE",
                    "READINESS GATES",
                ],
                ["pod1", "0/1", "Pending", "0", AGE, "<none>", "<none>", "<none>", "<none>"],
            ],
            id="pods",
        ),
        pytest.param(
            ("-n", NS, "persistentvolumeclaims"),
            [
                [
                    "NAME",
                    "STATUS",
                    "VOLUME",
                    "CAPACITY",
                    "ACCESS MODES",
                    "STORAGECLASS",
                    "VOLUMEATTRIBUTESCLASS",
                    "AGE",
                    "VOLUMEMODE",
                ],
                ["pvc1", "Pending", "", "", "", "", "<unset>", AGE, "Filesystem"],
            ],
            id="persistentvolumeclaims",
        ),
        pytest.param(
            ("-n", NS, "replicationcontrollers"),
            [
                ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
                ["rc1", "1", "0", "0", AGE, "app", "busybox:1.36", "app=rc1"],
            ],
            id="replicationcontrollers",
        ),
        pytest.param(
            ("-n", NS, "services"),
            [
                ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
                ["svc1", "ClusterIP", IP, "<none>", "80/TCP", AGE, "app=one"],
            ],
            id="services",
        ),
        pytest.param(
            ("-n", NS, "daemonsets"),
            [
                [
                    "NAME",
                    "DESIRED",
                    "CURRENT",
                    "READY",
                    "UP-TO-DATE",
                    "AVAILABLE",
                    "NODE SELECTOR",
                    "AGE",
                    "CONTAINERS",
                    "IMAGES",
                    "SELECTOR",
                ],
                ["ds1", "0", "0", "0", "0", "0", "<none>", AGE, "app", "busybox:1.36", "app=ds1"],
            ],
            id="daemonsets",
        ),
        pytest.param(
            ("-n", NS, "deployments"),
            [
                ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
                ["deploy1", "0/1", "0", "0", AGE, "app", "busybox:1.36", "app=deploy1"],
            ],
            id="deployments",
        ),
        pytest.param(
            ("-n", NS, "replicasets"),
            [
                ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
                ["rs1", "1", "0", "0", AGE, "app", "busybox:1.36", "app=rs1"],
            ],
            id="replicasets",
        ),
        pytest.param(
            ("-n", NS, "statefulsets"),
            [["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"], ["sts1", "0/1", AGE, "app", "busybox:1.36"]],
            id="statefulsets",
        ),
        pytest.param(
            ("-n", NS, "cronjobs"),
            [
                [
                    "NAME",
                    "SCHEDULE",
                    "TIMEZONE",
                    "SUSPEND",
                    "ACTIVE",
                    "LAST SCHEDULE",
                    "AGE",
                    "CONTAINERS",
                    "IMAGES",
                    "SELECTOR",
                ],
                [
                    "cj1",
                    "*/5 * * * *",
                    "<none>",
                    "False",
                    "0",
                    "<none>",
                    AGE,
                    "app",
                    "busybox:1.36",
                    "<none>",
                ],
            ],
            id="cronjobs",
        ),
        pytest.param(
            ("-n", NS, "events"),
            [
                [
                    "LAST SEEN",
                    "TYPE",
                    "REASON",
                    "OBJECT",
                    "SUBOBJECT",
                    "SOURCE",
                    "MESSAGE",
                    "FIRST SEEN",
                    "COUNT",
                    "NAME",
                ],
                [
                    AGE,
                    "Normal",
                    "Started",
                    "pod/pod1",
                    "",
                    "kubelet",
                    "Started container app",
                    AGE,
                    "1",
                    "ev1",
                ],
                [
                    AGE,
                    "Normal",
                    "Scaled",
                    "deployment/deploy1",
                    "",
                    "example.com/controller, instance-1",
                    "Scaled up",
                    AGE,
                    "1",
                    "ev2",
                ],
            ],
            id="events",
        ),
        pytest.param(
            ("-n", NS, "rolebindings"),
            [
                ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"],
                ["rb1", "Role/role1", AGE, "", "", "/sa1"],
            ],
            id="rolebindings",
        ),
        pytest.param(
            ("nodes/kctl-node1",),
            [
                [
                    "NAME",
                    "STATUS",
                    "ROLES",
                    "AGE",
                    "VERSION",
                    "INTERNAL-IP",
                    "EXTERNAL-IP",
                    "OS-IMAGE",
                    "KERNEL-VERSION",
                    "CONTAINER-RUNTIME",
                ],
                [
                    "kctl-node1",
                    "Unknown",
                    "<none>",
                    AGE,
                    "",
                    "<none>",
                    "<none>",
                    "<unknown>",
                    "<unknown>",
                    "<unknown>",
                ],
            ],
            id="nodes",
        ),
        pytest.param(
            ("persistentvolumes/kctl-pv1",),
            [
                [
                    "NAME",
                    "CAPACITY",
                    "ACCESS MODES",
                    "RECLAIM POLICY",
                    "STATUS",
                    "CLAIM",
                    "STORAGECLASS",
                    "VOLUMEATTRIBUTESCLASS",
                    "REASON",
                    "AGE",
                    "VOLUMEMODE",
                ],
                ["kctl-pv1", "5Gi", "RWO", "Retain", "Pending", "", "", "<unset>", "", AGE, "Filesystem"],
            ],
            id="persistentvolumes",
        ),
        pytest.param(
            ("clusterrolebindings/kctl-crb1",),
            [
                ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"],
                ["kctl-crb1", "ClusterRole/kctl-cr1", AGE, "alice", "devs", ""],
            ],
            id="clusterrolebindings",
        ),
    ],
)
def test_get_wide(server: KubeliteProcess, args: tuple[str, ...], expected: list[list[str]]) -> None:
    assert get_table(server, *args, "-o", "wide") == expected


def test_get_wide_job_shows_the_generated_selector(server: KubeliteProcess) -> None:
    parsed = get_table(server, "-n", NS, "jobs", "-o", "wide")
    uid = server.kubectl("get", "-n", NS, "job", "job1", "-o", "jsonpath={.metadata.uid}").stdout
    assert parsed == [
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
        [
            "job1",
            "Running",
            "0/1",
            "",
            AGE,
            "app",
            "busybox:1.36",
            f"batch.kubernetes.io/controller-uid={uid}",
        ],
    ]


def test_get_endpoints_warns_of_the_deprecation(server: KubeliteProcess) -> None:
    result = server.kubectl("get", "-n", NS, "endpoints")
    assert (
        result.stderr
        == "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"
    )


def test_builtin_priority_classes(server: KubeliteProcess) -> None:
    rows = get_table(server, "priorityclasses")
    assert ["system-cluster-critical", "2000000000", "false", AGE, "PreemptLowerPriority"] in rows
    assert ["system-node-critical", "2000001000", "false", AGE, "PreemptLowerPriority"] in rows
