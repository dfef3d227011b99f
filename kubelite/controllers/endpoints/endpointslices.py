"""What one sync of the EndpointSlice controller does for a Service, as data (k8s.io/endpointslice's
reconciler).

A selector Service's pods become endpoints: one per pod with an IP that has not finished (terminating pods
included, with `terminating: true`), its addresses of the slice's address type, its conditions (`serving`
is the pod's readiness, `ready` that unless terminating, or always with publishNotReadyAddresses), its
node, the node's zone and the pod as targetRef. Pods resolving the Service's ports to the same port numbers
share slices of at most `max_endpoints` (100) endpoints; each slice is owned by the Service, named
`<service>-<random>` by the server, and labelled `kubernetes.io/service-name` and
`endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` beside the Service's own labels.

The reconciler changes as little as it can: endpoints gone are dropped from their slice (an emptied slice is
deleted, or reused for new endpoints instead of creating one), changed ones are rewritten in place, new ones
fill the slices being updated anyway, then the unchanged slice they fit best, then new slices. A Service
that selects nothing keeps one empty placeholder slice. A pod on a node the cache does not know is left out
(and the sync reported as failed, to be retried), unless the Service publishes not-ready addresses.

kube pops endpoints from a Go map, in no order; kubelite places them by address, so a sync is repeatable.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.endpoints.pods import (
    HEADLESS_LABEL,
    TRIGGER_TIME_ANNOTATION,
    canonical_ip,
    find_port,
    format_trigger_time,
    is_headless_without_ports,
    is_ipv6,
    is_pod_ready,
    is_service_ip_set,
    is_terminating,
    parse_ip,
    pod_ips,
    service_ports,
    should_pod_be_in_endpoints,
    should_set_hostname,
    target_ref,
)

CONTROLLER_NAME = "endpointslice-controller.k8s.io"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
RESERVED_LABELS = frozenset({SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL})


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _endpoints(slice_: Mapping[str, Any]) -> list[Obj]:
    found = slice_.get("endpoints")
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


# -- address types and ports ----------------------------------------------------------------------------


def address_types(service: Mapping[str, Any]) -> list[str]:
    """`getAddressTypesForService`: the Service's IP families; without them, its cluster IP's, or both for a
    headless Service."""
    families = _spec(service).get("ipFamilies")
    found: list[str] = []
    for family in families if isinstance(families, list) else []:
        wanted = {"IPv4": "IPv4", "IPv6": "IPv6"}.get(family)
        if wanted and wanted not in found:
            found.append(wanted)
    if found:
        return found
    if is_service_ip_set(service):
        return ["IPv6" if is_ipv6(str(_spec(service).get("clusterIP"))) else "IPv4"]
    return ["IPv4", "IPv6"]


def endpoint_ports(service: Mapping[str, Any], pod: Mapping[str, Any]) -> list[Obj]:
    """`getEndpointPorts`: each Service port the pod resolves, named as the Service's (an empty name too)."""
    if is_headless_without_ports(service):
        return []
    ports: list[Obj] = []
    for service_port in service_ports(service):
        number = find_port(pod, service_port)
        if number is None:
            continue
        port: Obj = {"name": str(service_port.get("name") or ""), "port": number}
        port["protocol"] = service_port.get("protocol") or "TCP"
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


PortMapKey = tuple[tuple[str, int, str, str], ...]


def port_map_key(ports: Iterable[Mapping[str, Any]]) -> PortMapKey:
    """Which slices a set of ports shares (the order of the ports does not matter)."""
    keys = []
    for port in ports:
        number = port.get("port")
        keys.append(
            (
                str(port.get("name") or ""),
                number if isinstance(number, int) else 0,
                str(port.get("protocol") or ""),
                str(port.get("appProtocol") or ""),
            )
        )
    return tuple(sorted(keys))


def _addresses_of(pod: Mapping[str, Any], address_type: str) -> list[str]:
    found = []
    for ip in pod_ips(pod):
        parsed = parse_ip(ip)
        if parsed is not None and (parsed[0] == 6) == (address_type == "IPv6"):
            found.append(canonical_ip(parsed))
    return found


