"""The cluster as a scheduling cycle reads it: every node with the pods bound or assumed to it (kube's cache and
its NodeInfo).

It is kept up to date incrementally from the watch events of nodes and pods (`add_node` / `update_node` /
`remove_node`, `add_pod` / `update_pod` / `remove_pod`), so a cycle never relists. Each node carries the sums a
filter needs at once: the pods' requests (as filtered) and their non-zero requests (as scored), the host ports in
use, and which of its pods have inter-pod (anti-)affinity.

`assume_pod` places a pod on the node the scheduler chose before the binding is observed, so the next cycle
already counts it (kube's Cache.AssumePod); the pod's own bound event then confirms it (`add_pod` of the same
uid), `forget_pod` undoes it if the binding failed. Pods without `spec.nodeName` are not the snapshot's: they are
the queue's.

Invariants: a pod uid is in `_pods` iff it is in exactly one node's `pods` (the node named by its PodInfo), and
a node's `requested` / `non_zero_requested` / `used_ports` are the sums over its `pods`. A pod may name a node the
snapshot does not know yet; that node is kept as a placeholder without a node object, which cycles skip.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from kubelite.cluster.scheduler import resources
from kubelite.cluster.scheduler.terms import (
    NO_POD_AFFINITY,
    HostPort,
    NamespaceLabels,
    PodAffinity,
    Taint,
    host_ports,
    node_taints,
    pod_affinity,
)

# objects as the API serves them, only read here (kubelite.apimachinery.meta.Obj is the mutable form)
ApiObject = Mapping[str, Any]


class PodInfo:
    """One pod, with what the scheduler reads of it prepared once."""

    __slots__ = (
        "affinity",
        "labels",
        "name",
        "namespace",
        "node_name",
        "non_zero_requests",
        "pod",
        "ports",
        "priority",
        "requests",
        "terminating",
        "uid",
    )

    def __init__(self, pod: ApiObject) -> None:
        metadata = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        self.pod = pod
        self.namespace = str(metadata.get("namespace") or "")
        self.name = str(metadata.get("name") or "")
        self.uid = str(metadata.get("uid") or f"{self.namespace}/{self.name}")
        self.labels: Mapping[str, str] = metadata.get("labels") or {}
        self.node_name = str(spec.get("nodeName") or "")
        self.priority = int(spec.get("priority") or 0)
        self.requests = resources.pod_requests(pod)
        self.non_zero_requests = resources.pod_requests(pod, non_zero=True)
        self.ports: tuple[HostPort, ...] = host_ports(pod)
        self.affinity: PodAffinity = pod_affinity(pod)
        self.terminating = metadata.get("deletionTimestamp") is not None


class NodeInfo:
    """One node and the pods on it (kube's framework.NodeInfo)."""

    __slots__ = (
        "allocatable",
        "generation",
        "labels",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "requested",
        "taints",
        "unschedulable",
        "used_ports",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.node: ApiObject | None = None
        self.labels: Mapping[str, str] = {}
        self.taints: tuple[Taint, ...] = ()
        self.unschedulable = False
        self.allocatable: resources.Resources = {}
        self.pods: dict[str, PodInfo] = {}
        self.requested: resources.Resources = {}
        self.non_zero_requested: resources.Resources = {}
        self.used_ports: Counter[HostPort] = Counter()
        self.pods_with_affinity: dict[str, PodInfo] = {}
        self.pods_with_required_anti_affinity: dict[str, PodInfo] = {}
        self.generation = 0

    def set_node(self, node: ApiObject | None) -> None:
        self.node = node
        self.generation += 1
        if node is None:
            return
        metadata = node.get("metadata") or {}
        self.labels = metadata.get("labels") or {}
        self.taints = node_taints(node)
        self.unschedulable = bool((node.get("spec") or {}).get("unschedulable"))
        self.allocatable = resources.resource_list((node.get("status") or {}).get("allocatable"))

    def add_pod(self, info: PodInfo) -> None:
        self.pods[info.uid] = info
        self._account(info, 1)
        if info.affinity is not NO_POD_AFFINITY:
            self.pods_with_affinity[info.uid] = info
            if info.affinity.anti_affinity:
                self.pods_with_required_anti_affinity[info.uid] = info

    def remove_pod(self, info: PodInfo) -> None:
        del self.pods[info.uid]
        self._account(info, -1)
        self.pods_with_affinity.pop(info.uid, None)
        self.pods_with_required_anti_affinity.pop(info.uid, None)

    def _account(self, info: PodInfo, sign: int) -> None:
        self.generation += 1
        for name, value in info.requests.items():
            self.requested[name] = self.requested.get(name, 0) + sign * value
        for name in (resources.CPU, resources.MEMORY):
            self.non_zero_requested[name] = self.non_zero_requested.get(name, 0) + sign * info.non_zero_requests[name]
        for port in info.ports:
            self.used_ports[port] += sign
            if self.used_ports[port] <= 0:
                del self.used_ports[port]


class Snapshot:
    """Nodes by name (in the order they were added, which the cycle walks) and the pods bound or assumed to them."""

    def __init__(self, *, namespace_labels: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._pods: dict[str, PodInfo] = {}
        self._assumed: set[str] = set()
        self.namespace_labels = NamespaceLabels(namespace_labels)
        self._node_list: list[NodeInfo] | None = None
        # nodes with at least one pod with inter-pod terms, so cycles need not scan every node for them
        self._affinity_nodes: dict[str, NodeInfo] = {}

    # -- reading -----------------------------------------------------------------------------------------

    def nodes(self) -> list[NodeInfo]:
        """The nodes that exist (placeholders for pods on unknown nodes left out), in a stable order."""
        if self._node_list is None:
            self._node_list = [info for info in self._nodes.values() if info.node is not None]
        return self._node_list

    def node(self, name: str) -> NodeInfo | None:
        info = self._nodes.get(name)
        return info if info is not None and info.node is not None else None

    def pod(self, uid: str) -> PodInfo | None:
        return self._pods.get(uid)

    def nodes_with_pod_affinity(self) -> list[NodeInfo]:
        return [info for info in self._affinity_nodes.values() if info.node is not None]

    def nodes_with_required_anti_affinity(self) -> list[NodeInfo]:
        return [info for info in self._affinity_nodes.values()
                if info.node is not None and info.pods_with_required_anti_affinity]

    def is_assumed(self, uid: str) -> bool:
        return uid in self._assumed

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self.nodes())

    def __len__(self) -> int:
        return len(self.nodes())

    # -- nodes -------------------------------------------------------------------------------------------

    def add_node(self, node: ApiObject) -> None:
        name = str((node.get("metadata") or {}).get("name") or "")
        info = self._nodes.get(name)
        if info is None:
            info = self._nodes[name] = NodeInfo(name)
        if info.node is None:
            self._node_list = None
        info.set_node(node)

    update_node = add_node

    def remove_node(self, node: ApiObject | str) -> None:
        name = node if isinstance(node, str) else str((node.get("metadata") or {}).get("name") or "")
        info = self._nodes.get(name)
        if info is None:
            return
        self._node_list = None
        if info.pods:
            # the pods stay until their own deletions arrive, as kube's cache keeps a node's pods
            info.set_node(None)
        else:
            del self._nodes[name]

    # -- pods --------------------------------------------------------------------------------------------

    def _place(self, info: PodInfo) -> None:
        node = self._nodes.get(info.node_name)
        if node is None:
            node = self._nodes[info.node_name] = NodeInfo(info.node_name)
        node.add_pod(info)
        self._pods[info.uid] = info
        if node.pods_with_affinity:
            self._affinity_nodes[node.name] = node

    def _unplace(self, uid: str) -> PodInfo | None:
        info = self._pods.pop(uid, None)
        if info is None:
            return None
        node = self._nodes[info.node_name]
        node.remove_pod(info)
        if not node.pods_with_affinity:
            self._affinity_nodes.pop(node.name, None)
        if node.node is None and not node.pods:
            del self._nodes[info.node_name]
        return info

    def add_pod(self, pod: ApiObject) -> None:
        """A pod seen bound to a node (or changed); pods without a node, or finished, are not counted. Confirms an
        assumed pod."""
        info = PodInfo(pod)
        self._assumed.discard(info.uid)
        self._unplace(info.uid)
        # a pod that finished frees its node's resources (kube's cache drops terminal pods)
        phase = (pod.get("status") or {}).get("phase")
        if info.node_name and phase not in ("Succeeded", "Failed"):
            self._place(info)

    update_pod = add_pod

    def remove_pod(self, pod: ApiObject) -> None:
        uid = PodInfo(pod).uid
        self._assumed.discard(uid)
        self._unplace(uid)

    def assume_pod(self, pod: ApiObject, node_name: str) -> PodInfo:
        """Count `pod` on `node_name` from now on, before its binding is seen."""
        spec = dict(pod.get("spec") or {})
        spec["nodeName"] = node_name
        info = PodInfo({**pod, "spec": spec})
        if info.uid in self._pods:
            raise ValueError(f"pod {info.namespace}/{info.name} is already in the cache")
        self._place(info)
        self._assumed.add(info.uid)
        return info

    def forget_pod(self, pod: ApiObject) -> None:
        """Undo `assume_pod` (the binding failed); a pod already confirmed bound is left alone."""
        uid = PodInfo(pod).uid
        if uid in self._assumed:
            self._assumed.discard(uid)
            self._unplace(uid)

    @classmethod
    def of(cls, nodes: list[ApiObject], pods: list[ApiObject], **options: Any) -> Snapshot:
        snapshot = cls(**options)
        for node in nodes:
            snapshot.add_node(node)
        for pod in pods:
            snapshot.add_pod(pod)
        return snapshot
