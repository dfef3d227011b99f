"""Tables of the core/v1 kinds other than pods and events (kube's printService, printNode, printSecret, ...).

Cells are computed from the v1 objects as kube computes them from its internal ones, so the few v1 defaults
that decoding would have filled in (a Service's type, a volume's mode, a namespace's phase, ...) are assumed
here when a stored object lacks them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import (
    TableSpec,
    age,
    age_col,
    col,
    containers_col,
    dig,
    images_col,
    integer,
    items,
    mapping,
    name_col,
    name_of,
    text,
)
from kubelite.registry.tables.format import container_cells, format_labels, template_containers
from kubelite.registry.tables.quantity import canonical_quantity

# -- services ------------------------------------------------------------------------------------------------


def _cluster_ip(svc: Obj) -> str:
    ip = text(svc, "spec", "clusterIP")
    if not ip:
        ips = items(svc, "spec", "clusterIPs")
        ip = str(ips[0]) if ips else ""
    return ip or "<none>"


def _load_balancer_ips(status: Any) -> list[str]:
    found = {
        text(entry, "ip") or text(entry, "hostname")
        for entry in items(status, "loadBalancer", "ingress")
        if text(entry, "ip") or text(entry, "hostname")
    }
    return sorted(found)


def _external_ip(svc: Obj) -> str:
    kind = text(svc, "spec", "type") or "ClusterIP"
    external = [str(ip) for ip in items(svc, "spec", "externalIPs")]
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if kind == "LoadBalancer":
        # the server prints the wide form, which is never clipped
        balancer = _load_balancer_ips(svc.get("status"))
        if external:
            return ",".join(balancer + external)
        return ",".join(balancer) if balancer else "<pending>"
    if kind == "ExternalName":
        return text(svc, "spec", "externalName")
    return "<unknown>"


def service_ports(ports: list[Any]) -> str:
    """`makePortString`: `80/TCP`, or `80:30080/TCP` when a node port is allocated."""
    pieces = []
    for port in ports:
        protocol = text(port, "protocol") or "TCP"
        node_port = integer(port, "nodePort")
        if node_port > 0:
            pieces.append(f"{integer(port, 'port')}:{node_port}/{protocol}")
        else:
            pieces.append(f"{integer(port, 'port')}/{protocol}")
    return ",".join(pieces)


def _service_row(svc: Obj, now: datetime) -> list[Any]:
    return [
        name_of(svc),
        text(svc, "spec", "type") or "ClusterIP",
        _cluster_ip(svc),
        _external_ip(svc),
        service_ports(items(svc, "spec", "ports")) or "<none>",
        age(svc, now),
        format_labels(mapping(svc, "spec", "selector")),
    ]


SERVICE_TABLE = TableSpec(
    [
        name_col(),
        col("Type", "string", d.SERVICE_TYPE),
        col("Cluster-IP", "string", d.SERVICE_CLUSTER_IP),
        col("External-IP", "string", d.SERVICE_EXTERNAL_IPS),
        col("Port(s)", "string", d.SERVICE_PORTS),
        age_col(),
        col("Selector", "string", d.SERVICE_SELECTOR, 1),
    ],
    _service_row,
)

# -- endpoints -----------------------------------------------------------------------------------------------


def _host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def format_endpoints(endpoints: Obj) -> str:
    """`formatEndpoints`: up to three `ip:port` entries, then `+ N more...`."""
    subsets = items(endpoints, "subsets")
    if not subsets:
        return "<none>"
    shown: list[str] = []
    limit, more, count = 3, False, 0
    for subset in subsets:
        addresses = [text(address, "ip") for address in items(subset, "addresses")]
        ports = items(subset, "ports")
        # headless services may publish addresses without ports
        groups = [[_host_port(ip, integer(port, "port")) for ip in addresses] for port in ports]
        for group in groups or [addresses]:
            count += len(group)
            for entry in group:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(entry)
    joined = ",".join(shown)
    return f"{joined} + {count - limit} more..." if more else joined


ENDPOINTS_TABLE = TableSpec(
    [name_col(), col("Endpoints", "string", d.ENDPOINTS_SUBSETS), age_col()],
    lambda obj, now: [name_of(obj), format_endpoints(obj), age(obj, now)],
)

# -- nodes ---------------------------------------------------------------------------------------------------

NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
NODE_ROLE_LABEL = "kubernetes.io/role"


def node_roles(node: Obj) -> str:
    roles: set[str] = set()
    for key, value in mapping(node, "metadata", "labels").items():
        if key.startswith(NODE_ROLE_PREFIX) and key[len(NODE_ROLE_PREFIX) :]:
            roles.add(key[len(NODE_ROLE_PREFIX) :])
        elif key == NODE_ROLE_LABEL and value:
            roles.add(str(value))
    return ",".join(sorted(roles)) or "<none>"


def node_status(node: Obj) -> str:
    ready: Any = None
    for condition in items(node, "status", "conditions"):
        if text(condition, "type") == "Ready":
            ready = condition
    status = ["Unknown"] if ready is None else ["Ready" if text(ready, "status") == "True" else "NotReady"]
    if dig(node, "spec", "unschedulable") is True:
        status.append("SchedulingDisabled")
    return ",".join(status)


def _node_address(node: Obj, kind: str) -> str:
    for address in items(node, "status", "addresses"):
        if text(address, "type") == kind:
            return text(address, "address")
    return "<none>"


def _node_row(node: Obj, now: datetime) -> list[Any]:
    info = mapping(node, "status", "nodeInfo")
    return [
        name_of(node),
        node_status(node),
        node_roles(node),
        age(node, now),
        text(info, "kubeletVersion"),
        _node_address(node, "InternalIP"),
        _node_address(node, "ExternalIP"),
        text(info, "osImage") or "<unknown>",
        text(info, "kernelVersion") or "<unknown>",
        text(info, "containerRuntimeVersion") or "<unknown>",
    ]


NODE_TABLE = TableSpec(
    [
        name_col(),
        col("Status", "string", "The status of the node"),
        col("Roles", "string", "The roles of the node"),
        age_col(),
        col("Version", "string", d.NODE_KUBELET_VERSION),
        col("Internal-IP", "string", d.NODE_ADDRESSES, 1),
        col("External-IP", "string", d.NODE_ADDRESSES, 1),
        col("OS-Image", "string", d.NODE_OS_IMAGE, 1),
        col("Kernel-Version", "string", d.NODE_KERNEL_VERSION, 1),
        col("Container-Runtime", "string", d.NODE_CONTAINER_RUNTIME, 1),
    ],
    _node_row,
)

# -- small kinds ---------------------------------------------------------------------------------------------

NAMESPACE_TABLE = TableSpec(
    [name_col(), col("Status", "string", "The status of the namespace"), age_col()],
    lambda obj, now: [name_of(obj), text(obj, "status", "phase") or "Active", age(obj, now)],
)

CONFIGMAP_TABLE = TableSpec(
    [name_col(), col("Data", "string", d.CONFIGMAP_DATA), age_col()],
    lambda obj, now: [
        name_of(obj),
        len(mapping(obj, "data")) + len(mapping(obj, "binaryData")),
        age(obj, now),
    ],
)


def _secret_keys(secret: Obj) -> int:
    # decoding folds stringData into data, so both count, once per key
    return len(set(mapping(secret, "data")) | set(mapping(secret, "stringData")))


SECRET_TABLE = TableSpec(
    [name_col(), col("Type", "string", d.SECRET_TYPE), col("Data", "string", d.SECRET_DATA), age_col()],
    lambda obj, now: [name_of(obj), text(obj, "type") or "Opaque", _secret_keys(obj), age(obj, now)],
)

SERVICE_ACCOUNT_TABLE = TableSpec(
    [name_col(), col("Secrets", "string", d.SERVICE_ACCOUNT_SECRETS), age_col()],
    lambda obj, now: [name_of(obj), len(items(obj, "secrets")), age(obj, now)],
)


def _pod_template_row(obj: Obj, _now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj))
    return [name_of(obj), names, images, format_labels(mapping(obj, "template", "metadata", "labels"))]


POD_TEMPLATE_TABLE = TableSpec(
    [
        name_col(),
        containers_col(0),
        images_col(0),
        col("Pod Labels", "string", "The labels for the pod template."),
    ],
    _pod_template_row,
)


def _rc_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec"))
    # an empty selector defaults to the template's labels
    selector = mapping(obj, "spec", "selector") or mapping(obj, "spec", "template", "metadata", "labels")
    return [
        name_of(obj),
        integer(obj, "spec", "replicas", default=1),
        integer(obj, "status", "replicas"),
        integer(obj, "status", "readyReplicas"),
        age(obj, now),
        names,
        images,
        format_labels(selector),
    ]


RC_TABLE = TableSpec(
    [
        name_col(),
        col("Desired", "integer", d.RC_SPEC_REPLICAS),
        col("Current", "integer", d.RC_STATUS_REPLICAS),
        col("Ready", "integer", d.RC_STATUS_READY),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.RC_SPEC_SELECTOR, 1),
    ],
    _rc_row,
)


def _quota_row(obj: Obj, now: datetime) -> list[Any]:
    hard, used = mapping(obj, "status", "hard"), mapping(obj, "status", "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        usage = canonical_quantity(used.get(resource, "0"))
        cell = f"{resource}: {usage}/{canonical_quantity(hard[resource])}"
        (limits if resource.split(".")[0] == "limits" and "." in resource else requests).append(cell)
    return [name_of(obj), ", ".join(requests), ", ".join(limits), age(obj, now)]


RESOURCE_QUOTA_TABLE = TableSpec(
    [
        name_col(),
        col(
            "Request",
            "string",
            "Request represents a minimum amount of cpu/memory that a container may consume.",
        ),
        col(
            "Limit",
            "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of "
            "contention on the node.",
        ),
        age_col(),
    ],
    _quota_row,
)