def pod_to_endpoint(
    pod: Mapping[str, Any], node: Mapping[str, Any] | None, service: Mapping[str, Any], address_type: str
) -> Obj:
    serving = is_pod_ready(pod)
    terminating = is_terminating(pod)
    # a terminating pod is never ready, unless the Service publishes not-ready addresses
    ready = bool(_spec(service).get("publishNotReadyAddresses")) or (serving and not terminating)
    endpoint: Obj = {
        "addresses": _addresses_of(pod, address_type),
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
    }
    if should_set_hostname(pod, service):
        endpoint["hostname"] = _spec(pod)["hostname"]
    endpoint["targetRef"] = target_ref(pod)
    node_name = _spec(pod).get("nodeName")
    if isinstance(node_name, str) and node_name:
        endpoint["nodeName"] = node_name
    zone = ((_meta(node).get("labels") or {}) if node is not None else {}).get(ZONE_LABEL)
    if zone:
        endpoint["zone"] = zone
    return endpoint


# -- endpoint identity -----------------------------------------------------------------------------------

EndpointKey = tuple[tuple[str, ...], str, str, str]


def endpoint_key(endpoint: Mapping[str, Any]) -> EndpointKey:
    """An endpoint is the same endpoint while its addresses, hostname and target pod are; everything else
    (conditions, node, zone) is updated in place."""
    ref = endpoint.get("targetRef") if isinstance(endpoint.get("targetRef"), Mapping) else {}
    return (
        tuple(sorted(str(a) for a in endpoint.get("addresses") or [])),
        str(endpoint.get("hostname") or ""),
        str((ref or {}).get("namespace") or ""),
        str((ref or {}).get("name") or ""),
    )


def _ref_without_version(ref: Any) -> Any:
    if isinstance(ref, Mapping):
        return {k: v for k, v in ref.items() if k != "resourceVersion"}
    return ref


def endpoints_equal_beyond_key(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """`EndpointsEqualBeyondHash`: the node, zone, conditions and target (not its resourceVersion) match."""
    conditions_a = a.get("conditions") if isinstance(a.get("conditions"), Mapping) else {}
    conditions_b = b.get("conditions") if isinstance(b.get("conditions"), Mapping) else {}
    for name in ("ready", "serving", "terminating"):
        if (conditions_a or {}).get(name) != (conditions_b or {}).get(name):
            return False
    return (
        a.get("nodeName") == b.get("nodeName")
        and a.get("zone") == b.get("zone")
        and _ref_without_version(a.get("targetRef")) == _ref_without_version(b.get("targetRef"))
    )


def _ip_order(endpoint: Mapping[str, Any]) -> tuple[int, bytes, str]:
    addresses = endpoint.get("addresses") or []
    first = str(addresses[0]) if addresses else ""
    parsed = parse_ip(first)
    return (parsed[0], parsed[1], first) if parsed is not None else (99, b"", first)


class EndpointSet:
    """Desired endpoints by identity, handed out in address order."""

    def __init__(self) -> None:
        self._items: dict[EndpointKey, Obj] = {}
        #: the keys left to hand out, last first; built at the first pop, as all inserts come before it
        self._order: list[EndpointKey] | None = None

    def insert(self, endpoint: Obj) -> None:
        self._items[endpoint_key(endpoint)] = endpoint
        self._order = None

    def get(self, endpoint: Mapping[str, Any]) -> Obj | None:
        return self._items.get(endpoint_key(endpoint))

    def delete(self, endpoint: Mapping[str, Any]) -> None:
        self._items.pop(endpoint_key(endpoint), None)

    def pop(self) -> Obj:
        if self._order is None:
            self._order = sorted(self._items, key=lambda k: (_ip_order(self._items[k]), k), reverse=True)
        while True:
            key = self._order.pop()
            if key in self._items:
                return self._items.pop(key)

    def __len__(self) -> int:
        return len(self._items)


# -- slices ----------------------------------------------------------------------------------------------


def owned_by(slice_: Mapping[str, Any], service: Mapping[str, Any]) -> bool:
    uid = _meta(service).get("uid")
    for ref in _meta(slice_).get("ownerReferences") or []:
        if not isinstance(ref, Mapping):
            continue
        if ref.get("uid") == uid and ref.get("kind") == "Service" and ref.get("apiVersion") == "v1":
            return True
    return False


def slice_labels(slice_: Mapping[str, Any], service: Mapping[str, Any]) -> tuple[dict[str, str], bool]:
    """`setEndpointSliceLabels`: the Service's labels (but for the reserved ones) with the reserved ones set,
    and whether the slice's own non-reserved labels differ from the Service's."""
    current = {k: v for k, v in (_meta(slice_).get("labels") or {}).items() if k not in RESERVED_LABELS}
    wanted = {k: v for k, v in (_meta(service).get("labels") or {}).items() if k not in RESERVED_LABELS}
    changed = current != wanted
    if is_service_ip_set(service):
        wanted.pop(HEADLESS_LABEL, None)
    else:
        wanted[HEADLESS_LABEL] = ""
    wanted[SERVICE_NAME_LABEL] = str(_meta(service).get("name", ""))
    wanted[MANAGED_BY_LABEL] = CONTROLLER_NAME
    return wanted, changed


def new_slice(service: Mapping[str, Any], ports: list[Obj], address_type: str) -> Obj:
    meta = _meta(service)
    owner = {
        "apiVersion": "v1",
        "kind": "Service",
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    slice_: Obj = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "generateName": f"{meta.get('name', '')}-",
            "namespace": meta.get("namespace", ""),
            "ownerReferences": [owner],
        },
        "addressType": address_type,
        "endpoints": [],
        "ports": copy.deepcopy(ports),
    }
    slice_["metadata"]["labels"], _ = slice_labels(slice_, service)
    return slice_


