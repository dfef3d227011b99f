"""The ReplicaSet controller's decisions (kube's pkg/controller/replicaset), as functions over dicts.

One sync of a ReplicaSet, as `syncReplicaSet` does it: take the active pods of its namespace, claim those
its selector matches (adopt orphans, release owned pods that no longer match), then, if its expectations
are satisfied and it is not being deleted, create the missing pods (at most `burstReplicas` a sync, in
slow-start batches) or delete the surplus (the lowest-ranked first), and compute the status it should
show. `sync_replica_set` returns all of it as a `ReplicaSetSync`; the loop performs the writes, records the
expectations and the events of the writes that succeeded, and writes the status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from kubelite.apimachinery.meta import Obj, deep_copy, rfc3339
from kubelite.apimachinery.selectors import LabelSelector, label_selector_from_spec
from kubelite.controllers.workloads.actions import STRATEGIC_MERGE_PATCH, Action, Event, object_key
from kubelite.controllers.workloads.controller_utils import (
    BURST_REPLICAS,
    active_pods_ranked,
    controller_ref,
    filter_active_pods,
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    owner_controller,
    pod_from_template,
)

REPLICA_FAILURE = "ReplicaFailure"


# -- events (kube's PodControl texts) ---------------------------------------------------------------------


def created_event(pod_name: str) -> Event:
    return Event("Normal", "SuccessfulCreate", f"Created pod: {pod_name}")


def create_failed_event(error: str) -> Event:
    return Event("Warning", "FailedCreate", f"Error creating: {error}")


def deleted_event(pod_name: str) -> Event:
    return Event("Normal", "SuccessfulDelete", f"Deleted pod: {pod_name}")


def delete_failed_event(error: str) -> Event:
    return Event("Warning", "FailedDelete", f"Error deleting: {error}")


# -- claiming pods -------------------------------------------------------------------------------------------


def rs_controller_ref(rs: Obj) -> Obj:
    return controller_ref(rs, "apps/v1", "ReplicaSet")


def adopt_patch(owner_ref: Obj, pod: Obj) -> dict[str, object]:
    """The strategic merge patch that adds the controller reference (with the pod's uid as a precondition)."""
    return {"metadata": {"ownerReferences": [owner_ref], "uid": pod["metadata"]["uid"]}}


def release_patch(owner_uid: str, pod: Obj) -> dict[str, object]:
    """The strategic merge patch that removes the controller's reference from the pod."""
    return {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": pod["metadata"]["uid"]}}


@dataclass
class Claim:
    claimed: list[Obj] = field(default_factory=list)
    adopt: list[Obj] = field(default_factory=list)
    release: list[Obj] = field(default_factory=list)


def claim_objects(owner: Obj, selector: LabelSelector, candidates: Sequence[Obj]) -> Claim:
    """ControllerRefManager.ClaimObjects: which candidates the owner keeps, adopts and releases.

    Owned by someone else: ignored. Owned by the owner: kept if the selector matches, else released (unless
    the owner is being deleted). Orphans: adopted if the selector matches and neither side is being deleted.
    """
    meta = owner["metadata"]
    owner_deleting = bool(meta.get("deletionTimestamp"))
    claim = Claim()
    for obj in candidates:
        labels = obj.get("metadata", {}).get("labels") or {}
        ref = owner_controller(obj)
        if ref is not None:
            if ref.get("uid") != meta.get("uid"):
                continue
            if selector.matches(labels):
                claim.claimed.append(obj)
            elif not owner_deleting:
                claim.release.append(obj)
            continue
        if owner_deleting or not selector.matches(labels) or obj.get("metadata", {}).get("deletionTimestamp"):
            continue
        claim.adopt.append(obj)
        claim.claimed.append(obj)
    return claim


# -- status -------------------------------------------------------------------------------------------------


def _condition(status: Obj, kind: str) -> Obj | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def replica_set_status(
    rs: Obj,
    active_pods: Sequence[Obj],
    terminating_pods: Sequence[Obj],
    manage_error: str | None,
    now: datetime,
) -> Obj:
    """calculateStatus: the counts over the RS's active pods, terminatingReplicas (DeploymentReplicaSet-
    TerminatingReplicas, on by default since 1.35), and the ReplicaFailure condition set on a failed
    create or delete and removed once a sync succeeds. observedGeneration is set as updateReplicaSetStatus
    writes it."""
    spec = rs.get("spec", {})
    status = deep_copy(rs.get("status") or {})
    template_labels = (spec.get("template", {}).get("metadata") or {}).get("labels") or {}
    min_ready = int(spec.get("minReadySeconds") or 0)
    fully_labeled = ready = available = 0
    for pod in active_pods:
        labels = pod.get("metadata", {}).get("labels") or {}
        if all(labels.get(k) == v for k, v in template_labels.items()):
            fully_labeled += 1
        if is_pod_ready(pod):
            ready += 1
            if is_pod_available(pod, min_ready, now):
                available += 1
    failure = _condition(status, REPLICA_FAILURE)
    if manage_error is not None and failure is None:
        diff = len(active_pods) - int(spec.get("replicas", 1))
        reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
        condition = {
            "type": REPLICA_FAILURE,
            "status": "True",
            "lastTransitionTime": rfc3339(now),
            "reason": reason,
            "message": manage_error,
        }
        status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != REPLICA_FAILURE]
        status["conditions"].append(condition)
    elif manage_error is None and failure is not None:
        status["conditions"] = [c for c in status["conditions"] if c.get("type") != REPLICA_FAILURE]
    if not status.get("conditions"):
        status.pop("conditions", None)
    status["replicas"] = len(active_pods)
    status["fullyLabeledReplicas"] = fully_labeled
    status["readyReplicas"] = ready
    status["availableReplicas"] = available
    status["terminatingReplicas"] = len(terminating_pods)
    return status


def status_changed(rs: Obj, new_status: Obj) -> bool:
    """updateReplicaSetStatus's steady-state test: nothing to write when every count, the conditions and
    the observed generation already agree."""
    old = rs.get("status") or {}
    fields = ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas")
    if any(int(old.get(f) or 0) != int(new_status.get(f) or 0) for f in fields):
        return True
    if old.get("terminatingReplicas") != new_status.get("terminatingReplicas"):
        return True
    if int(rs.get("metadata", {}).get("generation") or 0) != int(old.get("observedGeneration") or 0):
        return True
    return (old.get("conditions") or []) != (new_status.get("conditions") or [])


# -- one sync -------------------------------------------------------------------------------------------------


@dataclass
class ReplicaSetSync:
    """What one sync decided.

    `adopt` and `release` are strategic-merge patches of pods, issued first. `create` holds `create_count`
    copies of the pod to POST (the server names them; record `created_event(name)` for each success,
    `create_failed_event(err)` for a failure, and stop at the end of the first slow-start batch that had
    one). `delete` are the pods to DELETE, with `delete_events` to record as they succeed. `expect_creations`
    (a count) and `expect_deletions` (pod keys, for `UIDTrackingExpectations.expect_deletions_of`) are
    recorded before the writes; creations never made (after a failed batch) are un-expected with
    `lower_expectations`. `status` is the status to write, or None when it is unchanged (if a write failed,
    write `replica_set_status(..., error, now)` instead); `requeue_after` asks for a resync after
    minReadySeconds while ready pods wait to be available.
    """

    claimed: list[Obj] = field(default_factory=list)
    adopt: list[Action] = field(default_factory=list)
    release: list[Action] = field(default_factory=list)
    create: list[Obj] = field(default_factory=list)
    delete: list[Action] = field(default_factory=list)
    delete_events: list[Event] = field(default_factory=list)
    expect_creations: int = 0
    expect_deletions: list[str] = field(default_factory=list)
    status: Obj | None = None
    requeue_after: float | None = None

    @property
    def create_count(self) -> int:
        return len(self.create)


def _owned_terminating(rs: Obj, selector: LabelSelector, pods: Sequence[Obj]) -> list[Obj]:
    uid = rs["metadata"].get("uid")
    out = []
    for pod in pods:
        phase = pod.get("status", {}).get("phase")
        if not pod.get("metadata", {}).get("deletionTimestamp") or phase in ("Succeeded", "Failed"):
            continue
        ref = owner_controller(pod)
        if ref is not None and ref.get("uid") == uid and selector.matches(pod["metadata"].get("labels") or {}):
            out.append(pod)
    return out


def sync_replica_set(
    rs: Obj,
    pods: Sequence[Obj],
    *,
    now: datetime,
    needs_sync: bool = True,
    related_pods: Sequence[Obj] | None = None,
    burst_replicas: int = BURST_REPLICAS,
    owner_ref: Obj | None = None,
) -> ReplicaSetSync:
    """syncReplicaSet over `pods`, every pod of the RS's namespace (as the pod lister gives them).

    `needs_sync` is `expectations.satisfied(key, now)`; `related_pods` are the pods of every ReplicaSet of
    the same owner (getIndirectlyRelatedPods), which rank doubled-up nodes on a scale down (default: the
    RS's own pods); `owner_ref` is the reference set on pods (default: the ReplicaSet's; the Replication-
    Controller's when the same sync serves one)."""
    meta = rs["metadata"]
    namespace = meta.get("namespace", "")
    selector = label_selector_from_spec(rs.get("spec", {}).get("selector"))
    ref = owner_ref if owner_ref is not None else rs_controller_ref(rs)
    claim = claim_objects(rs, selector, filter_active_pods(pods))
    result = ReplicaSetSync(claimed=claim.claimed)
    for pod in claim.adopt:
        result.adopt.append(
            Action("patch", "pods", namespace, pod["metadata"]["name"], adopt_patch(ref, pod), STRATEGIC_MERGE_PATCH)
        )
    for pod in claim.release:
        body = release_patch(meta["uid"], pod)
        result.release.append(Action("patch", "pods", namespace, pod["metadata"]["name"], body, STRATEGIC_MERGE_PATCH))
    active = claim.claimed
    if needs_sync and not meta.get("deletionTimestamp"):
        diff = len(active) - int(rs.get("spec", {}).get("replicas", 1))
        if diff < 0:
            count = min(-diff, burst_replicas)
            result.expect_creations = count
            template = rs.get("spec", {}).get("template") or {}
            result.create = [pod_from_template(template, rs, ref) for _ in range(count)]
        elif diff > 0:
            count = min(diff, burst_replicas)
            ranked = active if count >= len(active) else active_pods_ranked(active, related_pods or active, now)
            for pod in ranked[:count]:
                name = pod["metadata"]["name"]
                result.expect_deletions.append(object_key(pod))
                result.delete.append(
                    Action("delete", "pods", namespace, name, preconditions_uid=pod["metadata"].get("uid"))
                )
                result.delete_events.append(deleted_event(name))
    # the status is computed over the pods as they are now; the writes above show up in the next sync
    new_status = replica_set_status(rs, active, _owned_terminating(rs, selector, pods), None, now)
    new_status["observedGeneration"] = int(meta.get("generation") or 0)
    if status_changed(rs, new_status):
        result.status = new_status
    replicas = int(rs.get("spec", {}).get("replicas", 1))
    min_ready = int(rs.get("spec", {}).get("minReadySeconds") or 0)
    if min_ready > 0 and new_status["readyReplicas"] == replicas and new_status["availableReplicas"] != replicas:
        result.requeue_after = float(min_ready)
    return result


def status_update(rs: Obj, status: Obj) -> Action:
    """The PUT of the status subresource that writes `status` on `rs`."""
    updated = deep_copy(rs)
    updated["status"] = status
    meta = rs["metadata"]
    return Action("update_status", "replicasets", meta.get("namespace", ""), meta["name"], updated)


__all__ = [
    "REPLICA_FAILURE",
    "Claim",
    "ReplicaSetSync",
    "adopt_patch",
    "claim_objects",
    "create_failed_event",
    "created_event",
    "delete_failed_event",
    "deleted_event",
    "is_pod_active",
    "release_patch",
    "replica_set_status",
    "rs_controller_ref",
    "status_changed",
    "status_update",
    "sync_replica_set",
]
