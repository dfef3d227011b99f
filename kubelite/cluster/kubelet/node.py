"""The Node object a simulated kubelet registers and keeps current, as the kubelet's node status setters write it.

What the kubelet reports (pkg/kubelet/kubelet_node_status.go, pkg/kubelet/nodestatus/setters.go):
- labels: `kubernetes.io/hostname`, `kubernetes.io/os`, `kubernetes.io/arch` and their deprecated `beta.`
  twins; what a cloud provider tells the kubelet (`NodeConfig.instance_type`, `zone`, `region`) as
  `node.kubernetes.io/instance-type` and `topology.kubernetes.io/zone` / `region`, each with its deprecated twin
  (`beta.kubernetes.io/instance-type`, `failure-domain.beta.kubernetes.io/zone` / `region`), as the kubelet's
  `initialNode` sets them; any other label from `NodeConfig.labels`;
- the annotation `volumes.kubernetes.io/controller-managed-attach-detach: "true"`;
- addresses InternalIP then Hostname; capacity and allocatable (allocatable equals capacity here: the simulation
  reserves nothing for the system, as KWOK's nodes do); `daemonEndpoints.kubeletEndpoint.Port` 10250;
- nodeInfo with stable per-name machineID, systemUUID and bootID (`identity`); containerd's runtime handlers
  (the default and `runc`) and the node's features;
- the conditions MemoryPressure, DiskPressure, PIDPressure, Ready, in that order, with kube's reasons and messages;
  each condition's lastHeartbeatTime moves on every status report, its lastTransitionTime only when its status
  changes.

How often (the kubelet's defaults, KubeletConfiguration): the status is computed every
`nodeStatusUpdateFrequency` (10 s) and posted when it changed or when `nodeStatusReportFrequency` (5 min) passed
since the last post; liveness between posts is the Lease (`lease`). `status_report_due` answers the second.
The pod CIDR is the node IPAM controller's doing; the simulation sets `spec.podCIDR(s)` when it registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy, rfc3339
from kubelite.cluster.kubelet import identity

KUBELET_VERSION = "v1.36.0"
CONTAINER_RUNTIME_VERSION = "containerd://2.1.4"
OS_IMAGE = "Debian GNU/Linux 12 (bookworm)"
KERNEL_VERSION = "6.8.0-kubelite"
KUBELET_PORT = 10250

NODE_STATUS_UPDATE_FREQUENCY = timedelta(seconds=10)
NODE_STATUS_REPORT_FREQUENCY = timedelta(minutes=5)

DEFAULT_CAPACITY: dict[str, str] = {
    "cpu": "8",
    "ephemeral-storage": "100Gi",
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    "memory": "32Gi",
    "pods": "110",
}

# (type, reason and message when healthy, reason and message when not): the kubelet's own texts
_CONDITIONS: tuple[tuple[str, str, str, str, str], ...] = (
    ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
     "KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
    ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
     "KubeletHasDiskPressure", "kubelet has disk pressure"),
    ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
     "KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
    ("Ready", "KubeletReady", "kubelet is posting ready status",
     "KubeletNotReady", "container runtime is down"),
)


@dataclass(frozen=True, kw_only=True)
class NodeConfig:
    """What distinguishes one simulated node: its name, address, size and extra labels."""

    name: str
    node_ip: str
    pod_cidr: str | None = None
    capacity: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CAPACITY))
    allocatable: dict[str, str] | None = None
    labels: dict[str, str] = field(default_factory=dict)
    instance_type: str | None = None
    zone: str | None = None
    region: str | None = None
    operating_system: str = "linux"
    architecture: str = "amd64"
    kubelet_version: str = KUBELET_VERSION
    container_runtime_version: str = CONTAINER_RUNTIME_VERSION
    os_image: str = OS_IMAGE
    kernel_version: str = KERNEL_VERSION
    boot: int = 0

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a simulated node needs a name")
        if not self.node_ip:
            raise ValueError(f"node {self.name!r} needs a node IP (its InternalIP address)")


@dataclass(frozen=True, kw_only=True)
class NodeHealth:
    """Which pressures the node is under and whether its runtime is up; a healthy node by default."""

    memory_pressure: bool = False
    disk_pressure: bool = False
    pid_pressure: bool = False
    ready: bool = True

    def unhealthy(self, condition_type: str) -> bool:
        return {
            "MemoryPressure": self.memory_pressure,
            "DiskPressure": self.disk_pressure,
            "PIDPressure": self.pid_pressure,
            "Ready": not self.ready,
        }[condition_type]


def node_labels(config: NodeConfig) -> dict[str, str]:
    labels = {
        "beta.kubernetes.io/arch": config.architecture,
        "beta.kubernetes.io/os": config.operating_system,
        "kubernetes.io/arch": config.architecture,
        "kubernetes.io/hostname": config.name,
        "kubernetes.io/os": config.operating_system,
    }
    if config.instance_type:
        labels["node.kubernetes.io/instance-type"] = config.instance_type
        labels["beta.kubernetes.io/instance-type"] = config.instance_type
    if config.zone:
        labels["topology.kubernetes.io/zone"] = config.zone
        labels["failure-domain.beta.kubernetes.io/zone"] = config.zone
    if config.region:
        labels["topology.kubernetes.io/region"] = config.region
        labels["failure-domain.beta.kubernetes.io/region"] = config.region
    labels.update(config.labels)
    return labels


def node_conditions(health: NodeHealth, now: datetime, previous: list[dict[str, Any]] | None = None) -> list[Obj]:
    """The four conditions at `now`: heartbeat now, transition kept from `previous` while the status holds."""
    before = {condition.get("type"): condition for condition in previous or []}
    stamp = rfc3339(now)
    conditions = []
    for kind, good_reason, good_message, bad_reason, bad_message in _CONDITIONS:
        bad = health.unhealthy(kind)
        # Ready is the one condition whose healthy status is True
        healthy_status, unhealthy_status = ("True", "False") if kind == "Ready" else ("False", "True")
        status = unhealthy_status if bad else healthy_status
        old = before.get(kind)
        transition = old["lastTransitionTime"] if old and old.get("status") == status else stamp
        conditions.append({
            "type": kind,
            "status": status,
            "lastHeartbeatTime": stamp,
            "lastTransitionTime": transition,
            "reason": bad_reason if bad else good_reason,
            "message": bad_message if bad else good_message,
        })
    return conditions


def build_node(config: NodeConfig, now: datetime, *, health: NodeHealth | None = None) -> Obj:
    """The Node the kubelet creates when it registers."""
    spec: dict[str, Any] = {}
    if config.pod_cidr:
        spec = {"podCIDR": config.pod_cidr, "podCIDRs": [config.pod_cidr]}
    capacity = dict(config.capacity)
    allocatable = dict(config.allocatable if config.allocatable is not None else capacity)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": config.name,
            "labels": node_labels(config),
            "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"},
        },
        "spec": spec,
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": node_conditions(health or NodeHealth(), now),
            "addresses": [
                {"type": "InternalIP", "address": config.node_ip},
                {"type": "Hostname", "address": config.name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
            "nodeInfo": {
                "machineID": identity.machine_id(config.name),
                "systemUUID": identity.system_uuid(config.name),
                "bootID": identity.boot_id(config.name, config.boot),
                "kernelVersion": config.kernel_version,
                "osImage": config.os_image,
                "containerRuntimeVersion": config.container_runtime_version,
                "kubeletVersion": config.kubelet_version,
                "kubeProxyVersion": "",
                "operatingSystem": config.operating_system,
                "architecture": config.architecture,
            },
            "runtimeHandlers": [
                {"name": handler, "features": {"recursiveReadOnlyMounts": True, "userNamespaces": True}}
                for handler in ("", "runc")
            ],
            "features": {"supplementalGroupsPolicy": True},
        },
    }


def refreshed_status(node: Obj, now: datetime, *, health: NodeHealth | None = None) -> dict[str, Any]:
    """The status the kubelet posts at `now` for `node` (which is not modified): new heartbeats, same rest."""
    status = deep_copy(node.get("status") or {})
    status["conditions"] = node_conditions(health or NodeHealth(), now, status.get("conditions"))
    return status


def _without_heartbeats(status: dict[str, Any]) -> dict[str, Any]:
    trimmed = dict(status)
    trimmed["conditions"] = [
        {key: value for key, value in condition.items() if key != "lastHeartbeatTime"}
        for condition in status.get("conditions") or []
    ]
    return trimmed


def status_report_due(
    reported: dict[str, Any], current: dict[str, Any], last_report_at: datetime, now: datetime
) -> bool:
    """Whether the kubelet posts `current` now: something besides the heartbeats changed, or the report
    frequency elapsed since `last_report_at`."""
    if _without_heartbeats(reported) != _without_heartbeats(current):
        return True
    return now - last_report_at >= NODE_STATUS_REPORT_FREQUENCY
