"""One sync of a DaemonSet, as decisions over dicts (kube's daemon_controller.go manage / podsShouldBeOnNode
/ updateDaemonSetStatus, and update.go rollingUpdate / updatedDesiredNodeCounts).

The loop hands in the DaemonSet, the nodes, its claimed pods grouped by the node they are for (bound, or
pinned by their node affinity while pending), the current revision's hash and the time; these functions
say which nodes need a pod, which pods go, what to record, and what the status should read.

- `manage`: every node that should run a pod and has none gets one; a failed pod is deleted (behind a
  per-node backoff, with a FailedDaemonPod event), a succeeded one too; surplus pods go (the oldest stays;
  with surge, one old and one new may share a node while the new one becomes available); pods on nodes that
  may no longer run them go; unscheduled pods for nodes that no longer exist go.
- `rolling_update`: without surge, old pods are deleted as long as fewer than maxUnavailable pods are
  unavailable (the manage step then recreates them); with surge, new pods are created beside old ones, at
  most maxSurge at a time, and the old pod goes once the new one is available.
- `daemon_set_status`: the counts kube writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cmp_to_key
from typing import Any

from kubelite.apimachinery.meta import Obj, parse_rfc3339
from kubelite.controllers.daemonset.backoff import Backoff
from kubelite.controllers.daemonset.placement import (
    REVISION_HASH_LABEL,
    TEMPLATE_GENERATION_LABEL,
    NoTargetNode,
    Placement,
    node_should_run_daemon_pod,
    target_node_name,
    template_generation,
)
from kubelite.controllers.workloads.actions import Event
from kubelite.controllers.workloads.controller_utils import is_pod_available, is_pod_ready
from kubelite.controllers.workloads.deployment_util import scaled_value

#: the most pods one sync creates, and the most it deletes (the DaemonSet controller's BurstReplicas)
BURST_REPLICAS = 250

PlacementOf = Callable[[Mapping[str, Any]], Placement]


# -- events --------------------------------------------------------------------------------------------------


def selecting_all_event() -> Event:
    return Event("Warning", "SelectingAll", "This daemon set is selecting all pods. A non-empty selector is required.")


def failed_pod_event(pod: Mapping[str, Any], node_name: str) -> Event:
    meta = pod.get("metadata") or {}
    return Event(
        "Warning",
        "FailedDaemonPod",
        f"Found failed daemon pod {meta.get('namespace', '')}/{meta.get('name', '')} on node {node_name}, "
        "will try to kill it",
    )


def succeeded_pod_event(pod: Mapping[str, Any], node_name: str) -> Event:
    meta = pod.get("metadata") or {}
    return Event(
        "Normal",
        "SucceededDaemonPod",
        f"Found succeeded daemon pod {meta.get('namespace', '')}/{meta.get('name', '')} on node {node_name}, "
        "will try to delete it",
    )


# -- pods and nodes ------------------------------------------------------------------------------------------


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def name_of(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name") or "")


def _deleting(pod: Mapping[str, Any]) -> bool:
    return bool(_meta(pod).get("deletionTimestamp"))


def _phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _bound(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


def _created(pod: Mapping[str, Any]) -> datetime | None:
    raw = _meta(pod).get("creationTimestamp")
    return parse_rfc3339(raw) if raw else None


def _by_creation(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    # podByCreationTimestampAndPhase: scheduled pods first, then the oldest, then by name
    if _bound(a) != _bound(b):
        return -1 if _bound(a) else 1
    created_a, created_b = _created(a), _created(b)
    if created_a == created_b:
        return -1 if name_of(a) < name_of(b) else (1 if name_of(a) > name_of(b) else 0)
    if created_a is None:
        return -1
    if created_b is None:
        return 1
    return -1 if created_a < created_b else 1


def oldest_first(pods: Iterable[Obj]) -> list[Obj]:
    return sorted(pods, key=cmp_to_key(_by_creation))


def is_pod_terminal(pod: Mapping[str, Any]) -> bool:
    return _phase(pod) in ("Succeeded", "Failed")


def pods_by_node(pods: Iterable[Obj], include_deleted_terminal: bool) -> dict[str, list[Obj]]:
    """getNodesToDaemonPods: the claimed pods by the node they are for; a pod that names no node is
    skipped, and so (unless asked for) is a finished pod already being deleted."""
    grouped: dict[str, list[Obj]] = {}
    for pod in pods:
        if not include_deleted_terminal and is_pod_terminal(pod) and _deleting(pod):
            continue
        try:
            node = target_node_name(pod)
        except NoTargetNode:
            continue
        grouped.setdefault(node, []).append(pod)
    return grouped


def is_pod_updated(pod: Mapping[str, Any], revision_hash: str, generation: int | None) -> bool:
    """IsPodUpdated: the pod carries the current revision's hash (or the current template generation)."""
    labels = _meta(pod).get("labels") or {}
    generation_matches = generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation)
    hash_matches = bool(revision_hash) and labels.get(REVISION_HASH_LABEL) == revision_hash
    return hash_matches or generation_matches


