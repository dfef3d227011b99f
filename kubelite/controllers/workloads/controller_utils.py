"""What the ReplicaSet and Deployment controllers share (kube's pkg/controller/controller_utils.go).

Pod readiness and availability, the active-pod filter, the ranking that picks which pods go first on a scale
down, the expectations that keep a controller from acting twice on one observation, the slow-start batches
in which pods are created, and the pod a controller builds from its template. All of it is pure: objects are
dicts as the API serves them, and time is passed in (a datetime for object timestamps, a Clock's monotonic
reading for expectation TTLs), so a reconcile loop and a test see the same answers.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy, parse_rfc3339
from kubelite.controllers.workloads.template_hash import compute_hash

__all__ = [
    "BURST_REPLICAS",
    "EXPECTATIONS_TTL_SECONDS",
    "ControllerExpectations",
    "UIDTrackingExpectations",
    "active_pods_ranked",
    "compute_hash",
    "controller_ref",
    "filter_active_pods",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "pod_from_template",
    "run_slow_start",
    "slow_start_batches",
]

#: --concurrent-*-syncs aside, the most pods one sync creates or deletes (kube's BurstReplicas)
BURST_REPLICAS = 500
#: how long unobserved expectations hold a controller back (ExpectationsTimeout)
EXPECTATIONS_TTL_SECONDS = 300.0
#: the first slow-start batch (SlowStartInitialBatchSize)
SLOW_START_INITIAL_BATCH = 1
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


# -- pod state --------------------------------------------------------------------------------------------


def _time(value: str | None) -> datetime | None:
    return parse_rfc3339(value) if value else None


def _ready_condition(pod: Obj) -> Obj | None:
    for condition in pod.get("status", {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def is_pod_ready(pod: Obj) -> bool:
    condition = _ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def is_pod_available(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    """podutil.IsPodAvailable: ready, and ready for at least minReadySeconds."""
    condition = _ready_condition(pod)
    if condition is None or condition.get("status") != "True":
        return False
    if min_ready_seconds == 0:
        return True
    since = _time(condition.get("lastTransitionTime"))
    return since is not None and (now - since).total_seconds() >= min_ready_seconds


def is_pod_active(pod: Obj) -> bool:
    """Neither finished nor being deleted."""
    phase = pod.get("status", {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod.get("metadata", {}).get("deletionTimestamp")


def filter_active_pods(pods: Iterable[Obj]) -> list[Obj]:
    return [pod for pod in pods if is_pod_active(pod)]


# -- the scale-down ranking ---------------------------------------------------------------------------------


def _deletion_cost(pod: Obj) -> int:
    raw = (pod.get("metadata", {}).get("annotations") or {}).get(POD_DELETION_COST)
    try:
        return int(raw) if raw is not None else 0
    except ValueError:
        return 0


def _max_restarts(pod: Obj) -> tuple[int, int]:
    """The most restarts of a regular container, then of a sidecar (an init container that always restarts)."""
    status = pod.get("status", {})
    regular = max((c.get("restartCount", 0) for c in status.get("containerStatuses") or []), default=0)
    sidecars = {
        c.get("name") for c in pod.get("spec", {}).get("initContainers") or [] if c.get("restartPolicy") == "Always"
    }
    init_statuses = status.get("initContainerStatuses") or []
    sidecar = max((c.get("restartCount", 0) for c in init_statuses if c.get("name") in sidecars), default=0)
    return regular, sidecar


def _log_rank(when: datetime, now: datetime) -> int:
    nanos = (now - when).total_seconds() * 1e9
    return int(math.log2(nanos)) if nanos > 0 else -1


def _newer_first(a: datetime | None, b: datetime | None, now: datetime | None, uid_a: str, uid_b: str) -> bool:
    """a sorts before b: empty first, then newer, with LogarithmicScaleDown's power-of-two age buckets
    (ties within a bucket broken by uid)."""
    if a is None or b is None:
        return a is None
    if now is None:
        return a > b
    diff = _log_rank(a, now) - _log_rank(b, now)
    if diff == 0:
        return uid_a < uid_b
    return diff < 0


@dataclass(frozen=True)
class _Ranked:
    pod: Obj
    rank: int
    now: datetime | None

    def __lt__(self, other: _Ranked) -> bool:  # ActivePodsWithRanks.Less
        a, b = self.pod, other.pod
        node_a, node_b = a.get("spec", {}).get("nodeName", ""), b.get("spec", {}).get("nodeName", "")
        if node_a != node_b and (not node_a or not node_b):
            return not node_a
        phase_a = _PHASE_ORDINAL.get(a.get("status", {}).get("phase", ""), 0)
        phase_b = _PHASE_ORDINAL.get(b.get("status", {}).get("phase", ""), 0)
        if phase_a != phase_b:
            return phase_a < phase_b
        ready_a, ready_b = is_pod_ready(a), is_pod_ready(b)
        if ready_a != ready_b:
            return not ready_a
        cost_a, cost_b = _deletion_cost(a), _deletion_cost(b)
        if cost_a != cost_b:
            return cost_a < cost_b
        if self.rank != other.rank:
            return self.rank > other.rank
        uid_a, uid_b = a.get("metadata", {}).get("uid", ""), b.get("metadata", {}).get("uid", "")
        if ready_a and ready_b:
            since_a = _time((_ready_condition(a) or {}).get("lastTransitionTime"))
            since_b = _time((_ready_condition(b) or {}).get("lastTransitionTime"))
            if since_a != since_b:
                return _newer_first(since_a, since_b, self.now, uid_a, uid_b)
        restarts_a, restarts_b = _max_restarts(a), _max_restarts(b)
        if restarts_a != restarts_b:  # regular containers first, sidecars to break a tie
            return restarts_a > restarts_b
        created_a = _time(a.get("metadata", {}).get("creationTimestamp"))
        created_b = _time(b.get("metadata", {}).get("creationTimestamp"))
        if created_a != created_b:
            return _newer_first(created_a, created_b, self.now, uid_a, uid_b)
        return False


def active_pods_ranked(pods: Sequence[Obj], related_pods: Sequence[Obj], now: datetime | None) -> list[Obj]:
    """`pods` in the order they should be deleted: ActivePodsWithRanks, where a pod's rank is how many
    active related pods (of the same owner's ReplicaSets) share its node, so doubled-up nodes lose one first.

    The sort is stable (kube's sort.Sort is not), so pods that compare equal keep their given order."""
    on_node: dict[str, int] = {}
    for pod in related_pods:
        if is_pod_active(pod):
            node = pod.get("spec", {}).get("nodeName", "")
            on_node[node] = on_node.get(node, 0) + 1
    ranked = [_Ranked(pod, on_node.get(pod.get("spec", {}).get("nodeName", ""), 0), now) for pod in pods]
    return [entry.pod for entry in sorted(ranked)]


# -- expectations ----------------------------------------------------------------------------------------------


@dataclass
class _Expectation:
    add: int
    delete: int
    timestamp: float


@dataclass
class ControllerExpectations:
    """How many creations and deletions each controller key still waits to see in its informer.

    A sync that issues creates or deletes records them here; the informer's events lower them; the next sync
    acts only once they are fulfilled (add <= 0 and delete <= 0) or older than the TTL, in case a watch event
    was lost. Keys never recorded are satisfied. `now` is a monotonic reading (Clock.monotonic()).
    """

    ttl: float = EXPECTATIONS_TTL_SECONDS
    _records: dict[str, _Expectation] = field(default_factory=dict)

    def get(self, key: str) -> tuple[int, int] | None:
        record = self._records.get(key)
        return None if record is None else (record.add, record.delete)

    def satisfied(self, key: str, now: float) -> bool:
        record = self._records.get(key)
        if record is None:
            return True
        if record.add <= 0 and record.delete <= 0:
            return True
        return now - record.timestamp > self.ttl

    def set(self, key: str, add: int, delete: int, now: float) -> None:
        self._records[key] = _Expectation(add, delete, now)

    def expect_creations(self, key: str, adds: int, now: float) -> None:
        self.set(key, adds, 0, now)

    def expect_deletions(self, key: str, dels: int, now: float) -> None:
        self.set(key, 0, dels, now)

    def raise_expectations(self, key: str, add: int, delete: int) -> None:
        record = self._records.get(key)
        if record is not None:
            record.add += add
            record.delete += delete

    def lower_expectations(self, key: str, add: int, delete: int) -> None:
        record = self._records.get(key)
        if record is not None:
            record.add -= add
            record.delete -= delete

    def creation_observed(self, key: str) -> None:
        self.lower_expectations(key, 1, 0)

    def deletion_observed(self, key: str) -> None:
        self.lower_expectations(key, 0, 1)

    def delete(self, key: str) -> None:
        self._records.pop(key, None)


@dataclass
class UIDTrackingExpectations(ControllerExpectations):
    """Expectations that remember which pods a controller deleted (UIDTrackingControllerExpectations), so a
    deletion is counted once, and only for a pod this controller asked to delete: the ReplicaSet controller
    sees each pod's deletion twice (the graceful update, then the delete) and others' deletions too."""

    _deleting: dict[str, set[str]] = field(default_factory=dict)

    def expect_deletions_of(self, key: str, pod_keys: Iterable[str], now: float) -> None:
        pending = set(pod_keys)
        self._deleting[key] = pending
        self.expect_deletions(key, len(pending), now)

    def deletion_of_observed(self, key: str, pod_key: str) -> None:
        pending = self._deleting.get(key)
        if pending is not None and pod_key in pending:
            pending.discard(pod_key)
            self.deletion_observed(key)

    def delete(self, key: str) -> None:
        super().delete(key)
        self._deleting.pop(key, None)


# -- slow start --------------------------------------------------------------------------------------------


def slow_start_batches(count: int, initial: int = SLOW_START_INITIAL_BATCH) -> list[int]:
    """The batch sizes of slowStartBatch: initial, then doubling, the last cut to what remains."""
    sizes: list[int] = []
    remaining = count
    size = min(remaining, initial)
    while size > 0:
        sizes.append(size)
        remaining -= size
        size = min(2 * size, remaining)
    return sizes


async def run_slow_start(
    count: int, call: Callable[[], Awaitable[None]], initial: int = SLOW_START_INITIAL_BATCH
) -> tuple[int, BaseException | None]:
    """Run `call` `count` times in slow-start batches, each batch concurrently; stop after the first batch in
    which a call failed. Returns (successes, the first error or None); the calls never run are the caller's
    to un-expect (count - successes)."""
    successes = 0
    for size in slow_start_batches(count, initial):
        results = await asyncio.gather(*(call() for _ in range(size)), return_exceptions=True)
        errors = [result for result in results if isinstance(result, BaseException)]
        successes += size - len(errors)
        if errors:
            return successes, errors[0]
    return successes, None


# -- pods from a template ------------------------------------------------------------------------------------


def controller_ref(owner: Obj, api_version: str, kind: str) -> Obj:
    """The ownerReference a controller sets on what it creates."""
    meta = owner["metadata"]
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _pod_name_prefix(owner_name: str) -> str:
    # getPodsPrefix: "<owner>-" unless that is no valid generateName, then the owner's name alone
    prefix = f"{owner_name}-"
    return prefix if len(prefix) <= 253 else owner_name


def pod_from_template(template: Mapping[str, Any], owner: Obj, ref: Obj | None) -> Obj:
    """GetPodFromTemplate: the template's labels, annotations and finalizers (copied), generateName
    `<owner>-`, the controller reference, the template's spec, in the owner's namespace."""
    template_meta = template.get("metadata") or {}
    metadata: Obj = {"generateName": _pod_name_prefix(owner["metadata"]["name"])}
    namespace = owner["metadata"].get("namespace")
    if namespace:
        metadata["namespace"] = namespace
    for key in ("labels", "annotations"):
        if template_meta.get(key):
            metadata[key] = dict(template_meta[key])
    if template_meta.get("finalizers"):
        metadata["finalizers"] = list(template_meta["finalizers"])
    if ref is not None:
        metadata["ownerReferences"] = [dict(ref)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": deep_copy(template.get("spec") or {})}


def owner_controller(obj: Obj) -> Obj | None:
    """metav1.GetControllerOf."""
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None
