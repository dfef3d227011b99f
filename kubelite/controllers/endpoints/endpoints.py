"""What one sync of the Endpoints controller writes for a Service, as data (pkg/controller/endpoint).

The Endpoints object of a selector Service is named as the Service and carries its labels (plus
`service.kubernetes.io/headless` without a cluster IP). Every pod the selector picks that has an IP and is
not finished or terminating gives one address per Service port its targetPort resolves on: under
`addresses` when ready (or when the Service publishes not-ready addresses), else under `notReadyAddresses`.
The subsets are then repacked into the canonical layout (one subset per set of addresses sharing their
ports; an address not ready on a port is not ready there), so an unchanged set of pods compares equal and
is not written again. Past 1000 addresses the object is truncated, ready addresses kept first, and
annotated `endpoints.kubernetes.io/over-capacity: truncated`.

Canonical order: kube sorts addresses by IP then pod uid, as here, but ports and subsets by an md5 of their
Go dump; kubelite sorts those by their fields instead (the same order for a Service of one port).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.endpoints.pods import (
    HEADLESS_LABEL,
    TRIGGER_TIME_ANNOTATION,
    find_port,
    format_trigger_time,
    is_ipv6,
    is_pod_ready,
    is_service_ip_set,
    pod_ips,
    service_ports,
    should_pod_be_in_endpoints,
    should_set_hostname,
    target_ref,
)

MAX_CAPACITY = 1000
OVER_CAPACITY_ANNOTATION = "endpoints.kubernetes.io/over-capacity"
TRUNCATED = "truncated"


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _wants_ipv6(service: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """The Service's first IP family; without families, that of its cluster IP, or a headless Service's pod's."""
    spec = _spec(service)
    families = spec.get("ipFamilies")
    if isinstance(families, list) and families:
        return families[0] == "IPv6"
    if is_service_ip_set(service):
        return is_ipv6(str(spec.get("clusterIP")))
    status = pod.get("status") if isinstance(pod.get("status"), Mapping) else {}
    return is_ipv6(str((status or {}).get("podIP") or ""))


def endpoint_address(service: Mapping[str, Any], pod: Mapping[str, Any]) -> Obj | None:
    """The pod's address of the Service's IP family, or None when it has none."""
    ipv6 = _wants_ipv6(service, pod)
    ip = next((ip for ip in pod_ips(pod) if is_ipv6(ip) == ipv6), None)
    if ip is None:
        return None
    address: Obj = {"ip": ip}
    node = _spec(pod).get("nodeName")
    if isinstance(node, str) and node:
        address["nodeName"] = node
    address["targetRef"] = target_ref(pod)
    if should_set_hostname(pod, service):
        address["hostname"] = _spec(pod)["hostname"]
    return address


def endpoint_port(service_port: Mapping[str, Any], number: int) -> Obj:
    port: Obj = {}
    if service_port.get("name"):
        port["name"] = service_port["name"]
    port["port"] = number
    port["protocol"] = service_port.get("protocol") or "TCP"
    if service_port.get("appProtocol"):
        port["appProtocol"] = service_port["appProtocol"]
    return port


def desired_subsets(service: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> tuple[list[Obj], int, int]:
    """The Service's subsets, repacked, with the number of ready and not-ready (address, port) pairs."""
    publish_not_ready = bool(_spec(service).get("publishNotReadyAddresses"))
    ports = service_ports(service)
    headless = _spec(service).get("clusterIP") == "None"
    subsets: list[Obj] = []
    ready_count = not_ready_count = 0
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, publish_not_ready):
            continue
        address = endpoint_address(service, pod)
        if address is None:
            continue
        ready = publish_not_ready or is_pod_ready(pod)
        field = "addresses" if ready else "notReadyAddresses"
        if not ports:
            # a headless Service may have no ports: its addresses are published alone
            if headless:
                subsets.append({field: [address]})
                ready_count, not_ready_count = ready_count + ready, not_ready_count + (not ready)
            continue
        for service_port in ports:
            number = find_port(pod, service_port)
            if number is None:
                continue
            subsets.append({field: [address], "ports": [endpoint_port(service_port, number)]})
            ready_count, not_ready_count = ready_count + ready, not_ready_count + (not ready)
    return repack_subsets(subsets), ready_count, not_ready_count


# -- the canonical layout --------------------------------------------------------------------------------

