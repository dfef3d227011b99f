"""Builders of node and pod objects for tests and benchmarks of the scheduler: the shapes the API serves, with
only the fields the scheduler reads filled in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def make_node(name: str, *, cpu: str = "4", memory: str = "8Gi", pods: str = "110",
              labels: Mapping[str, str] | None = None, taints: Sequence[Mapping[str, Any]] = (),
              unschedulable: bool = False, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
    }


def make_pod(name: str, *, namespace: str = "default", cpu: str | None = None, memory: str | None = None,
             node_name: str | None = None, labels: Mapping[str, str] | None = None, priority: int | None = None,
             host_ports: Sequence[int] = (), uid: str | None = None,
             **spec: Any) -> dict[str, Any]:
    """A pod with one container requesting `cpu` / `memory`; further spec fields (affinity, tolerations,
    initContainers, ...) are passed by their API names."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    container: dict[str, Any] = {"name": "main", "image": "registry.k8s.io/pause:3.10"}
    if requests:
        container["resources"] = {"requests": requests}
    if host_ports:
        container["ports"] = [{"containerPort": port, "hostPort": port} for port in host_ports]
    full_spec: dict[str, Any] = {"containers": [container], **spec}
    if node_name is not None:
        full_spec["nodeName"] = node_name
    if priority is not None:
        full_spec["priority"] = priority
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{namespace}-{name}",
                     "labels": dict(labels or {})},
        "spec": full_spec,
        "status": {"phase": "Pending"},
    }


CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