def _strategy(ds: Mapping[str, Any]) -> Mapping[str, Any]:
    return (ds.get("spec") or {}).get("updateStrategy") or {}


def _rolling(ds: Mapping[str, Any]) -> Mapping[str, Any] | None:
    strategy = _strategy(ds)
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return None
    rolling = strategy.get("rollingUpdate")
    return rolling if isinstance(rolling, Mapping) else None


def surge_count(ds: Mapping[str, Any], number_to_schedule: int) -> int:
    """SurgeCount (percentages round up); raises IntOrPercentError on a bad value."""
    rolling = _rolling(ds)
    if rolling is None or rolling.get("maxSurge") is None:
        return 0
    return scaled_value(rolling["maxSurge"], number_to_schedule, True)


def unavailable_count(ds: Mapping[str, Any], number_to_schedule: int) -> int:
    """UnavailableCount (percentages round up)."""
    rolling = _rolling(ds)
    if rolling is None:
        return 0
    return scaled_value(rolling.get("maxUnavailable"), number_to_schedule, True)


def allows_surge(ds: Mapping[str, Any]) -> bool:
    try:
        return surge_count(ds, 1) > 0
    except ValueError:
        return False


def min_ready_seconds(ds: Mapping[str, Any]) -> int:
    return int((ds.get("spec") or {}).get("minReadySeconds") or 0)


def failed_pods_backoff_key(ds: Mapping[str, Any], node_name: str) -> str:
    generation = (ds.get("status") or {}).get("observedGeneration") or 0
    return f"{_meta(ds).get('uid', '')}/{generation}/{node_name}"


# -- manage --------------------------------------------------------------------------------------------------


@dataclass
class NodeSync:
    """What one pass decided: nodes to give a pod, pods (by name) to delete, events, a later look."""

    nodes_needing_pods: list[str] = field(default_factory=list)
    pods_to_delete: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    requeue_after: float | None = None

    def requeue(self, seconds: float) -> None:
        self.requeue_after = seconds if self.requeue_after is None else min(self.requeue_after, seconds)


def pods_should_be_on_node(
    ds: Mapping[str, Any],
    node: Mapping[str, Any],
    placement: Placement,
    daemon_pods: Sequence[Obj] | None,
    revision_hash: str,
    backoff: Backoff,
    now: float,
    result: NodeSync,
) -> None:
    """podsShouldBeOnNode, adding its findings to `result`."""
    node_name = name_of(node)
    if placement.should_run and daemon_pods is None:
        result.nodes_needing_pods.append(node_name)
        return
    pods = list(daemon_pods or ())
    if placement.should_continue_running:
        running: list[Obj] = []
        for pod in pods:
            if _deleting(pod):
                continue
            phase = _phase(pod)
            if phase == "Failed":
                # the kubelet may keep rejecting the pod: replacing it goes behind a backoff per node
                key = failed_pods_backoff_key(ds, node_name)
                if backoff.in_backoff_since_update(key, now):
                    result.requeue(backoff.get(key))
                    continue
                backoff.next(key, now)
                result.events.append(failed_pod_event(pod, node_name))
                result.pods_to_delete.append(name_of(pod))
            elif phase == "Succeeded":
                result.events.append(succeeded_pod_event(pod, node_name))
                result.pods_to_delete.append(name_of(pod))
            else:
                running.append(pod)
        if not allows_surge(ds):
            if len(running) > 1:
                result.pods_to_delete.extend(name_of(pod) for pod in oldest_first(running)[1:])
            return
        if len(running) <= 1:
            if not running and placement.should_run:
                result.nodes_needing_pods.append(node_name)
            return
        # with surge, an old and a new pod may share the node: the old one goes once it is not ready or the
        # new one is available; every other pod goes now
        oldest_new: Obj | None = None
        oldest_old: Obj | None = None
        for pod in oldest_first(running):
            if (_meta(pod).get("labels") or {}).get(REVISION_HASH_LABEL) == revision_hash:
                if oldest_new is None:
                    oldest_new = pod
                    continue
            elif oldest_old is None:
                oldest_old = pod
                continue
            result.pods_to_delete.append(name_of(pod))
        if oldest_new is not None and oldest_old is not None:
            when = datetime.fromtimestamp(now, UTC)
            if not is_pod_ready(oldest_old) or is_pod_available(oldest_new, min_ready_seconds(ds), when):
                result.pods_to_delete.append(name_of(oldest_old))
        return
    if daemon_pods is not None:
        result.pods_to_delete.extend(name_of(pod) for pod in pods if not _deleting(pod))


