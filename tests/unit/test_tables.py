"""Server-side tables print the columns and cells kube-apiserver's printers do, for every built-in kind."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

from kubelite.apimachinery.compact import compact_spec_and_status
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.tables import TABLES, TableSpec, default_table
from kubelite.registry.tables import pods as pods_table
from kubelite.registry.tables.quantity import canonical_quantity

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(name: str, created: float = 300, **extra: Any) -> dict[str, Any]:
    return {"name": name, "namespace": "default", "creationTimestamp": ago(created), **extra}


def row(group: str, resource: str, obj: dict[str, Any]) -> list[Any]:
    return TABLES[(group, resource)].row(obj, NOW)


# -- columns ------------------------------------------------------------------------------------------------

COLUMNS = {
    ("", "pods"): "Name|Ready|Status|Restarts|Age|*IP|*Node|*Nominated Node|*Readiness Gates",
    ("", "services"): "Name|Type|Cluster-IP|External-IP|Port(s)|Age|*Selector",
    ("", "endpoints"): "Name|Endpoints|Age",
    ("", "nodes"): "Name|Status|Roles|Age|Version|*Internal-IP|*External-IP|*OS-Image|*Kernel-Version"
    "|*Container-Runtime",
    ("", "namespaces"): "Name|Status|Age",
    ("", "events"): "Last Seen|Type|Reason|Object|*Subobject|*Source|Message|*First Seen|*Count|*Name",
    ("events.k8s.io", "events"): "Last Seen|Type|Reason|Object|*Subobject|*Source|Message|*First Seen|*Count"
    "|*Name",
    ("", "configmaps"): "Name|Data|Age",
    ("", "secrets"): "Name|Type|Data|Age",
    ("", "serviceaccounts"): "Name|Secrets|Age",
    ("", "persistentvolumes"): "Name|Capacity|Access Modes|Reclaim Policy|Status|Claim|StorageClass"
    "|VolumeAttributesClass|Reason|Age|*VolumeMode",
    ("", "persistentvolumeclaims"): "Name|Status|Volume|Capacity|Access Modes|StorageClass"
    "|VolumeAttributesClass|Age|*VolumeMode",
    ("", "limitranges"): "Name|Created At",
    ("", "resourcequotas"): "Name|Request|Limit|Age",
    ("", "podtemplates"): "Name|Containers|Images|Pod Labels",
    ("", "replicationcontrollers"): "Name|Desired|Current|Ready|Age|*Containers|*Images|*Selector",
    ("apps", "deployments"): "Name|Ready|Up-to-date|Available|Age|*Containers|*Images|*Selector",
    ("apps", "replicasets"): "Name|Desired|Current|Ready|Age|*Containers|*Images|*Selector",
    ("apps", "statefulsets"): "Name|Ready|Age|*Containers|*Images",
    ("apps", "daemonsets"): "Name|Desired|Current|Ready|Up-to-date|Available|Node Selector|Age|*Containers"
    "|*Images|*Selector",
    ("apps", "controllerrevisions"): "Name|Controller|Revision|Age",
    ("autoscaling", "horizontalpodautoscalers"): "Name|Reference|Targets|MinPods|MaxPods|Replicas|Age",
    ("batch", "jobs"): "Name|Status|Completions|Duration|Age|*Containers|*Images|*Selector",
    ("batch", "cronjobs"): "Name|Schedule|Timezone|Suspend|Active|Last Schedule|Age|*Containers|*Images"
    "|*Selector",
    ("certificates.k8s.io", "certificatesigningrequests"): "Name|Age|SignerName|Requestor|RequestedDuration|Condition",
    ("coordination.k8s.io", "leases"): "Name|Holder|Age",
    ("discovery.k8s.io", "endpointslices"): "Name|AddressType|Ports|Endpoints|Age",
    ("networking.k8s.io", "ingresses"): "Name|Class|Hosts|Address|Ports|Age",
    ("networking.k8s.io", "ingressclasses"): "Name|Controller|Parameters|Age",
    ("networking.k8s.io", "networkpolicies"): "Name|Pod-Selector|Age",
    ("policy", "poddisruptionbudgets"): "Name|Min Available|Max Unavailable|Allowed Disruptions|Age",
    ("rbac.authorization.k8s.io", "roles"): "Name|Created At",
    ("rbac.authorization.k8s.io", "clusterroles"): "Name|Created At",
    ("rbac.authorization.k8s.io", "rolebindings"): "Name|Role|Age|*Users|*Groups|*ServiceAccounts",
    ("rbac.authorization.k8s.io", "clusterrolebindings"): "Name|Role|Age|*Users|*Groups|*ServiceAccounts",
    ("scheduling.k8s.io", "priorityclasses"): "Name|Value|Global-Default|Age|PreemptionPolicy",
    ("storage.k8s.io", "storageclasses"): "Name|Provisioner|ReclaimPolicy|VolumeBindingMode"
    "|AllowVolumeExpansion|Age",
}


def _described(spec: TableSpec) -> str:
    """Column names joined by `|`, priority-1 (wide-only) columns marked with `*`."""
    return "|".join(("*" if c["priority"] else "") + c["name"] for c in spec.columns)


@pytest.mark.parametrize("key", sorted(COLUMNS), ids=lambda key: f"{key[0] or 'core'}/{key[1]}")
def test_columns(key: tuple[str, str]) -> None:
    assert _described(TABLES[key]) == COLUMNS[key]


def test_every_listable_catalog_kind_has_a_table() -> None:
    served = {(spec.group, spec.resource) for spec in BUILTIN_RESOURCES if "list" in spec.verbs}
    assert set(TABLES) == served
    assert set(COLUMNS) == served


@pytest.mark.parametrize("key", sorted(TABLES), ids=lambda key: f"{key[0] or 'core'}/{key[1]}")
def test_bare_object_yields_a_full_row(key: tuple[str, str]) -> None:
    spec = TABLES[key]
    assert len(spec.row({}, NOW)) == len(spec.columns)
    for column in spec.columns:
        assert set(column) == {"name", "type", "format", "description", "priority"}
        assert column["description"]


def test_column_definitions_carry_kube_descriptions() -> None:
    name, ready, *_rest, age = TABLES[("", "pods")].columns[:5]
    assert name == {
        "name": "Name",
        "type": "string",
        "format": "name",
        "description": "Name must be unique within a namespace. Is required when creating resources, "
        "although some resources may allow a client to request the generation of an appropriate name "
        "automatically. Name is primarily intended for creation idempotence and configuration definition. "
        "Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/"
        "names#names",
        "priority": 0,
    }
    assert ready["format"] == ""
    assert age["description"].startswith("CreationTimestamp is a timestamp representing the server time")
    assert TABLES[("", "pods")].columns[5]["priority"] == 1


def test_default_table() -> None:
    spec = default_table()
    assert [c["type"] for c in spec.columns] == ["string", "date"]
    assert spec.row({"metadata": meta("limits", 90)}, NOW) == ["limits", "2025-06-01T11:58:30Z"]
    assert spec.row({}, NOW) == ["", "0001-01-01T00:00:00Z"]


# -- pods ---------------------------------------------------------------------------------------------------


def pod(
    phase: str = "Running",
    containers: int = 1,
    statuses: list[dict[str, Any]] | None = None,
    *,
    init: list[dict[str, Any]] | None = None,
    init_statuses: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    reason: str = "",
    **meta_extra: Any,
) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase}
    if statuses is not None:
        status["containerStatuses"] = statuses
    if init_statuses is not None:
        status["initContainerStatuses"] = init_statuses
    if conditions is not None:
        status["conditions"] = conditions
    if reason:
        status["reason"] = reason
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}", "image": "busybox"} for i in range(containers)]}
    if init is not None:
        spec["initContainers"] = init
    return {"metadata": meta("web-0", **meta_extra), "spec": spec, "status": status}


RUNNING = {"running": {"startedAt": ago(200)}}


def container(state: dict[str, Any], ready: bool = False, restarts: int = 0, **extra: Any) -> dict[str, Any]:
    return {"name": "c0", "state": state, "ready": ready, "restartCount": restarts, **extra}


def waiting(reason: str) -> dict[str, Any]:
    return {"waiting": {"reason": reason}}


def terminated(exit_code: int = 0, reason: str = "", signal: int = 0, finished: float = 60) -> dict[str, Any]:
    state: dict[str, Any] = {"exitCode": exit_code, "finishedAt": ago(finished)}
    if reason:
        state["reason"] = reason
    if signal:
        state["signal"] = signal
    return {"terminated": state}


def init_container(name: str, state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "state": state, "ready": False, "restartCount": 0, **extra}


TWO_INITS = [{"name": "migrate", "image": "m"}, {"name": "seed", "image": "s"}]
READY = {"type": "Ready", "status": "True"}
INITIALIZED = {"type": "Initialized", "status": "True"}


@pytest.mark.parametrize(
    ("obj", "ready", "status", "restarts"),
    [
        pytest.param(pod(statuses=[container(RUNNING, ready=True)]), "1/1", "Running", "0", id="running"),
        pytest.param(pod("Pending", containers=2), "0/2", "Pending", "0", id="pending-unscheduled"),
        pytest.param(
            pod("Pending", statuses=[container(waiting("ContainerCreating"))]),
            "0/1",
            "ContainerCreating",
            "0",
            id="container-creating",
        ),
        pytest.param(
            pod("Pending", statuses=[container(waiting("ErrImagePull"))]),
            "0/1",
            "ErrImagePull",
            "0",
            id="pull",
        ),
        pytest.param(
            pod(
                statuses=[
                    container(
                        waiting("CrashLoopBackOff"),
                        restarts=3,
                        lastState=terminated(1, "Error", finished=150),
                    )
                ]
            ),
            "0/1",
            "CrashLoopBackOff",
            "3 (2m30s ago)",
            id="crash-loop-with-last-restart",
        ),
        pytest.param(
            pod(statuses=[container(RUNNING, ready=True, restarts=2)]),
            "1/1",
            "Running",
            "2",
            id="restarts-no-date",
        ),
        pytest.param(
            pod(
                "Pending",
                init=TWO_INITS,
                init_statuses=[
                    init_container("migrate", terminated(0, "Completed")),
                    init_container("seed", RUNNING),
                ],
                statuses=[container(waiting("PodInitializing"))],
            ),
            "0/1",
            "Init:1/2",
            "0",
            id="init-progress",
        ),
        pytest.param(
            pod(
                "Pending",
                init=TWO_INITS,
                init_statuses=[
                    init_container("migrate", waiting("CrashLoopBackOff"), restartCount=4),
                    init_container("seed", waiting("PodInitializing")),
                ],
            ),
            "0/1",
            "Init:CrashLoopBackOff",
            "4",
            id="init-crash-loop",
        ),
        pytest.param(
            pod("Pending", init=TWO_INITS, init_statuses=[init_container("migrate", terminated(1))]),
            "0/1",
            "Init:ExitCode:1",
            "0",
            id="init-exit-code",
        ),
        pytest.param(
            pod(
                "Pending",
                init=TWO_INITS,
                init_statuses=[init_container("migrate", terminated(137, signal=9))],
            ),
            "0/1",
            "Init:Signal:9",
            "0",
            id="init-signal",
        ),
        pytest.param(
            pod("Failed", init=TWO_INITS, init_statuses=[init_container("migrate", terminated(2, "Error"))]),
            "0/1",
            "Init:Error",
            "0",
            id="init-error",
        ),
        pytest.param(
            pod(
                "Pending",
                init=TWO_INITS,
                init_statuses=[init_container("migrate", waiting("PodInitializing"))],
            ),
            "0/1",
            "Init:0/2",
            "0",
            id="init-pod-initializing",
        ),
        pytest.param(
            pod("Succeeded", statuses=[container(terminated(0, "Completed"))]),
            "0/1",
            "Completed",
            "0",
            id="completed",
        ),
        pytest.param(
            pod("Failed", statuses=[container(terminated(137))]), "0/1", "ExitCode:137", "0", id="exit-code"
        ),
        pytest.param(
            pod("Failed", statuses=[container(terminated(0, signal=15))]),
            "0/1",
            "Signal:15",
            "0",
            id="signal",
        ),
        pytest.param(
            pod(
                containers=2,
                statuses=[container(terminated(0, "Completed")), container(RUNNING, ready=True)],
                conditions=[READY],
            ),
            "1/2",
            "Running",
            "0",
            id="completed-container-with-running-sibling-ready",
        ),
        pytest.param(
            pod(
                containers=2, statuses=[container(terminated(0, "Completed")), container(RUNNING, ready=True)]
            ),
            "1/2",
            "NotReady",
            "0",
            id="completed-container-with-running-sibling-not-ready",
        ),
        pytest.param(
            pod(
                containers=2,
                statuses=[container(waiting("ImagePullBackOff")), container(waiting("CrashLoopBackOff"))],
            ),
            "0/2",
            "ImagePullBackOff",
            "0",
            id="first-listed-container-wins",
        ),
        pytest.param(
            pod(statuses=[container(RUNNING, ready=True)], deletionTimestamp=ago(5)),
            "1/1",
            "Terminating",
            "0",
            id="terminating",
        ),
        pytest.param(
            pod(statuses=[container(RUNNING, ready=True)], reason="NodeLost", deletionTimestamp=ago(5)),
            "1/1",
            "Unknown",
            "0",
            id="node-lost",
        ),
        pytest.param(
            pod("Succeeded", statuses=[container(terminated(0, "Completed"))], deletionTimestamp=ago(5)),
            "0/1",
            "Completed",
            "0",
            id="terminal-pod-being-deleted",
        ),
        pytest.param(pod("Failed", reason="Evicted"), "0/1", "Evicted", "0", id="evicted"),
        pytest.param(
            pod(
                "Pending",
                conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
            ),
            "0/1",
            "SchedulingGated",
            "0",
            id="scheduling-gated",
        ),
        pytest.param(
            pod(
                init=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}],
                init_statuses=[
                    init_container(
                        "proxy",
                        RUNNING,
                        ready=True,
                        started=True,
                        restartCount=1,
                        lastState=terminated(1, "Error", finished=600),
                    )
                ],
                statuses=[container(RUNNING, ready=True, restarts=1, lastState=terminated(1, finished=900))],
                conditions=[INITIALIZED, READY],
            ),
            "2/2",
            "Running",
            "2 (10m ago)",
            id="sidecar",
        ),
        pytest.param(
            pod(
                "Pending",
                init=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}],
                init_statuses=[init_container("proxy", RUNNING, started=False)],
            ),
            "0/2",
            "Init:0/1",
            "0",
            id="sidecar-not-started",
        ),
    ],
)
def test_pod_status(obj: dict[str, Any], ready: str, status: str, restarts: str) -> None:
    assert row("", "pods", obj)[1:4] == [ready, status, restarts]


def _identified(obj: dict[str, Any], uid: str, revision: str) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "uid": uid, "resourceVersion": revision}}


def test_pod_rows_of_compact_pods_are_those_of_the_pods() -> None:
    """The watch cache holds a pod's containers and statuses as JSON; its printer reads through that."""
    obj = _identified(
        pod(
            statuses=[container(terminated(1, reason="Error"), restarts=3, lastState=terminated())],
            conditions=[READY],
        ),
        "uid-compact",
        "7",
    )
    obj["spec"].update(nodeName="node-1", readinessGates=[{"conditionType": "Ready"}])
    plain_row = TABLES[("", "pods")].row(copy.deepcopy(obj) | {"metadata": {**obj["metadata"], "uid": "u2"}}, NOW)
    compact_spec_and_status(obj)
    assert isinstance(obj["status"]["containerStatuses"], orjson.Fragment)
    expected = ["web-0", "0/1", "Error", "3 (60s ago)", "5m", "<none>", "node-1", "<none>", "1/1"]
    assert row("", "pods", obj) == plain_row == expected


