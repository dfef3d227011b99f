"""What the Endpoints and EndpointSlice controllers read off pods and Services (k8s.io/endpointslice/util).

Which pods a Service publishes, which of their addresses and ports, which Services a pod change concerns,
and the `endpoints.kubernetes.io/last-change-trigger-time` both controllers stamp on what they write.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, parse_rfc3339
from kubelite.apimachinery.selectors import LabelSelector

#: the label both controllers put on what they write for a Service without a cluster IP
HEADLESS_LABEL = "service.kubernetes.io/headless"
TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# -- pods ------------------------------------------------------------------------------------------------


def ready_condition(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for condition in _list(_status(pod).get("conditions")):
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return condition
    return None


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    condition = ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return bool(_meta(pod).get("deletionTimestamp"))


def pod_ips(pod: Mapping[str, Any]) -> list[str]:
    """status.podIPs, or status.podIP alone when only that is written (the API server fills one from the
    other on conversion)."""
    status = _status(pod)
    found = [str(entry.get("ip")) for entry in _list(status.get("podIPs")) if isinstance(entry, Mapping)]
    found = [ip for ip in found if ip]
    if not found and isinstance(status.get("podIP"), str) and status["podIP"]:
        found = [status["podIP"]]
    return found


def parse_ip(text: str) -> tuple[int, bytes] | None:
    """(4 or 6, the address's bytes), or None for what is not an IP (the socket module parses ten times
    faster than ipaddress, which counts with thousands of pods)."""
    for family, version in ((socket.AF_INET, 4), (socket.AF_INET6, 6)):
        try:
            return version, socket.inet_pton(family, text)
        except (OSError, ValueError):
            continue
    return None


def canonical_ip(parsed: tuple[int, bytes]) -> str:
    version, packed = parsed
    return socket.inet_ntop(socket.AF_INET if version == 4 else socket.AF_INET6, packed)


def is_ipv6(text: str) -> bool:
    parsed = parse_ip(text)
    return parsed is not None and parsed[0] == 6


def should_pod_be_in_endpoints(pod: Mapping[str, Any], include_terminating: bool) -> bool:
    """`ShouldPodBeInEndpoints`: not Succeeded or Failed, has an IP, and (unless asked) is not terminating."""
    if _status(pod).get("phase") in ("Succeeded", "Failed"):
        return False
    if not pod_ips(pod):
        return False
    return include_terminating or not is_terminating(pod)


def should_set_hostname(pod: Mapping[str, Any], service: Mapping[str, Any]) -> bool:
    """A pod's hostname is published when its subdomain names the Service (of its namespace)."""
    spec = _spec(pod)
    return (
        bool(spec.get("hostname"))
        and spec.get("subdomain") == _meta(service).get("name")
        and _meta(service).get("namespace") == _meta(pod).get("namespace")
    )


def target_ref(pod: Mapping[str, Any]) -> Obj:
    meta = _meta(pod)
    return {
        "kind": "Pod",
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
    }