def _is_placeholder_of(slice_: Mapping[str, Any], placeholder: Mapping[str, Any]) -> bool:
    """The placeholder already there: its namespace, labels, type, and no ports or endpoints (kube compares
    nothing else of the metadata)."""
    meta, want = _meta(slice_), _meta(placeholder)
    return (
        meta.get("namespace") == want.get("namespace")
        and dict(meta.get("labels") or {}) == dict(want.get("labels") or {})
        and slice_.get("addressType") == placeholder.get("addressType")
        and not slice_.get("ports")
        and not slice_.get("endpoints")
    )


def set_trigger_time(slice_: Obj, trigger_time: datetime | None) -> None:
    metadata = slice_.setdefault("metadata", {})
    annotations = dict(metadata.get("annotations") or {})
    if trigger_time is not None:
        annotations[TRIGGER_TIME_ANNOTATION] = format_trigger_time(trigger_time)
    else:
        annotations.pop(TRIGGER_TIME_ANNOTATION, None)
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)


@dataclass
class SlicePlan:
    create: list[Obj] = field(default_factory=list)
    update: list[Obj] = field(default_factory=list)
    delete: list[Obj] = field(default_factory=list)
    #: what failed to be published (a pod on an unknown node): the sync is retried
    errors: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.create or self.update or self.delete)


def _name(slice_: Mapping[str, Any]) -> str:
    return str(_meta(slice_).get("name") or "")


def reconcile(
    service: Mapping[str, Any],
    pods: Iterable[Mapping[str, Any]],
    existing: Iterable[Mapping[str, Any]],
    nodes: Mapping[str, Mapping[str, Any]],
    trigger_time: datetime | None,
    *,
    max_endpoints: int = MAX_ENDPOINTS_PER_SLICE,
) -> SlicePlan:
    """The slices to create, update and delete for `service`, given the pods its selector picks, the slices
    this controller manages for it (none pending deletion), and the nodes by name."""
    pods = list(pods)
    supported = address_types(service)
    plan = SlicePlan()
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    stale_type: list[Obj] = []
    for slice_ in sorted(existing, key=_name):
        if slice_.get("addressType") not in supported:
            stale_type.append(dict(slice_))
        else:
            by_type.setdefault(str(slice_.get("addressType")), []).append(slice_)
    for address_type in supported:
        _reconcile_address_type(service, pods, by_type.get(address_type, []), nodes, address_type, max_endpoints, plan)
    plan.delete.extend(stale_type)
    if _meta(service).get("deletionTimestamp"):
        # creating slices for a Service being deleted would race the garbage collector
        plan.create = []
    for slice_ in plan.create + plan.update:
        set_trigger_time(slice_, trigger_time)
    return plan


