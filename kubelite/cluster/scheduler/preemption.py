"""DefaultPreemption's decisions: which pods to evict, on which node, so that a pod of higher priority fits.

kube-scheduler's PostFilter runs when no node fits. For each node the pod was rejected on for a reason that
removing pods could resolve, it removes every pod of lower priority and checks that the pod then fits; then
it gives back ("reprieves") as many of those pods as it can, the most important first, those whose eviction
would violate a PodDisruptionBudget before the others, keeping each one whose return still leaves room. What
cannot be given back are the node's victims. Among the nodes with victims it picks, in order: the fewest
budget violations, the lowest highest victim priority, the lowest sum of victim priorities, the fewest
victims, the latest start among the highest-priority victims, then the first found.

A pod is not eligible to preempt when its preemptionPolicy is Never, or when the node it was already
nominated to still has a lower-priority pod terminating (the victims of its last preemption are leaving;
preempting again would take more than needed).

No API call is made here: the component sets the victims' DisruptionTarget condition, deletes them, records
`Preempted` on each and nominates the node on the preemptor (`status.nominatedNodeName`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kubelite.apimachinery.selectors import SelectorError, label_selector_from_spec
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo

TERMINATING_ON_NOMINATED: Final = "not eligible due to a terminating pod on the nominated node."

#: whether the pod being scheduled fits `node` (every filter plugin of the cycle passes)
Fits = Callable[[NodeInfo], bool]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where preemption makes room, and the pods it would evict there."""

    node_name: str
    victims: tuple[PodInfo, ...]
    pdb_violations: int


def eligible(pod: PodInfo, snapshot_node: Callable[[str], NodeInfo | None]) -> bool:
    """PodEligibleToPreemptOthers, after the preemptionPolicy check: not while the victims of an earlier
    preemption are still leaving the node it was nominated to."""
    nominated = str(((pod.pod.get("status") or {}).get("nominatedNodeName")) or "")
    if not nominated:
        return True
    node = snapshot_node(nominated)
    if node is None:
        return True
    return not any(other.terminating and other.priority < pod.priority for other in node.pods.values())


def start_time(info: PodInfo) -> str:
    """The pod's status.startTime, or its creation time when it has none (RFC 3339 strings compare in order)."""
    status = info.pod.get("status") or {}
    metadata = info.pod.get("metadata") or {}
    return str(status.get("startTime") or metadata.get("creationTimestamp") or "")


def _more_important_first(info: PodInfo) -> tuple[int, str]:
    # MoreImportantPod: higher priority first; of equal priority, the one that started earlier
    return (-info.priority, start_time(info))


def _violating(victims: Sequence[PodInfo], pdbs: Sequence[Mapping[str, Any]]) -> set[str]:
    """filterPodsWithPDBViolation: the uids of the pods whose eviction, in this order, would take some budget's
    disruptionsAllowed below zero. Pods already in a budget's disruptedPods were counted by the API."""
    allowed = [int((pdb.get("status") or {}).get("disruptionsAllowed") or 0) for pdb in pdbs]
    selectors = []
    for pdb in pdbs:
        try:
            selector = label_selector_from_spec((pdb.get("spec") or {}).get("selector"))
        except SelectorError:
            selector = None
        selectors.append(None if selector is None or selector.empty else selector)
    violating: set[str] = set()
    for info in victims:
        if not info.labels:
            continue
        for index, pdb in enumerate(pdbs):
            selector = selectors[index]
            if selector is None or (pdb.get("metadata") or {}).get("namespace") != info.namespace:
                continue
            if not selector.matches(info.labels):
                continue
            if info.name in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                continue
            allowed[index] -= 1
            if allowed[index] < 0:
                violating.add(info.uid)
    return violating


def _copy(node: NodeInfo) -> NodeInfo:
    copy = NodeInfo(node.name)
    copy.set_node(node.node)
    for info in node.pods.values():
        copy.add_pod(info)
    return copy


def select_victims(pod: PodInfo, node: NodeInfo, fits: Fits, pdbs: Sequence[Mapping[str, Any]]) -> Candidate | None:
    """selectVictimsOnNode: the fewest lower-priority pods whose removal lets `pod` fit, or None."""
    lower = [info for info in node.pods.values() if info.priority < pod.priority]
    if not lower:
        return None
    trial = _copy(node)
    for info in lower:
        trial.remove_pod(info)
    if not fits(trial):
        return None
    lower.sort(key=_more_important_first)
    violating = _violating(lower, pdbs)
    victims: list[PodInfo] = []
    violations = 0
    for group in ([i for i in lower if i.uid in violating], [i for i in lower if i.uid not in violating]):
        for info in group:
            trial.add_pod(info)
            if not fits(trial):
                trial.remove_pod(info)
                victims.append(info)
                if info.uid in violating:
                    violations += 1
    victims.sort(key=_more_important_first)
    return Candidate(node.name, tuple(victims), violations)


def pick_one(candidates: Sequence[Candidate]) -> Candidate | None:
    """pickOneNodeForPreemption."""
    if not candidates:
        return None

    def earliest_start_of_highest(candidate: Candidate) -> str:
        highest = candidate.victims[0].priority
        return min(start_time(v) for v in candidate.victims if v.priority == highest)

    best = list(candidates)
    criteria: list[Callable[[Candidate], Any]] = [
        lambda c: c.pdb_violations,
        lambda c: c.victims[0].priority if c.victims else -(2**31),
        # kube shifts each priority by 2^31 so that negative ones add up as smaller
        lambda c: sum(v.priority + 2**31 for v in c.victims),
        lambda c: len(c.victims),
    ]
    for criterion in criteria:
        lowest = min(criterion(c) for c in best)
        best = [c for c in best if criterion(c) == lowest]
        if len(best) == 1:
            return best[0]
    with_victims = [c for c in best if c.victims]
    if with_victims:
        latest = max(earliest_start_of_highest(c) for c in with_victims)
        best = [c for c in with_victims if earliest_start_of_highest(c) == latest] or best
    return best[0]


def nominations_to_clear(node_name: str, preemptor: PodInfo,
                         nominated: Mapping[str, Sequence[PodInfo]]) -> list[PodInfo]:
    """The pods of lower priority nominated to the node, which may no longer fit there once it is taken."""
    return [info for info in nominated.get(node_name, ()) if info.priority < preemptor.priority
            and info.uid != preemptor.uid]  # fmt: skip