def test_pod_facts_are_kept_by_revision_and_the_time_cells_follow_the_clock() -> None:
    printer = TABLES[("", "pods")].printer()
    failing = _identified(
        pod(statuses=[container(waiting("CrashLoopBackOff"), restarts=2, lastState=terminated())]),
        "uid-kept",
        "1",
    )
    assert printer(failing, NOW)[2:5] == ["CrashLoopBackOff", "2 (60s ago)", "5m"]
    later = NOW + timedelta(minutes=10)
    assert printer(failing, later)[2:5] == ["CrashLoopBackOff", "2 (11m ago)", "15m"]
    # the same uid and resourceVersion are the same content: what the pod alone decides is not recomputed
    same_revision = copy.deepcopy(failing)
    same_revision["status"]["containerStatuses"][0]["state"] = RUNNING
    assert printer(same_revision, NOW)[2] == "CrashLoopBackOff"
    # a new resourceVersion is new content
    running = _identified(same_revision, "uid-kept", "2")
    assert printer(running, NOW)[2] == "Running"
    # without a resourceVersion (a dry run's object) nothing is kept
    unidentified = copy.deepcopy(running)
    del unidentified["metadata"]["resourceVersion"]
    unidentified["status"]["containerStatuses"][0]["state"] = waiting("ImagePullBackOff")
    assert printer(unidentified, NOW)[2] == "ImagePullBackOff"