_PortKey = tuple[str, int, str, str]
_AddressKey = tuple[str, str]
#: what a subset without ports is filed under while repacking
_NO_PORT: _PortKey = ("", -1, "", "")


def _port_key(port: Mapping[str, Any]) -> _PortKey:
    number = port.get("port")
    return (
        str(port.get("name") or ""),
        number if isinstance(number, int) else 0,
        str(port.get("protocol") or ""),
        str(port.get("appProtocol") or ""),
    )


def _port_of(key: _PortKey) -> Obj:
    name, number, protocol, app_protocol = key
    port: Obj = {}
    if name:
        port["name"] = name
    port["port"] = number
    if protocol:
        port["protocol"] = protocol
    if app_protocol:
        port["appProtocol"] = app_protocol
    return port


def _address_key(address: Mapping[str, Any]) -> _AddressKey:
    ref = address.get("targetRef")
    uid = str(ref.get("uid") or "") if isinstance(ref, Mapping) else ""
    return str(address.get("ip") or ""), uid


def _address_order(address: Mapping[str, Any]) -> tuple[bytes, int, str]:
    """`LessEndpointAddress`: by the IP's bytes, an address without a target first, then by uid."""
    ip, uid = _address_key(address)
    ref = address.get("targetRef")
    return ip.encode(), 1 if isinstance(ref, Mapping) else 0, uid


def repack_subsets(subsets: Iterable[Mapping[str, Any]]) -> list[Obj]:
    """`RepackSubsets`: each address once per port (not ready wins over ready), then one subset per set of
    (address, readiness) pairs, with every port that set serves."""
    addresses: dict[_AddressKey, Obj] = {}
    by_port: dict[_PortKey, dict[_AddressKey, bool]] = {}
    for subset in subsets:
        ports = [p for p in subset.get("ports") or [] if isinstance(p, Mapping)]
        keys = [_port_key(p) for p in ports] or [_NO_PORT]
        for field, ready in (("addresses", True), ("notReadyAddresses", False)):
            for address in subset.get(field) or []:
                if not isinstance(address, Mapping):
                    continue
                akey = _address_key(address)
                addresses.setdefault(akey, dict(address))
                for pkey in keys:
                    readiness = by_port.setdefault(pkey, {})
                    if readiness.get(akey, True):
                        readiness[akey] = ready
    groups: dict[frozenset[tuple[_AddressKey, bool]], list[_PortKey]] = {}
    for pkey, readiness in by_port.items():
        ports_of_group = groups.setdefault(frozenset(readiness.items()), [])
        if pkey != _NO_PORT:
            ports_of_group.append(pkey)
    final: list[Obj] = []
    for members, port_keys in groups.items():
        ready_ones = sorted((addresses[a] for a, r in members if r), key=_address_order)
        not_ready_ones = sorted((addresses[a] for a, r in members if not r), key=_address_order)
        packed: Obj = {}
        if ready_ones:
            packed["addresses"] = ready_ones
        if not_ready_ones:
            packed["notReadyAddresses"] = not_ready_ones
        if port_keys:
            packed["ports"] = [_port_of(k) for k in sorted(port_keys)]
        final.append(packed)
    final.sort(key=_subset_order)
    return final


def _subset_order(subset: Mapping[str, Any]) -> tuple[list[_PortKey], list[tuple[bytes, int, str]], list[Any]]:
    return (
        [_port_key(p) for p in subset.get("ports") or []],
        [_address_order(a) for a in subset.get("addresses") or []],
        [_address_order(a) for a in subset.get("notReadyAddresses") or []],
    )


# -- capacity --------------------------------------------------------------------------------------------


