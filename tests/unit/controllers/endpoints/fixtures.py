"""Services, pods and nodes as the controllers' informers hold them."""

from __future__ import annotations

from typing import Any

CREATED = "2026-01-02T03:04:05Z"


def service(
    name: str = "web",
    *,
    namespace: str = "ns",
    selector: dict[str, str] | None = None,
    ports: list[dict[str, Any]] | None = None,
    cluster_ip: str = "10.96.0.10",
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{name}",
            "creationTimestamp": CREATED,
            "labels": labels or {},
        },
        "spec": {
            "selector": {"app": name} if selector is None else selector,
            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}] if ports is None else ports,
            "clusterIP": cluster_ip,
            "ipFamilies": ["IPv6"] if ":" in cluster_ip else ["IPv4"],
            **spec,
        },
    }


def pod(
    name: str,
    ip: str | None,
    *,
    ready: bool = True,
    namespace: str = "ns",
    labels: dict[str, str] | None = None,
    node: str = "node-a",
    ports: list[dict[str, Any]] | None = None,
    ready_at: str = "2026-01-02T03:05:00Z",
    phase: str = "Running",
    deleting: bool = False,
    resource_version: str = "1",
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": f"uid-{name}",
        "labels": {"app": "web"} if labels is None else labels,
        "resourceVersion": resource_version,
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-01-02T03:06:00Z"
    status: dict[str, Any] = {
        "phase": phase,
        "conditions": [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": ready_at}],
    }
    if ip is not None:
        status["podIP"] = ip
        status["podIPs"] = [{"ip": ip}]
    return {
        "metadata": meta,
        "spec": {"nodeName": node, "containers": [{"name": "app", "ports": ports or []}]},
        "status": status,
    }


def node(name: str = "node-a", zone: str | None = "zone-1") -> dict[str, Any]:
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {"metadata": {"name": name, "labels": labels}}