def test_pod_facts_keep_the_most_recently_printed() -> None:
    facts = pods_table._FactsByRevision(2)
    a, b, c = (_identified(pod(), f"u-{n}", "1") for n in "abc")
    first, second = facts.of(a), facts.of(b)
    assert facts.of(a) is first  # a is now the most recent
    facts.of(c)  # b goes
    assert len(facts) == 2
    assert facts.of(a) is first
    assert facts.of(b) is not second  # computed again


def test_pod_wide_cells() -> None:
    obj = pod(
        statuses=[container(RUNNING, ready=True)],
        conditions=[READY, {"type": "example.com/lb", "status": "True"}],
    )
    obj["spec"].update(
        nodeName="node-1",
        readinessGates=[{"conditionType": "example.com/lb"}, {"conditionType": "example.com/dns"}],
    )
    obj["status"].update(podIPs=[{"ip": "10.244.1.7"}, {"ip": "fd00::7"}], nominatedNodeName="node-2")
    assert row("", "pods", obj) == [
        "web-0",
        "1/1",
        "Running",
        "0",
        "5m",
        "10.244.1.7",
        "node-1",
        "node-2",
        "1/2",
    ]


def test_pod_bare_wide_cells() -> None:
    assert row("", "pods", pod("Pending"))[4:] == ["5m", "<none>", "<none>", "<none>", "<none>"]


def test_pod_ip_prefers_pod_ip_field() -> None:
    obj = pod()
    obj["status"].update(podIP="10.0.0.9", podIPs=[{"ip": "10.0.0.8"}])
    assert row("", "pods", obj)[5] == "10.0.0.9"


@pytest.mark.parametrize(
    ("phase", "conditions"),
    [
        pytest.param(
            "Succeeded",
            [
                {
                    "type": "Completed",
                    "status": "True",
                    "reason": "Succeeded",
                    "message": "The pod has completed successfully.",
                }
            ],
            id="succeeded",
        ),
        pytest.param(
            "Failed",
            [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}],
            id="failed",
        ),
        pytest.param("Running", [], id="running"),
    ],
)
def test_pod_row_conditions(phase: str, conditions: list[dict[str, str]]) -> None:
    spec = TABLES[("", "pods")]
    assert spec.conditions is not None
    assert spec.conditions(pod(phase)) == conditions


# -- services -----------------------------------------------------------------------------------------------


