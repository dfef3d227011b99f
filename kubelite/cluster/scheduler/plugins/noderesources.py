"""NodeResourcesFit and NodeResourcesBalancedAllocation: whether a node has room for the pod's requests, and how
well it would be used.

The filter compares the pod's effective requests (containers, init containers' peak, overhead) with the node's
allocatable minus what its pods already request, and reports every resource short, in kube's order: pods, cpu,
memory, ephemeral-storage, then extended resources. A pod requesting nothing is only counted against the pod
limit. LeastAllocated (the default strategy) prefers the emptier node, on cpu and memory with weight 1 each,
using the non-zero requests (100m / 200Mi for a container that names none); BalancedAllocation prefers the node
whose cpu and memory fractions would be closest (the standard deviation of two fractions is half their
difference), using the actual requests.
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
CPU, MEMORY = resources.CPU, resources.MEMORY
_NAMED = (CPU, MEMORY, resources.EPHEMERAL_STORAGE)


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
        allocatable, requested = node.allocatable, node.requested
        wanted = state.data[self.name]
        # most nodes fit: that answer is made without building the reasons
        for name, value in wanted:
            if value > allocatable.get(name, 0) - requested.get(name, 0):
                break
        else:
            if len(node.pods) < allocatable.get(resources.PODS, 0):
                return None
        reasons: list[str] = []
        if len(node.pods) + 1 > allocatable.get(resources.PODS, 0):
            reasons.append(TOO_MANY_PODS)
        for name, value in wanted:
            if value > allocatable.get(name, 0) - requested.get(name, 0):
                reasons.append(f"Insufficient {name}")
        return unschedulable(self.name, *reasons) if reasons else None

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        # cpu and memory with weight 1 each, spelled out: this runs for every feasible node of every cycle
        pod = state.pod.non_zero_requests
        allocatable, requested = node.allocatable, node.non_zero_requested
        return (_least_allocated(allocatable.get(CPU, 0), requested.get(CPU, 0) + pod[CPU])
                + _least_allocated(allocatable.get(MEMORY, 0), requested.get(MEMORY, 0) + pod[MEMORY])) // 2

    def score_nodes(self, state: CycleState, nodes: list[NodeInfo]) -> list[int]:
        """`score` of each node, in one loop (a cycle scores hundreds of nodes)."""
        pod = state.pod.non_zero_requests
        pod_cpu, pod_memory = pod[CPU], pod[MEMORY]
        scores: list[int] = []
        for node in nodes:
            allocatable, requested = node.allocatable, node.non_zero_requested
            cpu_capacity, memory_capacity = allocatable.get(CPU, 0), allocatable.get(MEMORY, 0)
            cpu = requested.get(CPU, 0) + pod_cpu
            memory = requested.get(MEMORY, 0) + pod_memory
            total = 0
            if cpu_capacity and cpu <= cpu_capacity:
                total += (cpu_capacity - cpu) * MAX_NODE_SCORE // cpu_capacity
            if memory_capacity and memory <= memory_capacity:
                total += (memory_capacity - memory) * MAX_NODE_SCORE // memory_capacity
            scores.append(total // 2)
        return scores

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        return None


class NodeResourcesBalancedAllocation:
    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        requests = state.pod.requests
        if not requests.get(CPU, 0) and not requests.get(MEMORY, 0):
            return SKIP  # a best-effort pod changes no node's balance
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        pod = state.pod.requests
        allocatable, requested = node.allocatable, node.requested
        cpu_capacity, memory_capacity = allocatable.get(CPU, 0), allocatable.get(MEMORY, 0)
        if not cpu_capacity or not memory_capacity:
            return MAX_NODE_SCORE  # one fraction (or none) deviates from nothing
        cpu = min((requested.get(CPU, 0) + pod.get(CPU, 0)) / cpu_capacity, 1.0)
        memory = min((requested.get(MEMORY, 0) + pod.get(MEMORY, 0)) / memory_capacity, 1.0)
        return int((1 - abs(cpu - memory) / 2) * MAX_NODE_SCORE)

    def score_nodes(self, state: CycleState, nodes: list[NodeInfo]) -> list[int]:
        """`score` of each node, in one loop (a cycle scores hundreds of nodes)."""
        pod = state.pod.requests
        pod_cpu, pod_memory = pod.get(CPU, 0), pod.get(MEMORY, 0)
        scores: list[int] = []
        for node in nodes:
            allocatable, requested = node.allocatable, node.requested
            cpu_capacity, memory_capacity = allocatable.get(CPU, 0), allocatable.get(MEMORY, 0)
            if not cpu_capacity or not memory_capacity:
                scores.append(MAX_NODE_SCORE)
                continue
            cpu = min((requested.get(CPU, 0) + pod_cpu) / cpu_capacity, 1.0)
            memory = min((requested.get(MEMORY, 0) + pod_memory) / memory_capacity, 1.0)
            scores.append(int((1 - abs(cpu - memory) / 2) * MAX_NODE_SCORE))
        return scores

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        return None


def _least_allocated(capacity: int, requested: int) -> int:
    if not capacity or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity
