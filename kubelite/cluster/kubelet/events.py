"""The Events a kubelet writes about the pods on its node, as core/v1 Event dicts ready to create.

The kubelet records through client-go's legacy event recorder: `source` and `reportingComponent` are `kubelet`
with the node as host and instance, `firstTimestamp` and `lastTimestamp` carry the time, `eventTime` is null,
and the name is `<pod name>.<the time in Unix nanoseconds, hex>`. A container's events point at it with a
`fieldPath` (`spec.containers{nginx}`). Repeats (a BackOff every restart) are new Events here; folding them into
one Event with a rising `count` is the recorder's correlator's job, above this module.

The texts are the kubelet's (pkg/kubelet/images, pkg/kubelet/kuberuntime); durations in them are Go's
`time.Duration` printing (`0s`, `1m20s`, `5m0s`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from kubelite.apimachinery.meta import Obj, rfc3339

NORMAL = "Normal"
WARNING = "Warning"
COMPONENT = "kubelet"


def go_duration(delta: timedelta) -> str:
    """Go's Duration.String() for whole seconds and, below a second, whole milliseconds."""
    total_ms = round(delta.total_seconds() * 1000)
    if total_ms == 0:
        return "0s"
    if total_ms < 1000:
        return f"{total_ms}ms"
    seconds, millis = divmod(total_ms, 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    second_text = f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") if millis else str(seconds)
    if hours:
        return f"{hours}h{minutes}m{second_text}s"
    if minutes:
        return f"{minutes}m{second_text}s"
    return f"{second_text}s"


def pod_key(pod: Obj) -> str:
    """The kubelet's `format.Pod`: `name_namespace(uid)`."""
    metadata = pod.get("metadata") or {}
    return f"{metadata.get('name', '')}_{metadata.get('namespace', '')}({metadata.get('uid', '')})"


def pulling(image: str) -> str:
    return f'Pulling image "{image}"'


def pulled(image: str, took: timedelta, size: int) -> str:
    took_text = go_duration(took)
    return (
        f'Successfully pulled image "{image}" in {took_text} ({took_text} including waiting). '
        f"Image size: {size} bytes."
    )


def already_present(image: str) -> str:
    return f'Container image "{image}" already present on machine'


def created(container: str) -> str:
    return f"Created container: {container}"


def started(container: str) -> str:
    return f"Started container {container}"


def killing(container: str) -> str:
    return f"Stopping container {container}"


def back_off(container: str, pod: Obj) -> str:
    return f"Back-off restarting failed container {container} in pod {pod_key(pod)}"


def field_path(container: str, *, init: bool) -> str:
    return f"spec.initContainers{{{container}}}" if init else f"spec.containers{{{container}}}"


def pod_event(
    pod: Obj,
    *,
    node_name: str,
    reason: str,
    message: str,
    when: datetime,
    event_type: str = NORMAL,
    container_field_path: str | None = None,
    sequence: int = 0,
) -> Obj:
    """One Event about `pod`; `sequence` keeps the names of events recorded in the same instant apart."""
    metadata = pod.get("metadata") or {}
    involved: dict[str, object] = {
        "kind": "Pod",
        "namespace": metadata.get("namespace", ""),
        "name": metadata.get("name", ""),
        "uid": metadata.get("uid", ""),
        "apiVersion": "v1",
    }
    if metadata.get("resourceVersion"):
        involved["resourceVersion"] = metadata["resourceVersion"]
    if container_field_path:
        involved["fieldPath"] = container_field_path
    nanos = int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000 + sequence
    stamp = rfc3339(when)
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{metadata.get('name', '')}.{nanos:x}", "namespace": metadata.get("namespace", "")},
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "source": {"component": COMPONENT, "host": node_name},
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
        "type": event_type,
        "eventTime": None,
        "reportingComponent": COMPONENT,
        "reportingInstance": node_name,
    }


# -- the node's own events ------------------------------------------------------------------------------------

#: the condition events of the node status setters (pkg/kubelet/nodestatus): (healthy, unhealthy) by type
NODE_CONDITION_EVENTS = {
    "MemoryPressure": ("NodeHasSufficientMemory", "NodeHasInsufficientMemory"),
    "DiskPressure": ("NodeHasNoDiskPressure", "NodeHasDiskPressure"),
    "PIDPressure": ("NodeHasSufficientPID", "NodeHasInsufficientPID"),
    "Ready": ("NodeReady", "NodeNotReady"),
}
STARTING = "Starting"
STARTING_MESSAGE = "Starting kubelet."
ALLOCATABLE_ENFORCED = "NodeAllocatableEnforced"
ALLOCATABLE_ENFORCED_MESSAGE = "Updated Node Allocatable limit across pods"


def node_status_is_now(node_name: str, reason: str) -> str:
    """recordNodeStatusEvent's message."""
    return f"Node {node_name} status is now: {reason}"


def node_event(node_name: str, *, reason: str, message: str, when: datetime, sequence: int = 0,
               event_type: str = NORMAL) -> Obj:
    """One Event about the node, as the kubelet records them: about its `nodeRef`, whose uid is the node's name
    (not the Node's uid), in the namespace `default`."""
    nanos = int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000 + sequence
    stamp = rfc3339(when)
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{node_name}.{nanos:x}", "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": node_name, "uid": node_name},
        "reason": reason,
        "message": message,
        "source": {"component": COMPONENT, "host": node_name},
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
        "type": event_type,
        "eventTime": None,
        "reportingComponent": COMPONENT,
        "reportingInstance": node_name,
    }


def node_condition_events(node_name: str, previous: list[Obj], current: list[Obj]) -> list[tuple[str, str]]:
    """(reason, message) for each condition whose status is new or changed, in the conditions' order."""
    before = {condition.get("type"): condition.get("status") for condition in previous}
    found = []
    for condition in current:
        kind = condition.get("type")
        if kind not in NODE_CONDITION_EVENTS or before.get(kind) == condition.get("status"):
            continue
        healthy_status = "True" if kind == "Ready" else "False"
        healthy, unhealthy = NODE_CONDITION_EVENTS[kind]
        reason = healthy if condition.get("status") == healthy_status else unhealthy
        found.append((reason, node_status_is_now(node_name, reason)))
    return found