def service(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": meta("web"), "spec": spec, "status": status or {}}


@pytest.mark.parametrize(
    ("obj", "cells"),
    [
        pytest.param(
            service(
                {
                    "type": "ClusterIP",
                    "clusterIP": "10.96.0.10",
                    "clusterIPs": ["10.96.0.10"],
                    "ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}],
                    "selector": {"app": "web", "tier": "fe"},
                }
            ),
            ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "5m", "app=web,tier=fe"],
            id="cluster-ip",
        ),
        pytest.param(
            service(
                {
                    "type": "NodePort",
                    "clusterIPs": ["10.96.7.1"],
                    "ports": [
                        {"port": 80, "protocol": "TCP", "nodePort": 30080},
                        {"port": 443, "protocol": "TCP", "nodePort": 30443},
                    ],
                }
            ),
            ["web", "NodePort", "10.96.7.1", "<none>", "80:30080/TCP,443:30443/TCP", "5m", "<none>"],
            id="node-port",
        ),
        pytest.param(
            service(
                {
                    "type": "ClusterIP",
                    "clusterIP": "10.96.0.10",
                    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53}],
                    "externalIPs": ["192.0.2.1", "192.0.2.2"],
                }
            ),
            ["web", "ClusterIP", "10.96.0.10", "192.0.2.1,192.0.2.2", "53/UDP,53/TCP", "5m", "<none>"],
            id="external-ips-and-default-protocol",
        ),
        pytest.param(
            service(
                {"type": "LoadBalancer", "clusterIP": "10.96.1.1", "ports": [{"port": 80, "nodePort": 31000}]}
            ),
            ["web", "LoadBalancer", "10.96.1.1", "<pending>", "80:31000/TCP", "5m", "<none>"],
            id="load-balancer-pending",
        ),
        pytest.param(
            service(
                {"type": "LoadBalancer", "clusterIP": "10.96.1.1", "externalIPs": ["192.0.2.9"]},
                {"loadBalancer": {"ingress": [{"ip": "203.0.113.5"}, {"hostname": "lb.example.com"}]}},
            ),
            [
                "web",
                "LoadBalancer",
                "10.96.1.1",
                "203.0.113.5,lb.example.com,192.0.2.9",
                "<none>",
                "5m",
                "<none>",
            ],
            id="load-balancer-ingress",
        ),
        pytest.param(
            service({"type": "ExternalName", "externalName": "db.example.com"}),
            ["web", "ExternalName", "<none>", "db.example.com", "<none>", "5m", "<none>"],
            id="external-name",
        ),
        pytest.param(
            service({"clusterIP": "None", "clusterIPs": ["None"], "selector": {"app": "db"}}),
            ["web", "ClusterIP", "None", "<none>", "<none>", "5m", "app=db"],
            id="headless-defaulted-type",
        ),
    ],
)
def test_service(obj: dict[str, Any], cells: list[Any]) -> None:
    assert row("", "services", obj) == cells


# -- workloads ----------------------------------------------------------------------------------------------

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {
        "containers": [{"name": "nginx", "image": "nginx:1.27"}, {"name": "log", "image": "fluent-bit:3"}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
    },
}
SELECTOR = {"matchLabels": {"app": "web"}}


def workload(spec: dict[str, Any], status: dict[str, Any], name: str = "web") -> dict[str, Any]:
    return {"metadata": meta(name, 3 * 86400), "spec": spec, "status": status}


