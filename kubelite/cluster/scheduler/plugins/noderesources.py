"""NodeResourcesFit and NodeResourcesBalancedAllocation: whether a node has room for the pod's requests, and how
well it would be used.

The filter compares the pod's effective requests (containers, init containers' peak, overhead) with the node's
allocatable minus what its pods already request, and reports every resource short, in kube's order: pods, cpu,
memory, ephemeral-storage, then extended resources. A pod requesting nothing is only counted against the pod
limit. LeastAllocated (the default strategy) prefers the emptier node, on cpu and memory with weight 1 each,
using the non-zero requests (100m / 200Mi for a container that names none); BalancedAllocation prefers the node
whose cpu and memory fractions would be closest, using the actual requests.
"""

from __future__ import annotations

from kubelite.cluster.scheduler import resources
from kubelite.cluster.scheduler.plugins.base import (
    MAX_NODE_SCORE,
    SKIP,
    CycleState,
    Status,
    _Skip,
    unschedulable,
)
from kubelite.cluster.scheduler.snapshot import NodeInfo

TOO_MANY_PODS = "Too many pods"
_NAMED = (resources.CPU, resources.MEMORY, resources.EPHEMERAL_STORAGE)
_SCORED = ((resources.CPU, 1), (resources.MEMORY, 1))


class NodeResourcesFit:
    name = "NodeResourcesFit"
    weight = 1

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        requests = state.pod.requests
        named = [(name, requests[name]) for name in _NAMED if requests.get(name, 0) > 0]
        scalar = sorted((name, value) for name, value in requests.items()
                        if name not in _NAMED and name != resources.PODS and value > 0)
        state.data[self.name] = named + scalar
        return None

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        reasons: list[str] = []
        allocatable = node.allocatable
        if len(node.pods) + 1 > allocatable.get(resources.PODS, 0):
            reasons.append(TOO_MANY_PODS)
        requested = node.requested
        for name, value in state.data[self.name]:
            if value > allocatable.get(name, 0) - requested.get(name, 0):
                reasons.append(f"Insufficient {name}")
        return unschedulable(self.name, *reasons) if reasons else None

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        pod = state.pod.non_zero_requests
        total = weights = 0
        for name, weight in _SCORED:
            capacity = node.allocatable.get(name, 0)
            requested = node.non_zero_requested.get(name, 0) + pod[name]
            if capacity and requested <= capacity:
                total += (capacity - requested) * MAX_NODE_SCORE // capacity * weight
            weights += weight
        return total // weights

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        return None


class NodeResourcesBalancedAllocation:
    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        requests = state.pod.requests
        if not any(requests.get(name, 0) for name, _ in _SCORED):
            return SKIP  # a best-effort pod changes no node's balance
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        pod = state.pod.requests
        fractions: list[float] = []
        for name, _ in _SCORED:
            capacity = node.allocatable.get(name, 0)
            if not capacity:
                continue
            fractions.append(min((node.requested.get(name, 0) + pod.get(name, 0)) / capacity, 1.0))
        if len(fractions) == 2:
            deviation = abs(fractions[0] - fractions[1]) / 2
        elif len(fractions) > 2:
            mean = sum(fractions) / len(fractions)
            deviation = (sum((f - mean) ** 2 for f in fractions) / len(fractions)) ** 0.5
        else:
            deviation = 0.0
        return int((1 - deviation) * MAX_NODE_SCORE)

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        return None
