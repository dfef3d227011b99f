"""PodTopologySpread: keep matching pods spread across topology domains.

`DoNotSchedule` constraints filter: counting matching pods (same namespace, selector, not terminating) per domain
over the nodes the constraint covers (those with every constraint's key that, under the default
nodeAffinityPolicy Honor, pass the pod's node affinity, and, under nodeTaintsPolicy Honor, whose taints it
tolerates), a node fails when its domain's count plus the pod itself (if it matches) exceeds the smallest
domain's count by more than maxSkew; the smallest is 0 while fewer domains than minDomains exist. A node without
a constraint's key fails unresolvably. `ScheduleAnyway` constraints score: the fewer matching pods in a node's
domains the better, each constraint weighted by log(number of domains + 2), reversed onto 0-100; nodes without
the keys get 0.

kube's cluster-level default constraints (applied to pods owned by services and workloads that declare none)
need the owners' selectors and are not applied here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.selectors import EQUALS, LabelSelector, Requirement, SelectorError, label_selector_from_spec
from kubelite.cluster.scheduler.plugins.base import (
    MAX_NODE_SCORE,
    SKIP,
    CycleState,
    Status,
    _Skip,
    unresolvable,
    unschedulable,
)
from kubelite.cluster.scheduler.plugins.nodeaffinity import RequiredNodeAffinity
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo
from kubelite.cluster.scheduler.terms import tolerated

REASON = "node(s) didn't match pod topology spread constraints"
MISSING_LABEL_REASON = "node(s) didn't match pod topology spread constraints (missing required label)"
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True, slots=True)
class Constraint:
    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int
    honor_affinity: bool
    honor_taints: bool

    def counts(self, pod: PodInfo) -> bool:
        return self.selector.matches(pod.labels)


def _constraint(raw: Mapping[str, Any], labels: Mapping[str, str]) -> Constraint:
    spec = raw.get("labelSelector")
    try:
        selector = label_selector_from_spec(spec)
    except SelectorError:
        selector = LabelSelector.nothing()
    extra = [Requirement.new(key, EQUALS, [labels[key]]) for key in raw.get("matchLabelKeys") or () if key in labels]
    if extra and spec is not None:
        selector = LabelSelector.from_requirements([*selector.requirements, *extra])
    return Constraint(
        max(int(raw.get("maxSkew") or 1), 1),
        str(raw.get("topologyKey") or ""),
        selector,
        max(int(raw.get("minDomains") or 1), 1),
        (raw.get("nodeAffinityPolicy") or "Honor") == "Honor",
        (raw.get("nodeTaintsPolicy") or "Ignore") == "Honor",
    )


def constraints(pod: PodInfo, when: str) -> list[Constraint]:
    raw = (pod.pod.get("spec") or {}).get("topologySpreadConstraints") or ()
    return [_constraint(c, pod.labels) for c in raw if c.get("whenUnsatisfiable") == when]


def _matching_pods(node: NodeInfo, constraint: Constraint, namespace: str) -> int:
    return sum(1 for p in node.pods.values()
               if p.namespace == namespace and not p.terminating and constraint.selector.matches(p.labels))


def _covers(constraint: Constraint, pod: PodInfo, node: NodeInfo, affinity: RequiredNodeAffinity) -> bool:
    if constraint.honor_affinity and not affinity.matches(node):
        return False
    if constraint.honor_taints:
        tolerations = (pod.pod.get("spec") or {}).get("tolerations") or ()
        for taint in node.taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not tolerated(tolerations, taint):
                return False
    return True


def _has_keys(node: NodeInfo, chosen: list[Constraint]) -> bool:
    return all(c.topology_key in node.labels for c in chosen)


class _FilterState:
    __slots__ = ("constraints", "counts", "minimums")

    def __init__(self, chosen: list[Constraint]) -> None:
        self.constraints = chosen
        self.counts: list[Counter[str]] = [Counter() for _ in chosen]
        self.minimums: list[int] = []


class PodTopologySpread:
    name = "PodTopologySpread"
    weight = 2

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        pod = state.pod
        chosen = constraints(pod, "DoNotSchedule")
        if not chosen:
            return SKIP
        prepared = _FilterState(chosen)
        affinity = RequiredNodeAffinity(pod)
        for node in state.snapshot.nodes():
            if not _has_keys(node, chosen):
                continue
            for index, constraint in enumerate(chosen):
                if not _covers(constraint, pod, node, affinity):
                    continue
                value = node.labels[constraint.topology_key]
                prepared.counts[index][value] += _matching_pods(node, constraint, pod.namespace)
        for index, constraint in enumerate(chosen):
            counts = prepared.counts[index]
            too_few = len(counts) < constraint.min_domains
            prepared.minimums.append(0 if too_few or not counts else min(counts.values()))
        state.data[self.name] = prepared
        return None

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        prepared: _FilterState = state.data[self.name]
        for index, constraint in enumerate(prepared.constraints):
            value = node.labels.get(constraint.topology_key)
            if value is None:
                return unresolvable(self.name, MISSING_LABEL_REASON)
            self_match = 1 if constraint.counts(state.pod) else 0
            skew = prepared.counts[index].get(value, 0) + self_match - prepared.minimums[index]
            if skew > constraint.max_skew:
                return unschedulable(self.name, REASON)
        return None

    # -- score -------------------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        pod = state.pod
        chosen = constraints(pod, "ScheduleAnyway")
        if not chosen:
            return SKIP
        ignored = {node.name for node in nodes if not _has_keys(node, chosen)}
        counts: list[dict[str, int]] = [{} for _ in chosen]
        for node in nodes:
            if node.name in ignored:
                continue
            for index, constraint in enumerate(chosen):
                if constraint.topology_key != HOSTNAME:
                    counts[index][node.labels[constraint.topology_key]] = 0
        weights = []
        for index, constraint in enumerate(chosen):
            size = len(nodes) - len(ignored) if constraint.topology_key == HOSTNAME else len(counts[index])
            weights.append(math.log(size + 2))
        affinity = RequiredNodeAffinity(pod)
        for node in state.snapshot.nodes():
            if not _has_keys(node, chosen):
                continue
            for index, constraint in enumerate(chosen):
                if constraint.topology_key == HOSTNAME or not _covers(constraint, pod, node, affinity):
                    continue
                value = node.labels[constraint.topology_key]
                if value in counts[index]:
                    counts[index][value] += _matching_pods(node, constraint, pod.namespace)
        state.data[self.name + "/score"] = (chosen, counts, weights, ignored)
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        chosen, counts, weights, ignored = state.data[self.name + "/score"]
        if node.name in ignored:
            return -1
        total = 0.0
        for index, constraint in enumerate(chosen):
            value = node.labels.get(constraint.topology_key)
            if value is None:
                continue
            if constraint.topology_key == HOSTNAME:
                count = _matching_pods(node, constraint, state.pod.namespace)
            else:
                count = counts[index][value]
            total += count * weights[index] + (constraint.max_skew - 1)
        return math.floor(total + 0.5)  # Go's math.Round: halves away from zero

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        # -1 marks an ignored node (every real score is >= 0)
        valid = [s for s in scores if s >= 0]
        if not valid:
            scores[:] = [0] * len(scores)
            return
        lowest, highest = min(valid), max(valid)
        for index, raw in enumerate(scores):
            if raw < 0:
                scores[index] = 0
            elif highest == 0:
                scores[index] = MAX_NODE_SCORE
            else:
                scores[index] = MAX_NODE_SCORE * (highest + lowest - raw) // highest