@pytest.mark.parametrize(
    ("key", "obj", "cells"),
    [
        pytest.param(
            ("apps", "deployments"),
            workload(
                {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
                {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
            ),
            ["web", "2/3", 3, 2, "3d", "nginx,log", "nginx:1.27,fluent-bit:3", "app=web"],
            id="deployment",
        ),
        pytest.param(
            ("apps", "deployments"),
            workload(
                {
                    "selector": {
                        "matchLabels": {"tier": "fe"},
                        "matchExpressions": [
                            {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                            {"key": "canary", "operator": "DoesNotExist"},
                        ],
                    },
                    "template": {"spec": {"containers": []}},
                },
                {},
            ),
            ["web", "0/1", 0, 0, "3d", "", "", "!canary,env in (dev,prod),tier=fe"],
            id="deployment-set-based-selector-default-replicas",
        ),
        pytest.param(
            ("apps", "replicasets"),
            workload(
                {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
                {"replicas": 3, "readyReplicas": 1},
                "web-7d4b9c",
            ),
            ["web-7d4b9c", 3, 3, 1, "3d", "nginx,log", "nginx:1.27,fluent-bit:3", "app=web"],
            id="replicaset",
        ),
        pytest.param(
            ("apps", "replicasets"),
            workload({"replicas": 0, "selector": {}, "template": TEMPLATE}, {"replicas": 0}),
            ["web", 0, 0, 0, "3d", "nginx,log", "nginx:1.27,fluent-bit:3", "<none>"],
            id="replicaset-scaled-to-zero-empty-selector",
        ),
        pytest.param(
            ("apps", "statefulsets"),
            workload({"replicas": 3, "selector": SELECTOR, "template": TEMPLATE}, {"readyReplicas": 3}),
            ["web", "3/3", "3d", "nginx,log", "nginx:1.27,fluent-bit:3"],
            id="statefulset",
        ),
        pytest.param(
            ("apps", "daemonsets"),
            workload(
                {"selector": SELECTOR, "template": TEMPLATE},
                {
                    "desiredNumberScheduled": 3,
                    "currentNumberScheduled": 3,
                    "numberReady": 2,
                    "updatedNumberScheduled": 3,
                    "numberAvailable": 2,
                },
            ),
            [
                "web",
                3,
                3,
                2,
                3,
                2,
                "kubernetes.io/os=linux",
                "3d",
                "nginx,log",
                "nginx:1.27,fluent-bit:3",
                "app=web",
            ],
            id="daemonset",
        ),
        pytest.param(
            ("", "replicationcontrollers"),
            workload({"replicas": 2, "template": TEMPLATE}, {"replicas": 2, "readyReplicas": 2}),
            ["web", 2, 2, 2, "3d", "nginx,log", "nginx:1.27,fluent-bit:3", "app=web"],
            id="replicationcontroller-selector-defaults-to-template-labels",
        ),
        pytest.param(
            ("", "podtemplates"),
            {"metadata": meta("tmpl"), "template": TEMPLATE},
            ["tmpl", "nginx,log", "nginx:1.27,fluent-bit:3", "app=web"],
            id="podtemplate",
        ),
        pytest.param(
            ("apps", "controllerrevisions"),
            {
                "metadata": meta(
                    "web-6c5f",
                    ownerReferences=[
                        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "controller": True}
                    ],
                ),
                "revision": 2,
            },
            ["web-6c5f", "statefulset.apps/web", 2, "5m"],
            id="controllerrevision",
        ),
        pytest.param(
            ("apps", "controllerrevisions"),
            {
                "metadata": meta(
                    "orphan",
                    ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": "x", "controller": False}],
                ),
                "revision": 1,
            },
            ["orphan", "<none>", 1, "5m"],
            id="controllerrevision-without-controller",
        ),
    ],
)
def test_workloads(key: tuple[str, str], obj: dict[str, Any], cells: list[Any]) -> None:
    assert row(*key, obj) == cells


# -- batch --------------------------------------------------------------------------------------------------


def job(spec: dict[str, Any], status: dict[str, Any], **meta_extra: Any) -> dict[str, Any]:
    base = {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "abc"}}, "template": TEMPLATE}
    return {"metadata": meta("pi", 600, **meta_extra), "spec": {**base, **spec}, "status": status}


COMPLETE = {"type": "Complete", "status": "True"}


@pytest.mark.parametrize(
    ("obj", "status", "completions", "duration"),
    [
        pytest.param(
            job(
                {"completions": 1, "parallelism": 1},
                {"succeeded": 1, "startTime": ago(500), "completionTime": ago(458), "conditions": [COMPLETE]},
            ),
            "Complete",
            "1/1",
            "42s",
            id="complete",
        ),
        pytest.param(
            job({}, {"active": 1, "startTime": ago(300)}), "Running", "0/1", "5m", id="running-defaults"
        ),
        pytest.param(job({"parallelism": 3}, {"succeeded": 1}), "Running", "1/1 of 3", "", id="work-queue"),
        pytest.param(
            job({"completions": 5, "parallelism": 2}, {"succeeded": 2}), "Running", "2/5", "", id="fixed"
        ),
        pytest.param(
            job({"completions": 1}, {"conditions": [{"type": "Failed", "status": "True"}]}),
            "Failed",
            "0/1",
            "",
            id="failed",
        ),
        pytest.param(
            job({"completions": 1}, {"conditions": [{"type": "Suspended", "status": "True"}]}),
            "Suspended",
            "0/1",
            "",
            id="suspended",
        ),
        pytest.param(
            job({"completions": 1}, {"conditions": [{"type": "FailureTarget", "status": "True"}]}),
            "FailureTarget",
            "0/1",
            "",
            id="failure-target",
        ),
        pytest.param(
            job(
                {"completions": 1},
                {"conditions": [{"type": "Suspended", "status": "True"}]},
                deletionTimestamp=ago(1),
            ),
            "Terminating",
            "0/1",
            "",
            id="terminating",
        ),
        pytest.param(
            job({"completions": 1}, {"conditions": [{"type": "Complete", "status": "False"}, COMPLETE]}),
            "Running",
            "0/1",
            "",
            id="first-condition-of-a-type-decides",
        ),
    ],
)
def test_job(obj: dict[str, Any], status: str, completions: str, duration: str) -> None:
    assert row("batch", "jobs", obj) == [
        "pi",
        status,
        completions,
        duration,
        "10m",
        "nginx,log",
        "nginx:1.27,fluent-bit:3",
        "batch.kubernetes.io/controller-uid=abc",
    ]


@pytest.mark.parametrize(
    ("spec", "status", "cells"),
    [
        pytest.param(
            {"schedule": "*/5 * * * *", "suspend": False},
            {"active": [{"name": "backup-1"}], "lastScheduleTime": ago(120)},
            ["backup", "*/5 * * * *", "<none>", "False", 1, "2m"],
            id="scheduled",
        ),
        pytest.param(
            {"schedule": "0 3 * * *", "timeZone": "Europe/Paris", "suspend": True},
            {},
            ["backup", "0 3 * * *", "Europe/Paris", "True", 0, "<none>"],
            id="suspended-never-run",
        ),
        pytest.param(
            {"schedule": "@hourly"}, {}, ["backup", "@hourly", "<none>", "False", 0, "<none>"], id="defaults"
        ),
    ],
)
def test_cron_job(spec: dict[str, Any], status: dict[str, Any], cells: list[Any]) -> None:
    template = {"spec": {"template": TEMPLATE, "selector": {"matchLabels": {"job": "backup"}}}}
    obj = {"metadata": meta("backup", 7200), "spec": {**spec, "jobTemplate": template}, "status": status}
    assert row("batch", "cronjobs", obj) == [
        *cells,
        "120m",
        "nginx,log",
        "nginx:1.27,fluent-bit:3",
        "job=backup",
    ]


# -- nodes --------------------------------------------------------------------------------------------------

NODE_INFO = {
    "kubeletVersion": "v1.36.0",
    "osImage": "Debian GNU/Linux 12 (bookworm)",
    "kernelVersion": "6.1.0-18-amd64",
    "containerRuntimeVersion": "containerd://2.0.1",
}


def node(
    conditions: list[dict[str, Any]], labels: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    return {
        "metadata": {"name": "node-1", "creationTimestamp": ago(86400 * 20), "labels": labels or {}},
        "spec": spec,
        "status": {
            "conditions": conditions,
            "nodeInfo": NODE_INFO,
            "addresses": [
                {"type": "Hostname", "address": "node-1"},
                {"type": "InternalIP", "address": "172.18.0.2"},
            ],
        },
    }


@pytest.mark.parametrize(
    ("obj", "status", "roles"),
    [
        pytest.param(
            node([{"type": "Ready", "status": "True"}], {"node-role.kubernetes.io/control-plane": ""}),
            "Ready",
            "control-plane",
            id="control-plane",
        ),
        pytest.param(
            node(
                [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "False"}],
                {
                    "kubernetes.io/role": "worker",
                    "node-role.kubernetes.io/infra": "",
                    "node-role.kubernetes.io/": "",
                },
            ),
            "NotReady",
            "infra,worker",
            id="not-ready-two-roles",
        ),
        pytest.param(
            node([{"type": "Ready", "status": "Unknown"}], unschedulable=True),
            "NotReady,SchedulingDisabled",
            "<none>",
            id="cordoned-unknown",
        ),
        pytest.param(node([]), "Unknown", "<none>", id="no-conditions"),
    ],
)
def test_node(obj: dict[str, Any], status: str, roles: str) -> None:
    assert row("", "nodes", obj) == [
        "node-1",
        status,
        roles,
        "20d",
        "v1.36.0",
        "172.18.0.2",
        "<none>",
        "Debian GNU/Linux 12 (bookworm)",
        "6.1.0-18-amd64",
        "containerd://2.0.1",
    ]


def test_node_without_info() -> None:
    obj = {"metadata": {"name": "bare"}}
    assert row("", "nodes", obj) == [
        "bare",
        "Unknown",
        "<none>",
        "<unknown>",
        "",
        "<none>",
        "<none>",
        "<unknown>",
        "<unknown>",
        "<unknown>",
    ]


# -- events -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "obj", "cells"),
    [
        pytest.param(
            ("", "events"),
            {
                "metadata": meta("web-0.17f3a"),
                "involvedObject": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{nginx}"},
                "reason": "Pulled",
                "message": 'Container image "nginx:1.27" already present on machine\n',
                "source": {"component": "kubelet", "host": "node-1"},
                "firstTimestamp": ago(3600),
                "lastTimestamp": ago(300),
                "count": 3,
                "type": "Normal",
            },
            [
                "5m",
                "Normal",
                "Pulled",
                "pod/web-0",
                "spec.containers{nginx}",
                "kubelet, node-1",
                'Container image "nginx:1.27" already present on machine',
                "60m",
                3,
                "web-0.17f3a",
            ],
            id="core-event",
        ),
        pytest.param(
            ("", "events"),
            {
                "metadata": meta("ns.1"),
                "involvedObject": {"kind": "Namespace"},
                "reason": "Created",
                "eventTime": "2025-06-01T11:59:20.123456Z",
                "reportingComponent": "kube-controller-manager",
                "reportingInstance": "cp-1",
                "type": "Warning",
            },
            [
                "39s",
                "Warning",
                "Created",
                "namespace",
                "",
                "kube-controller-manager, cp-1",
                "",
                "39s",
                1,
                "ns.1",
            ],
            id="core-event-new-style-singleton",
        ),
        pytest.param(
            ("events.k8s.io", "events"),
            {
                "metadata": meta("web.1"),
                "eventTime": "2025-06-01T11:50:00.000000Z",
                "series": {"count": 4, "lastObservedTime": "2025-06-01T11:58:00.000000Z"},
                "reportingController": "deployment-controller",
                "reportingInstance": "",
                "action": "Scale",
                "reason": "ScalingReplicaSet",
                "regarding": {"kind": "Deployment", "name": "web", "namespace": "default"},
                "note": "  Scaled up replica set web-7d4b9c to 3  ",
                "type": "Normal",
            },
            [
                "2m",
                "Normal",
                "ScalingReplicaSet",
                "deployment/web",
                "",
                "deployment-controller",
                "Scaled up replica set web-7d4b9c to 3",
                "10m",
                4,
                "web.1",
            ],
            id="events-v1-series",
        ),
        pytest.param(
            ("events.k8s.io", "events"),
            {
                "metadata": meta("old.1"),
                "reason": "Killing",
                "regarding": {"kind": "Pod", "name": "web-1", "fieldPath": "spec.containers{app}"},
                "note": "Stopping container app",
                "deprecatedSource": {"component": "kubelet"},
                "deprecatedFirstTimestamp": ago(7200),
                "deprecatedCount": 2,
                "type": "Normal",
            },
            [
                "120m",
                "Normal",
                "Killing",
                "pod/web-1",
                "spec.containers{app}",
                "kubelet",
                "Stopping container app",
                "120m",
                2,
                "old.1",
            ],
            id="events-v1-deprecated-fields",
        ),
    ],
)
def test_event(key: tuple[str, str], obj: dict[str, Any], cells: list[Any]) -> None:
    assert row(*key, obj) == cells