def _reconcile_address_type(
    service: Mapping[str, Any],
    pods: list[Mapping[str, Any]],
    existing: list[Mapping[str, Any]],
    nodes: Mapping[str, Mapping[str, Any]],
    address_type: str,
    max_endpoints: int,
    plan: SlicePlan,
) -> None:
    to_create: list[Obj] = []
    to_update: list[Obj] = []
    to_delete: list[Obj] = []
    existing_by_ports: dict[PortMapKey, list[Mapping[str, Any]]] = {}
    for slice_ in existing:
        if owned_by(slice_, service):
            existing_by_ports.setdefault(port_map_key(slice_.get("ports") or []), []).append(slice_)
        else:
            to_delete.append(dict(slice_))
    desired: dict[PortMapKey, EndpointSet] = {}
    desired_ports: dict[PortMapKey, list[Obj]] = {}
    publish_not_ready = bool(_spec(service).get("publishNotReadyAddresses"))
    meta = _meta(service)
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, True):
            continue
        ports = endpoint_ports(service, pod)
        key = port_map_key(ports)
        desired.setdefault(key, EndpointSet())
        desired_ports.setdefault(key, ports)
        node_name = str(_spec(pod).get("nodeName") or "")
        node = nodes.get(node_name)
        if node is None and not publish_not_ready:
            plan.errors.append(
                f"skipping Pod {_meta(pod).get('name', '')} for Service {meta.get('namespace', '')}/"
                f"{meta.get('name', '')}: Node {node_name} Not Found"
            )
            continue
        endpoint = pod_to_endpoint(pod, node, service, address_type)
        if endpoint["addresses"]:
            desired[key].insert(endpoint)
    for key, wanted in desired.items():
        created, updated, deleted = _reconcile_port_mapping(
            service, existing_by_ports.get(key, []), wanted, desired_ports[key], address_type, max_endpoints
        )
        to_create += created
        to_update += updated
        to_delete += deleted
    for key, slices in existing_by_ports.items():
        if key not in desired:
            to_delete += [dict(s) for s in slices]
    if len(existing) == len(to_delete) and not to_create:
        placeholder = new_slice(service, [], address_type)
        if len(to_delete) == 1 and _is_placeholder_of(to_delete[0], placeholder):
            to_delete = []  # the placeholder there already: deleting it to create it again is for nothing
        else:
            to_create.append(placeholder)
    # slices that would be deleted are reused for those that would be created
    while to_create:
        reusable = next(
            (s for s in to_delete if s.get("addressType") == to_create[-1].get("addressType") and owned_by(s, service)),
            None,
        )
        if reusable is None:
            break
        slice_ = to_create.pop()
        slice_["metadata"]["name"] = _name(reusable)
        to_update.append(slice_)
        to_delete.remove(reusable)
    plan.create += to_create
    plan.update += to_update
    plan.delete += to_delete


def _reconcile_port_mapping(
    service: Mapping[str, Any],
    existing: list[Mapping[str, Any]],
    desired: EndpointSet,
    ports: list[Obj],
    address_type: str,
    max_endpoints: int,
) -> tuple[list[Obj], list[Obj], list[Obj]]:
    by_name: dict[str, Obj] = {}
    unchanged: list[str] = []
    to_update: list[str] = []
    to_delete: list[str] = []
    # 1. drop what is no longer desired, rewrite what changed, keep labels in step with the Service's
    for slice_ in existing:
        name = _name(slice_)
        by_name[name] = dict(slice_)
        kept: list[Obj] = []
        changed = False
        for endpoint in _endpoints(slice_):
            got = desired.get(endpoint)
            if got is not None:
                kept.append(got)
                if not endpoints_equal_beyond_key(got, endpoint):
                    changed = True
                desired.delete(endpoint)
        labels, labels_changed = slice_labels(slice_, service)
        if changed or len(kept) != len(_endpoints(slice_)):
            if not kept:
                to_delete.append(name)
            else:
                updated = copy.deepcopy(dict(slice_))
                updated["endpoints"] = kept
                updated["metadata"]["labels"] = labels
                by_name[name] = updated
                to_update.append(name)
        elif labels_changed:
            updated = copy.deepcopy(dict(slice_))
            updated["metadata"]["labels"] = labels
            by_name[name] = updated
            to_update.append(name)
        else:
            unchanged.append(name)
    # 2. fill the slices being written anyway, fullest first
    if len(desired) and to_update:
        for name in sorted(to_update, key=lambda n: -len(by_name[n]["endpoints"])):
            slice_ = by_name[name]
            while len(desired) and len(slice_["endpoints"]) < max_endpoints:
                slice_["endpoints"].append(desired.pop())
    # 3. what is left goes into the unchanged slice it fills best, else into new slices
    created: list[Obj] = []
    while len(desired):
        target: Obj | None = None
        if len(desired) < max_endpoints and unchanged:
            best = _slice_to_fill([by_name[n] for n in unchanged], len(desired), max_endpoints)
            if best is not None:
                target = copy.deepcopy(best)
                by_name[_name(target)] = target
        if target is None:
            target = new_slice(service, ports, address_type)
        while len(desired) and len(target["endpoints"]) < max_endpoints:
            target["endpoints"].append(desired.pop())
        if _name(target):
            if _name(target) not in to_update:
                to_update.append(_name(target))
            if _name(target) in unchanged:
                unchanged.remove(_name(target))
        else:
            created.append(target)
    return created, [by_name[n] for n in to_update], [by_name[n] for n in to_delete]