def unscheduled_pods_without_node(
    nodes: Sequence[Mapping[str, Any]], by_node: Mapping[str, Sequence[Obj]]
) -> list[str]:
    """getUnscheduledPodsWithoutNode: pending pods pinned to a node that is gone (pod GC never sees them)."""
    existing = {name_of(node) for node in nodes}
    found: list[str] = []
    for node_name, pods in sorted(by_node.items()):
        if node_name in existing:
            continue
        found.extend(name_of(pod) for pod in pods if not _bound(pod))
    return found


def manage(
    ds: Mapping[str, Any],
    nodes: Sequence[Mapping[str, Any]],
    by_node: Mapping[str, Sequence[Obj]],
    revision_hash: str,
    backoff: Backoff,
    now: float,
    placement_of: PlacementOf | None = None,
) -> NodeSync:
    """manage: the nodes that need a daemon pod and the pods to delete, over every node in order."""
    placement_of = placement_of or (lambda node: node_should_run_daemon_pod(node, ds))
    result = NodeSync()
    for node in nodes:
        pods = by_node.get(name_of(node))
        pods_should_be_on_node(ds, node, placement_of(node), pods, revision_hash, backoff, now, result)
    result.pods_to_delete.extend(unscheduled_pods_without_node(nodes, by_node))
    return result


# -- rolling update ------------------------------------------------------------------------------------------


def updated_pods_on_node(
    pods: Sequence[Obj], revision_hash: str, generation: int | None
) -> tuple[Obj | None, Obj | None, bool]:
    """findUpdatedPodsOnNode: the node's (new pod, old pod), or ok=False when it has more than one of either."""
    new: Obj | None = None
    old: Obj | None = None
    for pod in pods:
        if _deleting(pod):
            continue
        if is_pod_updated(pod, revision_hash, generation):
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


def desired_node_counts(
    ds: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]], by_node: dict[str, list[Obj]], placement_of: PlacementOf
) -> tuple[int, int, int]:
    """updatedDesiredNodeCounts: (maxSurge, maxUnavailable, desiredNumberScheduled); every node that should run
    a pod gets an entry in `by_node`. Raises ValueError on a bad maxSurge or maxUnavailable."""
    desired = 0
    for node in nodes:
        if not placement_of(node).should_run:
            continue
        desired += 1
        by_node.setdefault(name_of(node), [])
    try:
        max_unavailable = unavailable_count(ds, desired)
    except ValueError as exc:
        raise ValueError(f"invalid value for MaxUnavailable: {exc}") from exc
    try:
        max_surge = surge_count(ds, desired)
    except ValueError as exc:
        raise ValueError(f"invalid value for MaxSurge: {exc}") from exc
    if desired > 0 and max_unavailable == 0 and max_surge == 0:
        # an impossible configuration: accept one unavailable pod rather than never rolling
        max_unavailable = 1
    return max_surge, max_unavailable, desired


def rolling_update(
    ds: Mapping[str, Any],
    nodes: Sequence[Mapping[str, Any]],
    by_node: Mapping[str, Sequence[Obj]],
    revision_hash: str,
    now: float,
    placement_of: PlacementOf | None = None,
) -> NodeSync:
    """rollingUpdate: the old pods to delete and the nodes to surge onto, within maxUnavailable / maxSurge.

    Nodes are taken in name order (kube walks a map, in no order)."""
    placement_of = placement_of or (lambda node: node_should_run_daemon_pod(node, ds))
    grouped: dict[str, list[Obj]] = {name: list(pods) for name, pods in by_node.items()}
    max_surge, max_unavailable, desired = desired_node_counts(ds, nodes, grouped, placement_of)
    generation = template_generation(ds)
    min_ready = min_ready_seconds(ds)
    when = datetime.fromtimestamp(now, UTC)
    nodes_by_name = {name_of(node): node for node in nodes}
    result = NodeSync()

    def available(pod: Obj) -> bool:
        return is_pod_available(pod, min_ready, when)

    if max_surge == 0:
        unavailable = 0
        replacements: list[str] = []
        candidates: list[str] = []
        for node_name in sorted(grouped):
            new, old, ok = updated_pods_on_node(grouped[node_name], revision_hash, generation)
            if not ok:
                unavailable += 1  # the manage step prunes the extra pods first
                continue
            if (old is None) == (new is None):
                unavailable += 1
            elif new is not None:
                if not available(new):
                    unavailable += 1
            elif old is not None:
                if not available(old):
                    replacements.append(name_of(old))
                    unavailable += 1
                elif unavailable < max_unavailable:
                    candidates.append(name_of(old))
        remaining = min(max(max_unavailable - unavailable, 0), len(candidates))
        result.pods_to_delete = replacements + candidates[:remaining]
        return result

    to_delete: list[str] = []
    should_not_run: list[str] = []
    candidate_nodes: list[str] = []
    allowed_nodes: list[str] = []
    surging = 0
    available_count = 0
    for node_name in sorted(grouped):
        new, old, ok = updated_pods_on_node(grouped[node_name], revision_hash, generation)
        if not ok:
            surging += 1
            continue
        if old is not None:
            available_count += int(available(old))
        elif new is not None:
            available_count += int(available(new))
        if old is None:
            continue
        if new is None:
            node = nodes_by_name.get(node_name)
            if node is None:
                raise LookupError(f'couldn\'t get node for nodeName "{node_name}": node "{node_name}" not found')
            should_run = placement_of(node).should_run
            if not available(old):
                if not should_run:
                    to_delete.append(name_of(old))
                    continue
                allowed_nodes.append(node_name)
            else:
                if not should_run:
                    should_not_run.append(name_of(old))
                    continue
                if surging >= max_surge:
                    continue
                candidate_nodes.append(node_name)
            continue
        if not available(new):
            surging += 1
            continue
        to_delete.append(name_of(old))
    # with surge the owner expects full availability: pods on nodes that no longer qualify go only as others
    # elsewhere have become available
    deletable = min(available_count - desired, len(should_not_run))
    if deletable > 0:
        to_delete.extend(should_not_run[:deletable])
    remaining = min(max(max_surge - surging, 0), len(candidate_nodes))
    result.pods_to_delete = to_delete
    result.nodes_needing_pods = allowed_nodes + candidate_nodes[:remaining]
    return result


