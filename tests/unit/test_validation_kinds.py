"""Semantic validation and defaults of the built-in kinds, through their strategies as the store runs them
(prepare, default, validate): every invalid object yields kube's causes, exactly (field, reason, message)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubelite.apimachinery.errors import StatusError
from kubelite.registry.builtin import BUILTIN_REGISTRATIONS
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.strategy import Strategy
from kubelite.registry.validation.cron import schedule_error

Cause = tuple[str, str, str]

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
POD_UPDATE = (
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
    "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)


def _strategy(group: str, resource: str) -> Strategy:
    spec = next(s for s in BUILTIN_RESOURCES if (s.group, s.resource) == (group, resource))
    new_strategy = BUILTIN_REGISTRATIONS[(group, resource)].new_strategy
    assert new_strategy is not None
    return new_strategy(spec)


def _created(group: str, resource: str, obj: dict[str, Any]) -> tuple[Strategy, dict[str, Any]]:
    strategy = _strategy(group, resource)
    obj = copy.deepcopy(obj)
    meta = obj.setdefault("metadata", {})
    meta.setdefault("name", "x")
    meta.setdefault("uid", "uid-1")
    if strategy.spec.namespaced:
        meta.setdefault("namespace", "default")
    strategy.prepare_for_create(obj)
    strategy.default(obj)
    return strategy, obj


def create_causes(group: str, resource: str, obj: dict[str, Any]) -> list[Cause]:
    strategy, created = _created(group, resource, obj)
    return [(e.field, e.reason, e.message) for e in strategy.validate(created)]


def update_causes(group: str, resource: str, old: dict[str, Any], change: Any) -> list[Cause]:
    strategy, stored = _created(group, resource, old)
    assert strategy.validate(stored) == []
    new = copy.deepcopy(stored)
    change(new)
    strategy.prepare_for_update(new, stored)
    strategy.default(new)
    return [(e.field, e.reason, e.message) for e in strategy.validate_update(new, stored)]


def pod(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"containers": [{"name": "web", "image": "nginx:1.27"}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": base}


def container(**fields: Any) -> dict[str, Any]:
    return {"name": "web", "image": "nginx:1.27", **fields}


def template(labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {"containers": [container()]}
    pod_spec.update(spec)
    return {"metadata": {"labels": labels if labels is not None else {"app": "web"}}, "spec": pod_spec}


def workload(kind: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}}, "template": template()}
    body.update(spec)
    return {"kind": kind, "metadata": {"name": "web"}, "spec": body}


def service(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ports": [{"port": 80}], "selector": {"app": "web"}}
    body.update(spec)
    return {"kind": "Service", "metadata": {"name": "web"}, "spec": body}


# -- pods ----------------------------------------------------------------------------------------------

POD_CASES = [
    pytest.param(pod(), [], id="valid"),
    pytest.param(pod(containers=[]), [("spec.containers", "FieldValueRequired", "Required value")], id="no-containers"),
    pytest.param(
        pod(containers=[{"name": "web"}]),
        [("spec.containers[0].image", "FieldValueRequired", "Required value")],
        id="image-required",
    ),
    pytest.param(
        pod(containers=[container(name="Web_1")]),
        [("spec.containers[0].name", "FieldValueInvalid", f'Invalid value: "Web_1": {LABEL_MSG}')],
        id="container-name-dns-label",
    ),
    pytest.param(
        pod(containers=[container(), container()]),
        [("spec.containers[1].name", "FieldValueDuplicate", 'Duplicate value: "web"')],
        id="duplicate-container",
    ),
    pytest.param(
        pod(initContainers=[container()]),
        [("spec.initContainers[0].name", "FieldValueDuplicate", 'Duplicate value: "web"')],
        id="init-container-shares-a-name",
    ),
    pytest.param(
        pod(containers=[container(image=" nginx")]),
        [
            (
                "spec.containers[0].image",
                "FieldValueInvalid",
                'Invalid value: " nginx": must not have leading or trailing whitespace',
            )
        ],
        id="image-whitespace",
    ),
    pytest.param(
        pod(
            containers=[
                container(
                    ports=[
                        {"containerPort": 0},
                        {"containerPort": 70000, "protocol": "HTTP"},
                        {"containerPort": 80, "name": "Http--Port_Name"},
                        {"containerPort": 81, "name": "metrics"},
                        {"containerPort": 82, "name": "metrics"},
                    ]
                )
            ]
        ),
        [
            ("spec.containers[0].ports[0].containerPort", "FieldValueRequired", "Required value"),
            (
                "spec.containers[0].ports[1].containerPort",
                "FieldValueInvalid",
                "Invalid value: 70000: must be between 1 and 65535, inclusive",
            ),
            (
                "spec.containers[0].ports[1].protocol",
                "FieldValueNotSupported",
                'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
            ),
            (
                "spec.containers[0].ports[2].name",
                "FieldValueInvalid",
                'Invalid value: "Http--Port_Name": must contain only alpha-numeric characters (a-z, 0-9), and '
                "hyphens (-)",
            ),
            (
                "spec.containers[0].ports[2].name",
                "FieldValueInvalid",
                'Invalid value: "Http--Port_Name": must not contain consecutive hyphens',
            ),
            ("spec.containers[0].ports[4].name", "FieldValueDuplicate", 'Duplicate value: "metrics"'),
        ],
        id="ports",
    ),
    pytest.param(
        pod(restartPolicy="Sometimes", dnsPolicy="Google"),
        [
            (
                "spec.restartPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
            ),
            (
                "spec.dnsPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", '
                '"Default", "None"',
            ),
        ],
        id="policies",
    ),
    pytest.param(
        pod(containers=[container(resources={"limits": {"cpu": "1"}, "requests": {"cpu": "1500m"}})]),
        [
            (
                "spec.containers[0].resources.requests",
                "FieldValueInvalid",
                'Invalid value: "1500m": must be less than or equal to cpu limit of 1',
            )
        ],
        id="requests-above-limits",
    ),
    pytest.param(
        pod(containers=[container(resources={"requests": {"memory": "-1", "gpu": "1", "example.com/dongle": "0.5"}})]),
        [
            (
                "spec.containers[0].resources.requests[memory]",
                "FieldValueInvalid",
                'Invalid value: "-1": must be greater than or equal to 0',
            ),
            (
                "spec.containers[0].resources.requests[gpu]",
                "FieldValueInvalid",
                'Invalid value: "gpu": must be a standard resource type or fully qualified',
            ),
            (
                "spec.containers[0].resources.requests[gpu]",
                "FieldValueInvalid",
                'Invalid value: "gpu": must be a standard resource for containers',
            ),
            (
                "spec.containers[0].resources.requests[example.com/dongle]",
                "FieldValueInvalid",
                'Invalid value: "500m": must be an integer',
            ),
            (
                "spec.containers[0].resources.limits",
                "FieldValueRequired",
                "Required value: Limit must be set for non overcommitable resources",
            ),
        ],
        id="resource-names-and-amounts",
    ),
    pytest.param(
        pod(
            containers=[
                container(
                    env=[
                        {"name": "A=B"},
                        {"name": ""},
                        {"name": "FROM", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                        {"name": "NONE", "valueFrom": {}},
                        {"name": "BAD", "valueFrom": {"fieldRef": {"fieldPath": "spec.foo"}}},
                        {"name": "KEY", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "a b"}}},
                    ]
                )
            ]
        ),
        [
            (
                "spec.containers[0].env[0].name",
                "FieldValueInvalid",
                'Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII '
                "characters other than '='",
            ),
            ("spec.containers[0].env[1].name", "FieldValueRequired", "Required value"),
            (
                "spec.containers[0].env[2].valueFrom",
                "FieldValueInvalid",
                'Invalid value: "": may not be specified when `value` is not empty',
            ),
            (
                "spec.containers[0].env[3].valueFrom",
                "FieldValueInvalid",
                'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or '
                "`secretKeyRef`",
            ),
            (
                "spec.containers[0].env[4].valueFrom.fieldRef.fieldPath",
                "FieldValueInvalid",
                'Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo',
            ),
            (
                "spec.containers[0].env[5].valueFrom.configMapKeyRef.key",
                "FieldValueInvalid",
                f'Invalid value: "a b": {CONFIG_KEY_MSG}',
            ),
        ],
        id="env",
    ),
    pytest.param(
        pod(
            volumes=[
                {"name": "a", "secret": {"secretName": "s"}, "configMap": {"name": "c"}},
                {"name": "b", "emptyDir": {}},
                {"name": "b", "emptyDir": {}},
                {"name": "c", "configMap": {"name": "c", "defaultMode": 1000}},
                {"name": "Bad", "hostPath": {"path": "/x/../y", "type": "Folder"}},
            ],
            containers=[container(volumeMounts=[{"name": "missing", "mountPath": "/data"}])],
        ),
        [
            (
                "spec.volumes[0].configMap",
                "FieldValueForbidden",
                "Forbidden: may not specify more than 1 volume type",
            ),
            ("spec.volumes[2].name", "FieldValueDuplicate", 'Duplicate value: "b"'),
            (
                "spec.volumes[3].configMap.defaultMode",
                "FieldValueInvalid",
                "Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive",
            ),
            (
                "spec.volumes[4].hostPath.path",
                "FieldValueInvalid",
                "Invalid value: \"/x/../y\": must not contain '..'",
            ),
            (
                "spec.volumes[4].hostPath.type",
                "FieldValueNotSupported",
                'Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", '
                '"DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
            ),
            ("spec.volumes[4].name", "FieldValueInvalid", f'Invalid value: "Bad": {LABEL_MSG}'),
            ("spec.containers[0].volumeMounts[0].name", "FieldValueNotFound", 'Not found: "missing"'),
        ],
        id="volumes-and-mounts",
    ),
    pytest.param(
        pod(containers=[container(livenessProbe={"httpGet": {"port": 0}, "successThreshold": 2})]),
        [
            (
                "spec.containers[0].livenessProbe.httpGet.port",
                "FieldValueInvalid",
                "Invalid value: 0: must be between 1 and 65535, inclusive",
            ),
            (
                "spec.containers[0].livenessProbe.successThreshold",
                "FieldValueInvalid",
                "Invalid value: 2: must be 1",
            ),
        ],
        id="probes",
    ),
    pytest.param(
        pod(containers=[container(readinessProbe={})]),
        [
            (
                "spec.containers[0].readinessProbe",
                "FieldValueRequired",
                "Required value: must specify a handler type",
            )
        ],
        id="probe-without-handler",
    ),
    pytest.param(
        pod(activeDeadlineSeconds=0, nodeName="Node_1", tolerations=[{"operator": "Equal", "value": "x"}]),
        [
            (
                "spec.nodeName",
                "FieldValueInvalid",
                'Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                "'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            ),
            (
                "spec.activeDeadlineSeconds",
                "FieldValueInvalid",
                "Invalid value: 0: must be between 1 and 2147483647, inclusive",
            ),
            (
                "spec.tolerations[0].operator",
                "FieldValueInvalid",
                'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values '
                'and all keys"',
            ),
        ],
        id="scheduling-fields",
    ),
    pytest.param(
        pod(ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
        [("spec.ephemeralContainers", "FieldValueForbidden", "Forbidden: cannot be set on create")],
        id="ephemeral-containers-on-create",
    ),
]


@pytest.mark.parametrize(("obj", "causes"), POD_CASES)
def test_pod_create(obj: dict[str, Any], causes: list[Cause]) -> None:
    assert create_causes("", "pods", obj) == causes


def _set_image(new: dict[str, Any]) -> None:
    new["spec"]["containers"][0]["image"] = "nginx:1.28"


def _set_port(new: dict[str, Any]) -> None:
    new["spec"]["containers"][0]["ports"] = [{"containerPort": 81, "protocol": "TCP"}]


def _add_container(new: dict[str, Any]) -> None:
    new["spec"]["containers"].append(container(name="sidecar"))


def _raise_deadline(new: dict[str, Any]) -> None:
    new["spec"]["activeDeadlineSeconds"] = 200


def _add_toleration(new: dict[str, Any]) -> None:
    new["spec"]["tolerations"] = [{"key": "a", "operator": "Exists"}]


@pytest.mark.parametrize(
    ("old", "change", "causes"),
    [
        pytest.param(pod(), _set_image, [], id="image-may-change"),
        pytest.param(pod(), _add_toleration, [], id="tolerations-may-be-added"),
        pytest.param(
            pod(),
            _add_container,
            [("spec.containers", "FieldValueForbidden", "Forbidden: pod updates may not add or remove containers")],
            id="containers-fixed",
        ),
        pytest.param(
            pod(activeDeadlineSeconds=100),
            _raise_deadline,
            [
                (
                    "spec.activeDeadlineSeconds",
                    "FieldValueInvalid",
                    "Invalid value: 200: must be less than or equal to previous value",
                )
            ],
            id="deadline-only-shrinks",
        ),
    ],
)
def test_pod_update(old: dict[str, Any], change: Any, causes: list[Cause]) -> None:
    assert update_causes("", "pods", old, change) == causes


def test_pod_update_of_another_field_is_forbidden() -> None:
    causes = update_causes("", "pods", pod(), _set_port)
    assert [(field, reason) for field, reason, _ in causes] == [("spec", "FieldValueForbidden")]
    message = causes[0][2]
    assert message.startswith(POD_UPDATE + "\n")
    assert "ports" in message.split("\n", 1)[1]


# -- services ------------------------------------------------------------------------------------------

SERVICE_CASES = [
    pytest.param(service(), [], id="valid"),
    pytest.param(service(ports=[]), [("spec.ports", "FieldValueRequired", "Required value")], id="ports-required"),
    pytest.param(service(ports=[], clusterIP="None", clusterIPs=["None"]), [], id="headless-needs-no-ports"),
    pytest.param(
        service(ports=[{"port": 80}, {"port": 0, "name": "Web"}, {"port": 443, "name": "b", "targetPort": "Bad_1"}]),
        [
            ("spec.ports[0].name", "FieldValueRequired", "Required value"),
            ("spec.ports[1].name", "FieldValueInvalid", f'Invalid value: "Web": {LABEL_MSG}'),
            ("spec.ports[1].port", "FieldValueInvalid", "Invalid value: 0: must be between 1 and 65535, inclusive"),
            (
                "spec.ports[1].targetPort",
                "FieldValueInvalid",
                "Invalid value: 0: must be between 1 and 65535, inclusive",
            ),
            (
                "spec.ports[2].targetPort",
                "FieldValueInvalid",
                'Invalid value: "Bad_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
            ),
        ],
        id="ports",
    ),
    pytest.param(
        service(ports=[{"port": 80, "name": "a"}, {"port": 80, "name": "b"}]),
        [
            (
                "spec.ports[1]",
                "FieldValueDuplicate",
                'Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,'
                '"NodePort":0}',
            )
        ],
        id="duplicate-port",
    ),
    pytest.param(
        service(type="Internal", sessionAffinity="Sticky", selector={"app": "a b"}),
        [
            ("spec.selector", "FieldValueInvalid", f'Invalid value: "a b": {LABEL_VALUE_MSG}'),
            (
                "spec.sessionAffinity",
                "FieldValueNotSupported",
                'Unsupported value: "Sticky": supported values: "ClientIP", "None"',
            ),
            (
                "spec.type",
                "FieldValueNotSupported",
                'Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", '
                '"NodePort"',
            ),
        ],
        id="type-affinity-selector",
    ),
    pytest.param(
        service(ports=[{"port": 80, "nodePort": 30080}]),
        [
            (
                "spec.ports[0].nodePort",
                "FieldValueForbidden",
                "Forbidden: may not be used when `type` is 'ClusterIP'",
            )
        ],
        id="node-port-on-cluster-ip",
    ),
    pytest.param(
        {"kind": "Service", "metadata": {"name": "db"}, "spec": {"type": "ExternalName"}},
        [("spec.externalName", "FieldValueRequired", "Required value")],
        id="external-name-required",
    ),
    pytest.param(
        {"kind": "Service", "metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "Db_1"}},
        [
            (
                "spec.externalName",
                "FieldValueInvalid",
                'Invalid value: "Db_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                "'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            )
        ],
        id="external-name-subdomain",
    ),
    pytest.param(
        service(type="NodePort", clusterIP="None", clusterIPs=["None"]),
        [
            (
                "spec.clusterIPs[0]",
                "FieldValueInvalid",
                "Invalid value: \"None\": may not be set to 'None' for NodePort services",
            )
        ],
        id="headless-node-port",
    ),
]


@pytest.mark.parametrize(("obj", "causes"), SERVICE_CASES)
def test_service_create(obj: dict[str, Any], causes: list[Cause]) -> None:
    assert create_causes("", "services", obj) == causes


def test_service_cluster_ip_is_immutable() -> None:
    old = service(clusterIP="10.96.0.10", clusterIPs=["10.96.0.10"], ipFamilies=["IPv4"], ipFamilyPolicy="SingleStack")

    def move(new: dict[str, Any]) -> None:
        new["spec"]["clusterIP"] = "10.96.0.11"
        new["spec"]["clusterIPs"] = ["10.96.0.11"]

    assert update_causes("", "services", old, move) == [
        ("spec.clusterIPs[0]", "FieldValueInvalid", 'Invalid value: ["10.96.0.11"]: may not change once set')
    ]


# -- workloads -----------------------------------------------------------------------------------------

WORKLOAD_CASES = [
    pytest.param("apps", "deployments", workload("Deployment"), [], id="deployment-valid"),
    pytest.param(
        "apps",
        "deployments",
        workload("Deployment", selector={"matchLabels": {"app": "api"}}),
        [
            (
                "spec.template.metadata.labels",
                "FieldValueInvalid",
                'Invalid value: {"app":"web"}: `selector` does not match template `labels`',
            )
        ],
        id="deployment-selector-mismatch",
    ),
    pytest.param(
        "apps",
        "deployments",
        {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {"template": template()}},
        [
            ("spec.selector", "FieldValueRequired", "Required value"),
            (
                "spec.template.metadata.labels",
                "FieldValueInvalid",
                'Invalid value: {"app":"web"}: `selector` does not match template `labels`',
            ),
        ],
        id="deployment-selector-required",
    ),
    pytest.param(
        "apps",
        "deployments",
        workload("Deployment", selector={}),
        [("spec.selector", "FieldValueInvalid", "Invalid value: {}: empty selector is invalid for deployment")],
        id="deployment-empty-selector",
    ),
    pytest.param(
        "apps",
        "deployments",
        workload(
            "Deployment",
            replicas=-1,
            revisionHistoryLimit=-2,
            minReadySeconds=700,
            template=template(restartPolicy="Never"),
            strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}},
        ),
        [
            ("spec.replicas", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"),
            (
                "spec.template.spec.restartPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Never": supported values: "Always"',
            ),
            (
                "spec.strategy.rollingUpdate.maxUnavailable",
                "FieldValueInvalid",
                'Invalid value: "0%": may not be 0 when `maxSurge` is 0',
            ),
            (
                "spec.revisionHistoryLimit",
                "FieldValueInvalid",
                "Invalid value: -2: must be greater than or equal to 0",
            ),
            (
                "spec.progressDeadlineSeconds",
                "FieldValueInvalid",
                "Invalid value: 600: must be greater than minReadySeconds",
            ),
        ],
        id="deployment-spec-rules",
    ),
    pytest.param(
        "apps",
        "deployments",
        workload("Deployment", strategy={"type": "BlueGreen"}),
        [
            (
                "spec.strategy",
                "FieldValueNotSupported",
                'Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", '
                '"RollingUpdate"',
            )
        ],
        id="deployment-strategy-type",
    ),
    pytest.param(
        "apps",
        "deployments",
        workload("Deployment", template=template(containers=[{"name": "web"}])),
        [("spec.template.spec.containers[0].image", "FieldValueRequired", "Required value")],
        id="deployment-template-prefix",
    ),
    pytest.param("apps", "replicasets", workload("ReplicaSet"), [], id="replicaset-valid"),
    pytest.param(
        "apps",
        "replicasets",
        workload("ReplicaSet", template=template(activeDeadlineSeconds=10)),
        [
            (
                "spec.template.spec.activeDeadlineSeconds",
                "FieldValueForbidden",
                "Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
            )
        ],
        id="replicaset-active-deadline",
    ),
    pytest.param("apps", "statefulsets", workload("StatefulSet", serviceName="web"), [], id="statefulset-valid"),
    pytest.param(
        "apps",
        "statefulsets",
        workload("StatefulSet", podManagementPolicy="Random", template=template(restartPolicy="OnFailure")),
        [
            (
                "spec.podManagementPolicy",
                "FieldValueInvalid",
                "Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
            ),
            (
                "spec.template.spec.restartPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "OnFailure": supported values: "Always"',
            ),
        ],
        id="statefulset-rules",
    ),
    pytest.param("apps", "daemonsets", workload("DaemonSet"), [], id="daemonset-valid"),
    pytest.param(
        "apps",
        "daemonsets",
        workload("DaemonSet", updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0}}),
        [
            (
                "spec.updateStrategy.rollingUpdate.maxUnavailable",
                "FieldValueRequired",
                "Required value: cannot be 0 when maxSurge is 0",
            )
        ],
        id="daemonset-rolling-update",
    ),
    pytest.param(
        "",
        "replicationcontrollers",
        {"kind": "ReplicationController", "metadata": {"name": "web"}, "spec": {"template": template()}},
        [],
        id="replicationcontroller-selector-from-labels",
    ),
    pytest.param(
        "batch",
        "jobs",
        {"kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": template(restartPolicy="Never")}},
        [],
        id="job-valid",
    ),
    pytest.param(
        "batch",
        "jobs",
        {"kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": template()}},
        [
            (
                "spec.template.spec.restartPolicy",
                "FieldValueRequired",
                'Required value: valid values: "OnFailure", "Never"',
            )
        ],
        id="job-restart-policy-defaults-to-always",
    ),
    pytest.param(
        "batch",
        "jobs",
        {
            "kind": "Job",
            "metadata": {"name": "pi"},
            "spec": {"completions": -1, "parallelism": -2, "template": template(restartPolicy="Sometimes")},
        },
        [
            ("spec.parallelism", "FieldValueInvalid", "Invalid value: -2: must be greater than or equal to 0"),
            ("spec.completions", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"),
            (
                "spec.template.spec.restartPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
            ),
            (
                "spec.template.spec.restartPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
            ),
        ],
        id="job-counts",
    ),
    pytest.param(
        "batch",
        "cronjobs",
        {
            "kind": "CronJob",
            "metadata": {"name": "c" * 53},
            "spec": {
                "schedule": "*/5 * * *",
                "concurrencyPolicy": "Sometimes",
                "jobTemplate": {"spec": {"template": template(restartPolicy="OnFailure")}},
            },
        },
        [
            (
                "spec.schedule",
                "FieldValueInvalid",
                'Invalid value: "*/5 * * *": expected exactly 5 fields, found 4: [*/5 * * *]',
            ),
            (
                "spec.concurrencyPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
            ),
            ("metadata.name", "FieldValueInvalid", f'Invalid value: "{"c" * 53}": must be no more than 52 bytes'),
        ],
        id="cronjob-rules",
    ),
    pytest.param(
        "batch",
        "cronjobs",
        {
            "kind": "CronJob",
            "metadata": {"name": "tick"},
            "spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": template()}}},
        },
        [
            (
                "spec.jobTemplate.spec.template.spec.restartPolicy",
                "FieldValueRequired",
                'Required value: valid values: "OnFailure", "Never"',
            )
        ],
        id="cronjob-template-prefix",
    ),
]


@pytest.mark.parametrize(("group", "resource", "obj", "causes"), WORKLOAD_CASES)
def test_workload_create(group: str, resource: str, obj: dict[str, Any], causes: list[Cause]) -> None:
    assert create_causes(group, resource, obj) == causes


@pytest.mark.parametrize(
    ("group", "resource", "kind"),
    [("apps", "deployments", "Deployment"), ("apps", "replicasets", "ReplicaSet"), ("apps", "daemonsets", "DaemonSet")],
)
def test_apps_selector_is_immutable(group: str, resource: str, kind: str) -> None:
    def change(new: dict[str, Any]) -> None:
        new["spec"]["selector"] = {"matchLabels": {"app": "api"}}
        new["spec"]["template"]["metadata"]["labels"] = {"app": "api"}

    assert update_causes(group, resource, workload(kind), change) == [
        ("spec.selector", "FieldValueInvalid", 'Invalid value: {"matchLabels":{"app":"api"}}: field is immutable')
    ]


def test_job_template_is_immutable() -> None:
    job = {"kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": template(restartPolicy="Never")}}

    def change(new: dict[str, Any]) -> None:
        new["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox"

    causes = update_causes("batch", "jobs", job, change)
    assert [(field, reason) for field, reason, _ in causes] == [("spec.template", "FieldValueInvalid")]
    assert causes[0][2].endswith(": field is immutable")


@pytest.mark.parametrize(
    ("schedule", "error"),
    [
        pytest.param("*/5 * * * *", None, id="valid"),
        pytest.param("0 0 * * MON-FRI", None, id="names"),
        pytest.param("@daily", None, id="descriptor"),
        pytest.param("@every 90s", None, id="every"),
        pytest.param("60 * * * *", "end of range (60) above maximum (59): 60", id="minute-range"),
        pytest.param("* 24 * * *", "end of range (24) above maximum (23): 24", id="hour-range"),
        pytest.param("* * 0 * *", "beginning of range (0) below minimum (1): 0", id="day-range"),
        pytest.param("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1", id="backwards"),
        pytest.param(
            "x * * * *",
            'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
            id="not-a-number",
        ),
        pytest.param("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]", id="six-fields"),
        pytest.param("@weird", "unrecognized descriptor: @weird", id="descriptor-unknown"),
        pytest.param("*/0 * * * *", "step of range should be a positive number: */0", id="zero-step"),
    ],
)
def test_cron_schedules(schedule: str, error: str | None) -> None:
    assert schedule_error(schedule) == error


# -- config maps and secrets ---------------------------------------------------------------------------

CONFIG_CASES = [
    pytest.param("configmaps", {"kind": "ConfigMap", "data": {"a": "b"}}, [], id="configmap-valid"),
    pytest.param(
        "configmaps",
        {"kind": "ConfigMap", "data": {"a b": "x", "k": "v"}, "binaryData": {"k": "eA==", "..x": "eA=="}},
        [
            ("data[a b]", "FieldValueInvalid", f'Invalid value: "a b": {CONFIG_KEY_MSG}'),
            ("data[k]", "FieldValueInvalid", 'Invalid value: "k": duplicate of key present in binaryData'),
            ("binaryData[..x]", "FieldValueInvalid", "Invalid value: \"..x\": must not start with '..'"),
        ],
        id="configmap-keys",
    ),
    pytest.param(
        "configmaps",
        {"kind": "ConfigMap", "data": {"big": "x" * (1024 * 1024 + 1)}},
        [("", "FieldValueTooLong", "Too long: may not be more than 1048576 bytes")],
        id="configmap-size",
    ),
    pytest.param("secrets", {"kind": "Secret", "stringData": {"a": "b"}}, [], id="secret-valid"),
    pytest.param(
        "secrets",
        {"kind": "Secret", "type": "kubernetes.io/tls", "data": {"tls.crt": "YQ=="}},
        [("data[tls.key]", "FieldValueRequired", "Required value")],
        id="secret-tls",
    ),
    pytest.param(
        "secrets",
        {"kind": "Secret", "type": "kubernetes.io/basic-auth"},
        [
            ("data[username]", "FieldValueRequired", "Required value"),
            ("data[password]", "FieldValueRequired", "Required value"),
        ],
        id="secret-basic-auth",
    ),
    pytest.param(
        "secrets",
        {"kind": "Secret", "type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": ""}},
        [("data[ssh-privatekey]", "FieldValueRequired", "Required value")],
        id="secret-ssh-auth",
    ),
    pytest.param(
        "secrets",
        {"kind": "Secret", "type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "[1]"}},
        [
            (
                "data[.dockerconfigjson]",
                "FieldValueInvalid",
                'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type '
                "map[string]interface {}",
            )
        ],
        id="secret-dockerconfigjson",
    ),
    pytest.param(
        "secrets",
        {"kind": "Secret", "type": "kubernetes.io/service-account-token"},
        [("metadata.annotations[kubernetes.io/service-account.name]", "FieldValueRequired", "Required value")],
        id="secret-service-account-token",
    ),
]


@pytest.mark.parametrize(("resource", "obj", "causes"), CONFIG_CASES)
def test_config_data(resource: str, obj: dict[str, Any], causes: list[Cause]) -> None:
    assert create_causes("", resource, obj) == causes


def test_secret_type_and_immutable_data_are_fixed() -> None:
    secret = {"kind": "Secret", "immutable": True, "data": {"a": "YQ=="}}

    def change(new: dict[str, Any]) -> None:
        new["type"] = "kubernetes.io/basic-auth"
        new["data"] = {"username": "YQ=="}
        new["immutable"] = False

    assert update_causes("", "secrets", secret, change) == [
        ("type", "FieldValueInvalid", 'Invalid value: "kubernetes.io/basic-auth": field is immutable'),
        ("immutable", "FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set"),
        ("data", "FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set"),
    ]


def test_secret_data_must_be_base64() -> None:
    with pytest.raises(StatusError) as caught:
        _created("", "secrets", {"kind": "Secret", "data": {"a": "not base64!"}})
    assert (caught.value.code, caught.value.reason, caught.value.message) == (
        400,
        "BadRequest",
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    )


# -- storage and cluster kinds -------------------------------------------------------------------------

STORAGE_CASES = [
    pytest.param(
        "persistentvolumeclaims",
        {"kind": "PersistentVolumeClaim", "spec": {}},
        [
            ("spec.accessModes", "FieldValueRequired", "Required value: at least 1 access mode is required"),
            ("spec.resources[storage]", "FieldValueRequired", "Required value"),
        ],
        id="pvc-required",
    ),
    pytest.param(
        "persistentvolumeclaims",
        {
            "kind": "PersistentVolumeClaim",
            "spec": {"accessModes": ["ReadWriteSometimes"], "resources": {"requests": {"storage": "0"}}},
        },
        [
            (
                "spec.accessModes",
                "FieldValueNotSupported",
                'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
                '"ReadWriteOnce", "ReadWriteOncePod"',
            ),
            ("spec.resources[storage]", "FieldValueInvalid", 'Invalid value: "0": must be greater than zero'),
        ],
        id="pvc-values",
    ),
    pytest.param(
        "persistentvolumes",
        {"kind": "PersistentVolume", "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}},
        [("spec", "FieldValueRequired", "Required value: must specify a volume type")],
        id="pv-source-required",
    ),
    pytest.param(
        "persistentvolumes",
        {
            "kind": "PersistentVolume",
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data"},
                "persistentVolumeReclaimPolicy": "Keep",
            },
        },
        [
            (
                "spec.persistentVolumeReclaimPolicy",
                "FieldValueNotSupported",
                'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
            )
        ],
        id="pv-reclaim-policy",
    ),
    pytest.param(
        "resourcequotas",
        {"kind": "ResourceQuota", "spec": {"hard": {"pods": "1.5", "widgets": "1", "cpu": "-1"}}},
        [
            ("spec.hard[pods]", "FieldValueInvalid", 'Invalid value: "1500m": must be an integer'),
            (
                "spec.hard[widgets]",
                "FieldValueInvalid",
                'Invalid value: "widgets": must be a standard resource type or fully qualified',
            ),
            (
                "spec.hard[widgets]",
                "FieldValueInvalid",
                'Invalid value: "widgets": must be a standard resource for quota',
            ),
            ("spec.hard[cpu]", "FieldValueInvalid", 'Invalid value: "-1": must be greater than or equal to 0'),
        ],
        id="quota-hard",
    ),
    pytest.param(
        "namespaces",
        {"kind": "Namespace", "spec": {"finalizers": ["cleanup"]}},
        [
            (
                "spec.finalizers",
                "FieldValueInvalid",
                'Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
            )
        ],
        id="namespace-finalizer",
    ),
]


@pytest.mark.parametrize(("resource", "obj", "causes"), STORAGE_CASES)
def test_storage_and_cluster_kinds(resource: str, obj: dict[str, Any], causes: list[Cause]) -> None:
    assert create_causes("", resource, obj) == causes


# -- quantities as decoded -----------------------------------------------------------------------------


def test_quantities_are_stored_canonical() -> None:
    _, created = _created(
        "",
        "pods",
        pod(
            containers=[
                container(resources={"limits": {"cpu": "0.5", "memory": "1024Mi"}, "requests": {"cpu": 0.0001}})
            ],
            volumes=[{"name": "scratch", "emptyDir": {"sizeLimit": "1.5Gi"}}],
        ),
    )
    assert created["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "1m", "memory": "1Gi"},
    }
    assert created["spec"]["volumes"][0]["emptyDir"] == {"sizeLimit": "1536Mi"}


def test_an_unparsable_quantity_is_a_decode_error() -> None:
    with pytest.raises(StatusError) as caught:
        _created("", "pods", pod(containers=[container(resources={"limits": {"cpu": "1 core"}})]))
    assert (caught.value.code, caught.value.message) == (
        400,
        'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    )


# -- defaults ------------------------------------------------------------------------------------------


def test_pod_defaults() -> None:
    _, created = _created(
        "",
        "pods",
        pod(
            containers=[
                container(
                    image="nginx",
                    ports=[{"containerPort": 80}],
                    resources={"limits": {"cpu": "1"}},
                    readinessProbe={"httpGet": {"port": 80}},
                    env=[{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                )
            ],
            volumes=[{"name": "conf", "configMap": {"name": "conf"}}, {"name": "tmp"}],
        ),
    )
    assert created["spec"] == {
        "containers": [
            {
                "name": "web",
                "image": "nginx",
                "imagePullPolicy": "Always",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}},
                "readinessProbe": {
                    "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                    "timeoutSeconds": 1,
                    "periodSeconds": 10,
                    "successThreshold": 1,
                    "failureThreshold": 3,
                },
                "env": [
                    {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName", "apiVersion": "v1"}}}
                ],
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
        ],
        "volumes": [
            {"name": "conf", "configMap": {"name": "conf", "defaultMode": 420}},
            {"name": "tmp", "emptyDir": {}},
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
        # serviceAccountName, priority and preemptionPolicy come from admission (tests/e2e/test_priority.py)
    }


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        pytest.param("nginx", "Always", id="no-tag"),
        pytest.param("nginx:latest", "Always", id="latest"),
        pytest.param("nginx:1.27", "IfNotPresent", id="tag"),
        pytest.param("registry.local:5000/team/app", "Always", id="registry-port-no-tag"),
        pytest.param("registry.local:5000/team/app:v2", "IfNotPresent", id="registry-port-tag"),
        pytest.param("nginx@sha256:" + "a" * 64, "IfNotPresent", id="digest"),
        pytest.param("Nginx", "IfNotPresent", id="unparsable"),
    ],
)
def test_image_pull_policy_default(image: str, policy: str) -> None:
    _, created = _created("", "pods", pod(containers=[container(image=image)]))
    assert created["spec"]["containers"][0]["imagePullPolicy"] == policy


@pytest.mark.parametrize(
    ("spec", "defaulted"),
    [
        pytest.param(
            {"ports": [{"port": 80}]},
            {
                "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
                "sessionAffinity": "None",
                "type": "ClusterIP",
                "internalTrafficPolicy": "Cluster",
            },
            id="cluster-ip",
        ),
        pytest.param(
            {"type": "LoadBalancer", "ports": [{"port": 80, "targetPort": "http"}], "sessionAffinity": "ClientIP"},
            {
                "type": "LoadBalancer",
                "ports": [{"port": 80, "targetPort": "http", "protocol": "TCP"}],
                "sessionAffinity": "ClientIP",
                "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
                "externalTrafficPolicy": "Cluster",
                "internalTrafficPolicy": "Cluster",
                "allocateLoadBalancerNodePorts": True,
            },
            id="load-balancer",
        ),
        pytest.param(
            {"type": "ExternalName", "externalName": "db.example.com"},
            {"type": "ExternalName", "externalName": "db.example.com", "sessionAffinity": "None"},
            id="external-name",
        ),
    ],
)
def test_service_defaults(spec: dict[str, Any], defaulted: dict[str, Any]) -> None:
    _, created = _created("", "services", {"kind": "Service", "spec": spec})
    assert created["spec"] == defaulted


def test_deployment_defaults() -> None:
    _, created = _created("apps", "deployments", workload("Deployment"))
    spec = {k: v for k, v in created["spec"].items() if k != "template"}
    assert spec == {
        "selector": {"matchLabels": {"app": "web"}},
        "replicas": 1,
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    }
    assert created["spec"]["template"]["spec"] == {
        "containers": [
            {
                "name": "web",
                "image": "nginx:1.27",
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "resources": {},
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        "schedulerName": "default-scheduler",
    }


def test_statefulset_defaults() -> None:
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    _, created = _created(
        "apps", "statefulsets", workload("StatefulSet", serviceName="web", volumeClaimTemplates=[claim])
    )
    spec = {k: v for k, v in created["spec"].items() if k != "template"}
    assert spec == {
        "selector": {"matchLabels": {"app": "web"}},
        "serviceName": "web",
        "volumeClaimTemplates": [
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "volumeMode": "Filesystem",
                },
                "status": {"phase": "Pending"},
            }
        ],
        "podManagementPolicy": "OrderedReady",
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "replicas": 1,
        "revisionHistoryLimit": 10,
    }


def test_job_defaults() -> None:
    _, created = _created(
        "batch",
        "jobs",
        {"kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": template(restartPolicy="Never")}},
    )
    spec = {k: v for k, v in created["spec"].items() if k != "template"}
    assert spec == {
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "uid-1"}},
        "completions": 1,
        "parallelism": 1,
        "backoffLimit": 6,
        "completionMode": "NonIndexed",
        "suspend": False,
        "podReplacementPolicy": "TerminatingOrFailed",
    }
    assert created["metadata"]["labels"] == {
        "app": "web",
        "job-name": "pi",
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": "uid-1",
        "batch.kubernetes.io/controller-uid": "uid-1",
    }


def test_storage_defaults() -> None:
    _, claim = _created(
        "",
        "persistentvolumeclaims",
        {
            "kind": "PersistentVolumeClaim",
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5Gi"}}},
        },
    )
    assert (claim["spec"], claim["status"]) == (
        {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1536Mi"}},
            "volumeMode": "Filesystem",
        },
        {"phase": "Pending"},
    )
    _, volume = _created(
        "",
        "persistentvolumes",
        {
            "kind": "PersistentVolume",
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}},
        },
    )
    assert volume["spec"] == {
        "capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/data", "type": ""},
        "persistentVolumeReclaimPolicy": "Retain",
        "volumeMode": "Filesystem",
    }
    assert volume["status"]["phase"] == "Pending"