# -- configuration and accounts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "obj", "cells"),
    [
        pytest.param(
            ("", "namespaces"),
            {"metadata": {"name": "dev", "creationTimestamp": ago(90)}, "status": {"phase": "Terminating"}},
            ["dev", "Terminating", "90s"],
            id="namespace",
        ),
        pytest.param(
            ("", "namespaces"),
            {"metadata": {"name": "fresh", "creationTimestamp": ago(5)}},
            ["fresh", "Active", "5s"],
            id="namespace-default-phase",
        ),
        pytest.param(
            ("", "configmaps"),
            {"metadata": meta("cfg"), "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}},
            ["cfg", 3, "5m"],
            id="configmap",
        ),
        pytest.param(
            ("", "configmaps"), {"metadata": meta("empty")}, ["empty", 0, "5m"], id="configmap-empty"
        ),
        pytest.param(
            ("", "secrets"),
            {"metadata": meta("tls"), "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}},
            ["tls", "kubernetes.io/tls", 2, "5m"],
            id="secret",
        ),
        pytest.param(
            ("", "secrets"),
            {"metadata": meta("creds"), "data": {"user": "YQ=="}, "stringData": {"user": "a", "pass": "b"}},
            ["creds", "Opaque", 2, "5m"],
            id="secret-string-data-default-type",
        ),
        pytest.param(
            ("", "serviceaccounts"),
            {"metadata": meta("builder"), "secrets": [{"name": "builder-token"}]},
            ["builder", 1, "5m"],
            id="serviceaccount",
        ),
        pytest.param(
            ("", "serviceaccounts"), {"metadata": meta("default")}, ["default", 0, "5m"], id="sa-none"
        ),
        pytest.param(
            ("", "limitranges"),
            {"metadata": meta("limits", 3600), "spec": {"limits": [{"type": "Container"}]}},
            ["limits", "2025-06-01T11:00:00Z"],
            id="limitrange-default-table",
        ),
        pytest.param(
            ("rbac.authorization.k8s.io", "roles"),
            {"metadata": meta("reader", 60)},
            ["reader", "2025-06-01T11:59:00Z"],
            id="role-default-table",
        ),
        pytest.param(
            ("rbac.authorization.k8s.io", "clusterroles"),
            {"metadata": {"name": "admin", "creationTimestamp": "2025-01-02T03:04:05Z"}},
            ["admin", "2025-01-02T03:04:05Z"],
            id="clusterrole-default-table",
        ),
        pytest.param(
            ("", "resourcequotas"),
            {
                "metadata": meta("quota"),
                "status": {
                    "hard": {
                        "pods": "10",
                        "requests.cpu": "2",
                        "limits.memory": "2Gi",
                        "limits.cpu": "4000m",
                    },
                    "used": {"pods": "3", "requests.cpu": "500m", "limits.memory": "1024Mi"},
                },
            },
            ["quota", "pods: 3/10, requests.cpu: 500m/2", "limits.cpu: 0/4, limits.memory: 1Gi/2Gi", "5m"],
            id="resourcequota",
        ),
        pytest.param(
            ("coordination.k8s.io", "leases"),
            {"metadata": meta("kube-scheduler"), "spec": {"holderIdentity": "cp-1_2f5e"}},
            ["kube-scheduler", "cp-1_2f5e", "5m"],
            id="lease",
        ),
        pytest.param(
            ("coordination.k8s.io", "leases"), {"metadata": meta("idle")}, ["idle", "", "5m"], id="lease-free"
        ),
        pytest.param(
            ("scheduling.k8s.io", "priorityclasses"),
            {"metadata": meta("high"), "value": 1000000, "globalDefault": True, "preemptionPolicy": "Never"},
            ["high", 1000000, True, "5m", "Never"],
            id="priorityclass",
        ),
        pytest.param(
            ("scheduling.k8s.io", "priorityclasses"),
            {"metadata": meta("low"), "value": -5},
            ["low", -5, False, "5m", "PreemptLowerPriority"],
            id="priorityclass-defaults",
        ),
    ],
)
def test_simple_kinds(key: tuple[str, str], obj: dict[str, Any], cells: list[Any]) -> None:
    assert row(*key, obj) == cells


# -- storage ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "obj", "cells"),
    [
        pytest.param(
            ("", "persistentvolumes"),
            {
                "metadata": {"name": "pv-1", "creationTimestamp": ago(86400)},
                "spec": {
                    "capacity": {"storage": "10Gi"},
                    "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
                    "persistentVolumeReclaimPolicy": "Delete",
                    "claimRef": {"namespace": "default", "name": "data"},
                    "storageClassName": "standard",
                    "volumeMode": "Block",
                },
                "status": {"phase": "Bound"},
            },
            [
                "pv-1",
                "10Gi",
                "RWO,RWX",
                "Delete",
                "Bound",
                "default/data",
                "standard",
                "<unset>",
                "",
                "24h",
                "Block",
            ],
            id="pv-bound",
        ),
        pytest.param(
            ("", "persistentvolumes"),
            {
                "metadata": {
                    "name": "pv-2",
                    "creationTimestamp": ago(86400),
                    "deletionTimestamp": ago(1),
                    "annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"},
                },
                "spec": {
                    "capacity": {"storage": "1024Mi"},
                    "accessModes": ["ReadWriteOncePod", "ReadOnlyMany"],
                    "storageClassName": "ignored",
                    "volumeAttributesClassName": "gold",
                },
                "status": {"phase": "Failed", "reason": "Recycle failed"},
            },
            [
                "pv-2",
                "1Gi",
                "ROX,RWOP",
                "Retain",
                "Terminating",
                "",
                "legacy",
                "gold",
                "Recycle failed",
                "24h",
                "Filesystem",
            ],
            id="pv-terminating-defaults",
        ),
        pytest.param(
            ("", "persistentvolumeclaims"),
            {
                "metadata": meta("data"),
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "5Gi"}},
                    "storageClassName": "standard",
                    "volumeName": "pv-1",
                },
                "status": {
                    "phase": "Bound",
                    "accessModes": ["ReadWriteOnce"],
                    "capacity": {"storage": "10Gi"},
                },
            },
            ["data", "Bound", "pv-1", "10Gi", "RWO", "standard", "<unset>", "5m", "Filesystem"],
            id="pvc-bound",
        ),
        pytest.param(
            ("", "persistentvolumeclaims"),
            {
                "metadata": meta("waiting"),
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}},
            },
            ["waiting", "Pending", "", "", "", "", "<unset>", "5m", "Filesystem"],
            id="pvc-pending",
        ),
        pytest.param(
            ("storage.k8s.io", "storageclasses"),
            {
                "metadata": {
                    "name": "standard",
                    "creationTimestamp": ago(600),
                    "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
                },
                "provisioner": "rancher.io/local-path",
                "reclaimPolicy": "Delete",
                "volumeBindingMode": "WaitForFirstConsumer",
                "allowVolumeExpansion": True,
            },
            ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", True, "10m"],
            id="storageclass-default",
        ),
        pytest.param(
            ("storage.k8s.io", "storageclasses"),
            {"metadata": {"name": "fast", "creationTimestamp": ago(600)}, "provisioner": "csi.example.com"},
            ["fast", "csi.example.com", "Delete", "Immediate", False, "10m"],
            id="storageclass-defaults",
        ),
    ],
)
def test_storage(key: tuple[str, str], obj: dict[str, Any], cells: list[Any]) -> None:
    assert row(*key, obj) == cells