# -- status --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DaemonSetCounts:
    desired_number_scheduled: int
    current_number_scheduled: int
    number_misscheduled: int
    number_ready: int
    updated_number_scheduled: int
    number_available: int
    number_unavailable: int

    def as_status(self) -> dict[str, int]:
        """The counts as DaemonSetStatus fields, zero ones included."""
        return {
            "desiredNumberScheduled": self.desired_number_scheduled,
            "currentNumberScheduled": self.current_number_scheduled,
            "numberMisscheduled": self.number_misscheduled,
            "numberReady": self.number_ready,
            "updatedNumberScheduled": self.updated_number_scheduled,
            "numberAvailable": self.number_available,
            "numberUnavailable": self.number_unavailable,
        }


def daemon_set_status(
    ds: Mapping[str, Any],
    nodes: Sequence[Mapping[str, Any]],
    by_node: Mapping[str, Sequence[Obj]],
    revision_hash: str,
    now: float,
    placement_of: PlacementOf | None = None,
) -> DaemonSetCounts:
    """updateDaemonSetStatus's counts: per node that should run a pod, whether one is there (pending counts),
    and whether the oldest is ready, available and of the current revision; pods on other nodes are
    misscheduled."""
    placement_of = placement_of or (lambda node: node_should_run_daemon_pod(node, ds))
    generation = template_generation(ds)
    min_ready = min_ready_seconds(ds)
    when = datetime.fromtimestamp(now, UTC)
    desired = current = misscheduled = ready = updated = available = 0
    for node in nodes:
        pods = by_node.get(name_of(node)) or ()
        if placement_of(node).should_run:
            desired += 1
            if not pods:
                continue
            current += 1
            pod = oldest_first(pods)[0]
            if is_pod_ready(pod):
                ready += 1
                if is_pod_available(pod, min_ready, when):
                    available += 1
            if is_pod_updated(pod, revision_hash, generation):
                updated += 1
        elif pods:
            misscheduled += 1
    return DaemonSetCounts(desired, current, misscheduled, ready, updated, available, desired - available)


#: the counts DaemonSetStatus marks omitempty: a Go client never sends them at zero
OMITTED_AT_ZERO = ("updatedNumberScheduled", "numberAvailable", "numberUnavailable")


def write_counts(status: dict[str, Any], counts: DaemonSetCounts) -> None:
    """Put the counts into a status as kube's client would encode it (zero omitempty fields left out)."""
    for key, value in counts.as_status().items():
        if value == 0 and key in OMITTED_AT_ZERO:
            status.pop(key, None)
        else:
            status[key] = value


def status_unchanged(ds: Mapping[str, Any], counts: DaemonSetCounts) -> bool:
    """storeDaemonSetStatus writes nothing when every count matches and the generation has been observed."""
    status = ds.get("status") or {}
    if any(int(status.get(k) or 0) != v for k, v in counts.as_status().items()):
        return False
    return int(status.get("observedGeneration") or 0) >= int(_meta(ds).get("generation") or 0)


def selects_everything(ds: Mapping[str, Any]) -> bool:
    """The selector is `{}` (kube refuses to act on such a DaemonSet)."""
    selector = (ds.get("spec") or {}).get("selector")
    if not isinstance(selector, Mapping):
        return False
    return not selector.get("matchLabels") and not selector.get("matchExpressions")