def _count(subsets: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    ready = not_ready = 0
    for subset in subsets:
        ready += len(subset.get("addresses") or [])
        not_ready += len(subset.get("notReadyAddresses") or [])
    return ready, not_ready


def truncate_subsets(subsets: list[Obj]) -> bool:
    """`truncateEndpoints`: over 1000 addresses, keep at most 1000, ready ones first, each subset keeping its
    share (rounded up, the last taking what is left). True when it truncated."""
    total_ready, total_not_ready = _count(subsets)
    if total_ready + total_not_ready <= MAX_CAPACITY:
        return False
    truncate_ready = total_ready > MAX_CAPACITY
    allowed = MAX_CAPACITY if truncate_ready else MAX_CAPACITY - total_ready
    total = total_ready if truncate_ready else total_not_ready
    room = allowed
    for subset in subsets:
        field = "addresses" if truncate_ready else "notReadyAddresses"
        members = subset.get(field) or []
        share = min(math.ceil(len(members) / total * allowed), room)
        kept = members[:share]
        if truncate_ready:
            subset.pop("notReadyAddresses", None)
        if kept:
            subset[field] = kept
        else:
            subset.pop(field, None)
        room -= len(kept)
    return True


def capacity_annotation_set_correctly(annotations: Mapping[str, Any], subsets: Iterable[Mapping[str, Any]]) -> bool:
    """Under capacity and not annotated; over capacity is never correct, it has to be truncated."""
    ready, not_ready = _count(subsets)
    if ready + not_ready > MAX_CAPACITY:
        return False
    return OVER_CAPACITY_ANNOTATION not in annotations


# -- the sync --------------------------------------------------------------------------------------------


def _without_ref_versions(subsets: Any) -> list[Any]:
    """Subsets for comparison: a target's resourceVersion (a pod's, which changes for anything) ignored, empty
    lists as absent."""
    normal: list[Any] = []
    for subset in subsets if isinstance(subsets, list) else []:
        if not isinstance(subset, Mapping):
            normal.append(subset)
            continue
        entry: dict[str, Any] = {}
        for field, value in subset.items():
            if field in ("addresses", "notReadyAddresses") and isinstance(value, list):
                cleaned = []
                for address in value:
                    if isinstance(address, Mapping) and isinstance(address.get("targetRef"), Mapping):
                        ref = {k: v for k, v in address["targetRef"].items() if k != "resourceVersion"}
                        address = {**address, "targetRef": ref}
                    cleaned.append(address)
                value = cleaned
            if value in (None, [], {}):
                continue
            entry[field] = value
        normal.append(entry)
    return normal


@dataclass
class EndpointsPlan:
    #: True to create the object, False to update it
    create: bool
    #: the whole object to write
    endpoints: Obj
    ready: int
    not_ready: int


def plan_endpoints(
    service: Mapping[str, Any],
    pods: Iterable[Mapping[str, Any]],
    current: Mapping[str, Any] | None,
    trigger_time: datetime | None,
) -> EndpointsPlan | None:
    """The Endpoints to write for a selector Service, or None when `current` already says it all."""
    subsets, ready, not_ready = desired_subsets(service, pods)
    service_meta = _meta(service)
    service_labels = dict(service_meta.get("labels") or {})
    create = current is None or not _meta(current).get("resourceVersion")
    if current is None:
        current = {"metadata": {"name": service_meta.get("name", ""), "labels": service_labels}}
    current_meta = _meta(current)
    current_labels = dict(current_meta.get("labels") or {})
    current_annotations = dict(current_meta.get("annotations") or {})
    compare_labels = {k: v for k, v in current_labels.items() if k != HEADLESS_LABEL}
    if (
        not create
        and _without_ref_versions(current.get("subsets")) == _without_ref_versions(subsets)
        and compare_labels == service_labels
        and capacity_annotation_set_correctly(current_annotations, current.get("subsets") or [])
    ):
        return None
    endpoints: Obj = copy.deepcopy(dict(current))
    endpoints.setdefault("apiVersion", "v1")
    endpoints.setdefault("kind", "Endpoints")
    metadata = dict(endpoints.get("metadata") or {})
    metadata.setdefault("namespace", service_meta.get("namespace", ""))
    annotations = current_annotations
    if trigger_time is not None:
        annotations[TRIGGER_TIME_ANNOTATION] = format_trigger_time(trigger_time)
    else:
        annotations.pop(TRIGGER_TIME_ANNOTATION, None)
    if truncate_subsets(subsets):
        annotations[OVER_CAPACITY_ANNOTATION] = TRUNCATED
    else:
        annotations.pop(OVER_CAPACITY_ANNOTATION, None)
    labels = dict(service_labels)
    if is_service_ip_set(service):
        labels.pop(HEADLESS_LABEL, None)
    else:
        labels[HEADLESS_LABEL] = ""
    for key, value in (("labels", labels), ("annotations", annotations)):
        if value:
            metadata[key] = value
        else:
            metadata.pop(key, None)
    endpoints["metadata"] = metadata
    if subsets:
        endpoints["subsets"] = subsets
    else:
        endpoints.pop("subsets", None)
    return EndpointsPlan(create, endpoints, ready, not_ready)