# -- autoscaling --------------------------------------------------------------------------------------------


def hpa(metrics: list[dict[str, Any]] | None, current: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 2,
        "maxReplicas": 10,
    }
    if metrics is not None:
        spec["metrics"] = metrics
    status: dict[str, Any] = {"currentReplicas": 4, "desiredReplicas": 4}
    if current is not None:
        status["currentMetrics"] = current
    return {"metadata": meta("web"), "spec": spec, "status": status}


def cpu_target(utilization: int) -> dict[str, Any]:
    return {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}},
    }


MEMORY_VALUE = {
    "type": "Resource",
    "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "512Mi"}},
}
PODS_METRIC = {
    "type": "Pods",
    "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
}
EXTERNAL_AVG = {
    "type": "External",
    "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue", "averageValue": "30"}},
}
OBJECT_VALUE = {
    "type": "Object",
    "object": {"metric": {"name": "hits"}, "target": {"type": "Value", "value": "2k"}},
}
CONTAINER_CPU = {
    "type": "ContainerResource",
    "containerResource": {"name": "cpu", "container": "app", "target": {"type": "Utilization"}},
}


@pytest.mark.parametrize(
    ("obj", "targets"),
    [
        pytest.param(
            hpa(
                [cpu_target(80)],
                [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 45}}}],
            ),
            "cpu: 45%/80%",
            id="cpu-utilization",
        ),
        pytest.param(hpa([cpu_target(80)]), "cpu: <unknown>/80%", id="not-yet-observed"),
        pytest.param(hpa(None), "cpu: <unknown>/80%", id="defaulted-metrics"),
        pytest.param(
            hpa(
                [MEMORY_VALUE, PODS_METRIC],
                [
                    {
                        "type": "Resource",
                        "resource": {"name": "memory", "current": {"averageValue": "268435456"}},
                    },
                    {
                        "type": "Pods",
                        "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "1500m"}},
                    },
                ],
            ),
            "memory: 268435456/512Mi, 1500m/1k",
            id="average-values-canonical",
        ),
        pytest.param(
            hpa([EXTERNAL_AVG, OBJECT_VALUE, CONTAINER_CPU]),
            "<unknown>/30 (avg), <unknown>/2k + 1 more...",
            id="more-than-two",
        ),
        pytest.param(
            hpa(
                [CONTAINER_CPU, OBJECT_VALUE],
                [
                    {
                        "type": "ContainerResource",
                        "containerResource": {"name": "cpu", "current": {"averageUtilization": 7}},
                    },
                    {"type": "Object", "object": {"metric": {"name": "hits"}, "current": {"value": "1200"}}},
                ],
            ),
            "cpu: 7%/<auto>, 1200/2k",
            id="container-resource-and-object",
        ),
        pytest.param(hpa([{"type": "Custom"}]), "<unknown type>", id="unknown-type"),
    ],
)
def test_hpa(obj: dict[str, Any], targets: str) -> None:
    assert row("autoscaling", "horizontalpodautoscalers", obj) == [
        "web",
        "Deployment/web",
        targets,
        "2",
        10,
        4,
        "5m",
    ]


def test_hpa_default_min_replicas() -> None:
    obj = hpa([cpu_target(50)])
    del obj["spec"]["minReplicas"]
    assert row("autoscaling", "horizontalpodautoscalers", obj)[3] == "1"


# -- networking, discovery, policy, rbac --------------------------------------------------------------------