def find_port(pod: Mapping[str, Any], service_port: Mapping[str, Any]) -> int | None:
    """`FindPort`: a numeric targetPort as it is; a named one looked up among the pod's container ports of the
    same protocol (sidecars, restartable init containers, included); None when no container offers it."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, bool):
        return None
    if isinstance(target, int):
        return target
    if not isinstance(target, str):
        return None
    protocol = service_port.get("protocol") or "TCP"
    spec = _spec(pod)
    containers = [c for c in _list(spec.get("containers")) if isinstance(c, Mapping)]
    sidecars = [
        c for c in _list(spec.get("initContainers")) if isinstance(c, Mapping) and c.get("restartPolicy") == "Always"
    ]
    for container in containers + sidecars:
        for port in _list(container.get("ports")):
            if not isinstance(port, Mapping):
                continue
            if port.get("name") == target and (port.get("protocol") or "TCP") == protocol:
                number = port.get("containerPort")
                if isinstance(number, int) and not isinstance(number, bool):
                    return number
    return None


# -- services --------------------------------------------------------------------------------------------


def service_selector(service: Mapping[str, Any]) -> dict[str, str] | None:
    """The Service's selector; None when it has none or an empty one, which selects nothing (kube stores an
    empty map as none)."""
    selector = _spec(service).get("selector")
    if not selector or not isinstance(selector, Mapping):
        return None
    return {str(k): str(v) for k, v in selector.items()}


def is_managed(service: Mapping[str, Any]) -> bool:
    """Services of type ExternalName, and those without a selector (their endpoints are the user's), get
    nothing from either controller."""
    return _spec(service).get("type") != "ExternalName" and service_selector(service) is not None


def is_service_ip_set(service: Mapping[str, Any]) -> bool:
    cluster_ip = _spec(service).get("clusterIP")
    return bool(cluster_ip) and cluster_ip != "None"


def service_ports(service: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [port for port in _list(_spec(service).get("ports")) if isinstance(port, Mapping)]


def is_headless_without_ports(service: Mapping[str, Any]) -> bool:
    return not service_ports(service) and _spec(service).get("clusterIP") == "None"


def _key(obj: Mapping[str, Any]) -> str:
    meta = _meta(obj)
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def services_for_labels(services: Iterable[Mapping[str, Any]], labels: Mapping[str, str]) -> set[str]:
    """The keys of the Services (of one namespace) whose selector matches `labels`."""
    found: set[str] = set()
    for service in services:
        selector = service_selector(service)
        if selector is not None and LabelSelector.from_set(selector).matches(labels):
            found.add(_key(service))
    return found


def _labels(pod: Mapping[str, Any]) -> dict[str, str]:
    labels = _meta(pod).get("labels")
    return dict(labels) if isinstance(labels, Mapping) else {}


def pod_endpoints_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[bool, bool]:
    """(whether the pod changed in a way its endpoints show, whether it changed which Services match it)."""
    old_spec, new_spec = _spec(old), _spec(new)
    labels_changed = _labels(old) != _labels(new) or (old_spec.get("hostname"), old_spec.get("subdomain")) != (
        new_spec.get("hostname"),
        new_spec.get("subdomain"),
    )
    changed = (
        _meta(old).get("deletionTimestamp") != _meta(new).get("deletionTimestamp")
        or is_pod_ready(old) != is_pod_ready(new)
        or pod_ips(old) != pod_ips(new)
    )
    return changed, labels_changed


def services_to_update_on_pod_change(
    services: list[Mapping[str, Any]], old: Mapping[str, Any], new: Mapping[str, Any]
) -> set[str]:
    """The Services a pod update concerns: none for a resync or an irrelevant change; those matching it now
    for a change of its endpoint; those it joined or left (all of both, when the endpoint changed too) when
    its labels changed."""
    if _meta(old).get("resourceVersion") == _meta(new).get("resourceVersion"):
        return set()
    changed, labels_changed = pod_endpoints_changed(old, new)
    if not changed and not labels_changed:
        return set()
    now = services_for_labels(services, _labels(new))
    if not labels_changed:
        return now
    before = services_for_labels(services, _labels(old))
    return now | before if changed else now ^ before


# -- the trigger time ------------------------------------------------------------------------------------


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return parse_rfc3339(value)
    except ValueError:
        return None


def format_trigger_time(when: datetime) -> str:
    """Go's RFC3339Nano: UTC, the fraction without trailing zeros (none at all for whole seconds)."""
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if when.microsecond:
        text += ("." + f"{when.microsecond:06d}").rstrip("0")
    return text + "Z"


@dataclass
class _ServiceState:
    service_time: datetime | None = None
    pod_times: dict[str, datetime] = field(default_factory=dict)


class TriggerTimeTracker:
    """`TriggerTimeTracker`: the time of the earliest change (a pod's Ready transition, the Service's
    creation) not yet seen by an earlier sync of the Service; a Service's first sync reports its creation.
    None means nothing changed, and the annotation is removed."""

    def __init__(self) -> None:
        self._states: dict[str, _ServiceState] = {}

    def compute(self, service: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> datetime | None:
        key = _key(service)
        known = key in self._states
        state = self._states.get(key) or _ServiceState()
        earliest: datetime | None = None
        pod_times: dict[str, datetime] = {}
        for pod in pods:
            condition = ready_condition(pod)
            when = _time(condition.get("lastTransitionTime")) if condition is not None else None
            if when is None:
                continue
            name = str(_meta(pod).get("name", ""))
            pod_times[name] = when
            last = state.pod_times.get(name)
            if last is None or when > last:
                earliest = when if earliest is None or when < earliest else earliest
        created = _time(_meta(service).get("creationTimestamp"))
        if created is not None and (state.service_time is None or created > state.service_time):
            earliest = created if earliest is None or created < earliest else earliest
        self._states[key] = _ServiceState(created, pod_times)
        if not known:
            return created
        return earliest

    def delete_service(self, namespace: str, name: str) -> None:
        self._states.pop(f"{namespace}/{name}", None)
