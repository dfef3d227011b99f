"""InterPodAffinity: where a pod may go given the pods already placed (filter), and where it would rather go
(score).

Counts are kept per topology pair (label key, value), prepared once per cycle: how many placed pods with
required anti-affinity repel this pod from each domain, and how many placed pods match this pod's required
affinity (all terms at once) and anti-affinity (each term) terms. A node fails, in kube's order, when a required
affinity domain is missing or empty (unresolvable; except the first pod of a group whose terms match itself,
when no pod matches anywhere yet), when a domain of its own anti-affinity holds a matching pod, or when a placed
pod's anti-affinity covers it. The score adds, per domain, the weights of preferred terms (the pod's own towards
placed pods and the placed pods' towards it, with weight 1 for their required affinity terms), minus
anti-affinity's, and scales the nodes' sums between the lowest (0) and the highest (100).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from kubelite.cluster.scheduler.plugins.base import (
    MAX_NODE_SCORE,
    SKIP,
    CycleState,
    Status,
    _Skip,
    unresolvable,
    unschedulable,
)
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo
from kubelite.cluster.scheduler.terms import AffinityTerm, NamespaceLabels

AFFINITY_REASON = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY_REASON = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI_AFFINITY_REASON = "node(s) didn't satisfy existing pods anti-affinity rules"
HARD_POD_AFFINITY_WEIGHT = 1

Pair = tuple[str, str]


def _matches_all(terms: Iterable[AffinityTerm], pod: PodInfo, namespaces: NamespaceLabels) -> bool:
    return all(term.matches(pod.namespace, pod.labels, namespaces) for term in terms)


class _FilterState:
    __slots__ = ("affinity", "anti_affinity", "existing_anti", "self_affinity_ok")

    def __init__(self) -> None:
        self.existing_anti: Counter[Pair] = Counter()
        self.affinity: Counter[Pair] = Counter()
        self.anti_affinity: Counter[Pair] = Counter()
        self.self_affinity_ok = False


class InterPodAffinity:
    name = "InterPodAffinity"
    weight = 2

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        pod, snapshot = state.pod, state.snapshot
        namespaces = snapshot.namespace_labels
        prepared = _FilterState()
        for node in snapshot.nodes_with_required_anti_affinity():
            for existing in node.pods_with_required_anti_affinity.values():
                for term in existing.affinity.anti_affinity:
                    value = node.labels.get(term.topology_key)
                    if value is not None and term.matches(pod.namespace, pod.labels, namespaces):
                        prepared.existing_anti[(term.topology_key, value)] += 1
        required, anti = pod.affinity.affinity, pod.affinity.anti_affinity
        if required or anti:
            for node in snapshot.nodes():
                labels = node.labels
                for existing in node.pods.values():
                    if required and _matches_all(required, existing, namespaces):
                        for term in required:
                            value = labels.get(term.topology_key)
                            if value is not None:
                                prepared.affinity[(term.topology_key, value)] += 1
                    for term in anti:
                        value = labels.get(term.topology_key)
                        if value is not None and term.matches(existing.namespace, existing.labels, namespaces):
                            prepared.anti_affinity[(term.topology_key, value)] += 1
            prepared.self_affinity_ok = not prepared.affinity and _matches_all(required, pod, namespaces)
        if not prepared.existing_anti and not required and not anti:
            return SKIP
        state.data[self.name] = prepared
        return None

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        prepared: _FilterState = state.data[self.name]
        labels = node.labels
        required = state.pod.affinity.affinity
        if required:
            pods_exist = True
            for term in required:
                value = labels.get(term.topology_key)
                if value is None:
                    return unresolvable(self.name, AFFINITY_REASON)
                if prepared.affinity[(term.topology_key, value)] <= 0:
                    pods_exist = False
            if not pods_exist and not prepared.self_affinity_ok:
                return unresolvable(self.name, AFFINITY_REASON)
        if prepared.anti_affinity:
            for term in state.pod.affinity.anti_affinity:
                value = labels.get(term.topology_key)
                if value is not None and prepared.anti_affinity[(term.topology_key, value)] > 0:
                    return unschedulable(self.name, ANTI_AFFINITY_REASON)
        if prepared.existing_anti:
            for pair in prepared.existing_anti:
                if labels.get(pair[0]) == pair[1]:
                    return unschedulable(self.name, EXISTING_ANTI_AFFINITY_REASON)
        return None

    # -- score -------------------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        pod, snapshot = state.pod, state.snapshot
        namespaces = snapshot.namespace_labels
        own_preferred = pod.affinity.preferred_affinity
        own_preferred_anti = pod.affinity.preferred_anti_affinity
        has_preferences = bool(own_preferred or own_preferred_anti)
        holders = snapshot.nodes() if has_preferences else snapshot.nodes_with_pod_affinity()
        if not holders:
            return SKIP
        scores: defaultdict[str, defaultdict[str, int]] = defaultdict(lambda: defaultdict(int))

        def process(term: AffinityTerm, weight: int, target: PodInfo, node: NodeInfo) -> None:
            value = node.labels.get(term.topology_key) if term.topology_key else None
            if value is not None and term.matches(target.namespace, target.labels, namespaces):
                scores[term.topology_key][value] += weight

        for node in holders:
            existing_pods = node.pods.values() if has_preferences else node.pods_with_affinity.values()
            for existing in existing_pods:
                for term in own_preferred:
                    process(term, term.weight, existing, node)
                for term in own_preferred_anti:
                    process(term, -term.weight, existing, node)
                theirs = existing.affinity
                for term in theirs.affinity:
                    process(term, HARD_POD_AFFINITY_WEIGHT, pod, node)
                for term in theirs.preferred_affinity:
                    process(term, term.weight, pod, node)
                for term in theirs.preferred_anti_affinity:
                    process(term, -term.weight, pod, node)
        if not scores:
            return SKIP
        state.data[self.name + "/score"] = scores
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        scores: dict[str, dict[str, int]] = state.data[self.name + "/score"]
        total = 0
        for key, by_value in scores.items():
            value = node.labels.get(key)
            if value is not None:
                total += by_value.get(value, 0)
        return total

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        if not scores:
            return
        lowest, highest = min(scores), max(scores)
        spread = highest - lowest
        for index, raw in enumerate(scores):
            scores[index] = int(MAX_NODE_SCORE * ((raw - lowest) / spread)) if spread > 0 else 0