def _slice_to_fill(slices: list[Obj], count: int, max_endpoints: int) -> Obj | None:
    """`getSliceToFill`: the slice closest to full once `count` endpoints are added, if one has the room."""
    closest, best = max_endpoints, None
    for slice_ in slices:
        diff = max_endpoints - (count + len(_endpoints(slice_)))
        if 0 <= diff < closest:
            closest, best = diff, slice_
            if diff == 0:
                break
    return best


# -- knowing the cache is behind ---------------------------------------------------------------------------

_DELETION_EXPECTED = -1


def slice_service_key(slice_: Mapping[str, Any]) -> str | None:
    name = (_meta(slice_).get("labels") or {}).get(SERVICE_NAME_LABEL)
    if not name:
        return None
    return f"{_meta(slice_).get('namespace', '')}/{name}"


def managed_by_controller(slice_: Mapping[str, Any]) -> bool:
    return (_meta(slice_).get("labels") or {}).get(MANAGED_BY_LABEL) == CONTROLLER_NAME


def _generation(slice_: Mapping[str, Any]) -> int:
    value = _meta(slice_).get("generation")
    return value if isinstance(value, int) else 0


class EndpointSliceTracker:
    """`EndpointSliceTracker`: the generation each slice was last written at by this controller (or that it
    was deleted), by Service, so a sync on a cache that has not seen those writes yet waits for it instead
    of acting on old slices, and events of the controller's own writes do not requeue the Service."""

    def __init__(self) -> None:
        self._generations: dict[str, dict[str, int]] = {}
        self._service_uids: dict[str, str] = {}

    def _of(self, slice_: Mapping[str, Any]) -> dict[str, int] | None:
        key = slice_service_key(slice_) or f"{_meta(slice_).get('namespace', '')}/"
        return self._generations.get(key)

    def has(self, slice_: Mapping[str, Any]) -> bool:
        found = self._of(slice_)
        return found is not None and str(_meta(slice_).get("uid")) in found

    def should_sync(self, slice_: Mapping[str, Any]) -> bool:
        found = self._of(slice_)
        if found is None:
            return True
        uid = str(_meta(slice_).get("uid"))
        return uid not in found or _generation(slice_) > found[uid]

    def stale_slices(self, service: Mapping[str, Any], slices: Iterable[Mapping[str, Any]]) -> bool:
        meta = _meta(service)
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        uid = str(meta.get("uid") or "")
        known = self._service_uids.get(key)
        if known and uid and known != uid:
            # a new Service of the same name: what was written for the old one says nothing
            self._generations.pop(key, None)
        self._service_uids[key] = uid
        found = self._generations.get(key)
        if found is None:
            return False
        provided: set[str] = set()
        for slice_ in slices:
            slice_uid = str(_meta(slice_).get("uid"))
            provided.add(slice_uid)
            expected = found.get(slice_uid)
            if expected is not None and (expected == _DELETION_EXPECTED or expected > _generation(slice_)):
                return True
        return any(g != _DELETION_EXPECTED and u not in provided for u, g in found.items())

    def update(self, slice_: Mapping[str, Any]) -> None:
        key = slice_service_key(slice_) or f"{_meta(slice_).get('namespace', '')}/"
        self._generations.setdefault(key, {})[str(_meta(slice_).get("uid"))] = _generation(slice_)

    def expect_deletion(self, slice_: Mapping[str, Any]) -> None:
        key = slice_service_key(slice_) or f"{_meta(slice_).get('namespace', '')}/"
        self._generations.setdefault(key, {})[str(_meta(slice_).get("uid"))] = _DELETION_EXPECTED

    def handle_deletion(self, slice_: Mapping[str, Any]) -> bool:
        """Forget a deleted slice; True when the deletion was this controller's."""
        found = self._of(slice_)
        if found is None:
            return True
        expected = found.pop(str(_meta(slice_).get("uid")), None)
        return expected is None or expected == _DELETION_EXPECTED

    def delete_service(self, namespace: str, name: str) -> None:
        self._generations.pop(f"{namespace}/{name}", None)
        self._service_uids.pop(f"{namespace}/{name}", None)