def endpoints(subsets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": meta("web"), "subsets": subsets}


def addresses(*ips: str) -> list[dict[str, str]]:
    return [{"ip": ip} for ip in ips]


@pytest.mark.parametrize(
    ("key", "obj", "cells"),
    [
        pytest.param(
            ("", "endpoints"),
            endpoints([{"addresses": addresses("10.1.0.4", "10.1.0.5"), "ports": [{"port": 8080}]}]),
            ["web", "10.1.0.4:8080,10.1.0.5:8080", "5m"],
            id="endpoints",
        ),
        pytest.param(
            ("", "endpoints"),
            endpoints(
                [
                    {"addresses": addresses("10.1.0.4", "10.1.0.5"), "ports": [{"port": 53}, {"port": 9153}]},
                    {"addresses": addresses("fd00::1"), "ports": [{"port": 53}]},
                ]
            ),
            ["web", "10.1.0.4:53,10.1.0.5:53,10.1.0.4:9153 + 2 more...", "5m"],
            id="endpoints-more",
        ),
        pytest.param(
            ("", "endpoints"),
            endpoints(
                [
                    {"addresses": addresses("fd00::1")},
                    {"addresses": addresses("fd00::2"), "ports": [{"port": 80}]},
                ]
            ),
            ["web", "fd00::1,[fd00::2]:80", "5m"],
            id="endpoints-headless-and-ipv6",
        ),
        pytest.param(("", "endpoints"), endpoints([]), ["web", "<none>", "5m"], id="endpoints-none"),
        pytest.param(
            ("discovery.k8s.io", "endpointslices"),
            {
                "metadata": meta("web-abcde"),
                "addressType": "IPv4",
                "ports": [{"name": "http", "port": 80}, {"name": "metrics"}, {}],
                "endpoints": [
                    {"addresses": ["10.1.0.4"]},
                    {"addresses": ["10.1.0.5", "10.1.0.6"]},
                    {"addresses": ["10.1.0.7"]},
                ],
            },
            ["web-abcde", "IPv4", "80,metrics,*", "10.1.0.4,10.1.0.5,10.1.0.6 + 1 more...", "5m"],
            id="endpointslice",
        ),
        pytest.param(
            ("discovery.k8s.io", "endpointslices"),
            {"metadata": meta("empty"), "addressType": "IPv6", "endpoints": []},
            ["empty", "IPv6", "<unset>", "<unset>", "5m"],
            id="endpointslice-empty",
        ),
        pytest.param(
            ("networking.k8s.io", "ingresses"),
            {
                "metadata": meta("web"),
                "spec": {
                    "ingressClassName": "nginx",
                    "rules": [
                        {"host": f"{host}.example.com"} if host else {} for host in ("a", "", "b", "c", "d")
                    ],
                    "tls": [{"hosts": ["a.example.com"]}],
                },
                "status": {
                    "loadBalancer": {"ingress": [{"hostname": "lb.example.com"}, {"ip": "203.0.113.10"}]}
                },
            },
            [
                "web",
                "nginx",
                "a.example.com,b.example.com,c.example.com + 2 more...",
                "203.0.113.10,lb.example.com",
                "80, 443",
                "5m",
            ],
            id="ingress",
        ),
        pytest.param(
            ("networking.k8s.io", "ingresses"),
            {"metadata": meta("catch-all"), "spec": {"defaultBackend": {"service": {"name": "web"}}}},
            ["catch-all", "<none>", "*", "", "80", "5m"],
            id="ingress-default-backend",
        ),
        pytest.param(
            ("networking.k8s.io", "ingressclasses"),
            {
                "metadata": meta("nginx"),
                "spec": {
                    "controller": "k8s.io/ingress-nginx",
                    "parameters": {
                        "apiGroup": "k8s.example.com",
                        "kind": "IngressParameters",
                        "name": "external",
                    },
                },
            },
            ["nginx", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/external", "5m"],
            id="ingressclass",
        ),
        pytest.param(
            ("networking.k8s.io", "ingressclasses"),
            {"metadata": meta("plain"), "spec": {"controller": "example.com/ingress"}},
            ["plain", "example.com/ingress", "<none>", "5m"],
            id="ingressclass-no-parameters",
        ),
        pytest.param(
            ("networking.k8s.io", "networkpolicies"),
            {"metadata": meta("deny"), "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}},
            ["deny", "<none>", "5m"],
            id="networkpolicy-all-pods",
        ),
        pytest.param(
            ("networking.k8s.io", "networkpolicies"),
            {
                "metadata": meta("db"),
                "spec": {
                    "podSelector": {
                        "matchExpressions": [{"key": "role", "operator": "NotIn", "values": ["x"]}]
                    }
                },
            },
            ["db", "role notin (x)", "5m"],
            id="networkpolicy-selector",
        ),
        pytest.param(
            ("networking.k8s.io", "networkpolicies"),
            {
                "metadata": meta("bad"),
                "spec": {"podSelector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}},
            },
            ["bad", "<error>", "5m"],
            id="networkpolicy-invalid-selector",
        ),
        pytest.param(
            ("policy", "poddisruptionbudgets"),
            {"metadata": meta("web"), "spec": {"minAvailable": 2}, "status": {"disruptionsAllowed": 1}},
            ["web", "2", "N/A", 1, "5m"],
            id="pdb-min-available",
        ),
        pytest.param(
            ("policy", "poddisruptionbudgets"),
            {"metadata": meta("web"), "spec": {"maxUnavailable": "25%"}},
            ["web", "N/A", "25%", 0, "5m"],
            id="pdb-max-unavailable",
        ),
        pytest.param(
            ("rbac.authorization.k8s.io", "rolebindings"),
            {
                "metadata": meta("dev"),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
                "subjects": [
                    {"kind": "User", "name": "alice"},
                    {"kind": "User", "name": "bob"},
                    {"kind": "Group", "name": "devs"},
                    {"kind": "ServiceAccount", "name": "ci", "namespace": "tools"},
                ],
            },
            ["dev", "ClusterRole/edit", "5m", "alice, bob", "devs", "tools/ci"],
            id="rolebinding",
        ),
        pytest.param(
            ("rbac.authorization.k8s.io", "clusterrolebindings"),
            {
                "metadata": {"name": "admins", "creationTimestamp": ago(300)},
                "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"},
                "subjects": [{"kind": "Group", "name": "system:masters"}],
            },
            ["admins", "ClusterRole/cluster-admin", "5m", "", "system:masters", ""],
            id="clusterrolebinding",
        ),
    ],
)
def test_networking_policy_rbac(key: tuple[str, str], obj: dict[str, Any], cells: list[Any]) -> None:
    assert row(*key, obj) == cells


# -- quantities ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("10Gi", "10Gi", id="binary-kept"),
        pytest.param("1024Mi", "1Gi", id="binary-promoted"),
        pytest.param("1536Mi", "1536Mi", id="binary-not-divisible"),
        pytest.param("1.5Gi", "1536Mi", id="binary-fraction"),
        pytest.param("0.5", "500m", id="decimal-fraction"),
        pytest.param("1000m", "1", id="milli-whole"),
        pytest.param("500m", "500m", id="milli-kept"),
        pytest.param("1000", "1k", id="thousand"),
        pytest.param("1500", "1500", id="not-a-multiple-of-a-thousand"),
        pytest.param("12e6", "12e6", id="exponent-kept"),
        pytest.param("1e2", "100", id="exponent-folded"),
        pytest.param("0.0000000001", "1n", id="rounded-up-to-nano"),
        pytest.param("0", "0", id="zero"),
        pytest.param("0Gi", "0", id="zero-binary"),
        pytest.param(3, "3", id="json-number"),
        pytest.param(None, "<nil>", id="missing"),
        pytest.param("lots", "lots", id="unparseable"),
    ],
)
def test_canonical_quantity(raw: object, expected: str) -> None:
    assert canonical_quantity(raw) == expected
