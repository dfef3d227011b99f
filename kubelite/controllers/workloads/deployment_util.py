"""The Deployment controller's arithmetic and bookkeeping (kube's pkg/controller/deployment/util).

Annotations the controller keeps on ReplicaSets, revisions, maxSurge/maxUnavailable resolution with kube's
rounding, the replica counts summed over ReplicaSets, the ReplicaSet orderings, template equality ignoring
the pod-template-hash label, and the Deployment conditions with their reasons and texts. Pure functions of
dicts; the sync in deployment.py strings them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy, parse_rfc3339, rfc3339
from kubelite.controllers.workloads.template_hash import spew_template

POD_TEMPLATE_HASH = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: annotations a Deployment does not pass on to its ReplicaSets (and kubectl rollout undo keeps)
ANNOTATIONS_TO_SKIP = frozenset(
    {LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, DEPRECATED_ROLLBACK_TO}
)
#: the longest revision-history annotation the controller writes
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000
MAX_INT32 = 2**31 - 1

# condition types, reasons and texts
AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"
REPLICA_SET_UPDATED = "ReplicaSetUpdated"
FAILED_RS_CREATE = "ReplicaSetCreateError"
NEW_REPLICA_SET = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
MIN_AVAILABILITY_TEXT = "Deployment has minimum availability."
NO_MIN_AVAILABILITY_TEXT = "Deployment does not have minimum availability."


# -- small accessors ----------


def replicas(obj: Obj | None) -> int:
    """*spec.replicas, which defaulting always sets (to 1)."""
    if obj is None:
        return 0
    value = obj.get("spec", {}).get("replicas")
    return 1 if value is None else int(value)


def status_int(obj: Obj | None, name: str) -> int:
    return int(((obj or {}).get("status") or {}).get(name) or 0)


def annotations_of(obj: Obj) -> dict[str, str]:
    return obj.setdefault("metadata", {}).setdefault("annotations", {})


def is_rolling_update(d: Obj) -> bool:
    return (d.get("spec", {}).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def has_progress_deadline(d: Obj) -> bool:
    deadline = d.get("spec", {}).get("progressDeadlineSeconds")
    return deadline is not None and int(deadline) != MAX_INT32


def has_revision_history_limit(d: Obj) -> bool:
    limit = d.get("spec", {}).get("revisionHistoryLimit")
    return limit is not None and int(limit) != MAX_INT32


def revision(rs: Obj) -> int | None:
    raw = (rs.get("metadata", {}).get("annotations") or {}).get(REVISION)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def max_revision(replica_sets: Iterable[Obj]) -> int:
    return max((r for rs in replica_sets if (r := revision(rs)) is not None), default=0)


# -- maxSurge / maxUnavailable ----------


class IntOrPercentError(ValueError):
    pass


def scaled_value(value: int | str | None, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, "n%" of total rounded up or down."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise IntOrPercentError(f"invalid type: string is not a percentage: {value!r}")
    try:
        percent = int(value[:-1])
    except ValueError as exc:
        raise IntOrPercentError(f"invalid value for IntOrString: invalid value {value!r}") from exc
    exact = percent * total
    return -(-exact // 100) if round_up else exact // 100


def resolve_fenceposts(max_surge: int | str | None, max_unavailable: int | str | None, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: surge rounds up, unavailability down; both zero means one unavailable."""
    surge = scaled_value(max_surge if max_surge is not None else 0, desired, True)
    unavailable = scaled_value(max_unavailable if max_unavailable is not None else 0, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _rolling(d: Obj) -> Mapping[str, Any]:
    return ((d.get("spec", {}).get("strategy") or {}).get("rollingUpdate")) or {}


def max_surge(d: Obj) -> int:
    if not is_rolling_update(d):
        return 0
    rolling = _rolling(d)
    surge, _ = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), replicas(d))
    return surge


def max_unavailable(d: Obj) -> int:
    if not is_rolling_update(d) or replicas(d) == 0:
        return 0
    rolling = _rolling(d)
    _, unavailable = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), replicas(d))
    return min(unavailable, replicas(d))


# -- counts over ReplicaSets ----------


def replica_count(replica_sets: Iterable[Obj | None]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(replicas(rs) for rs in replica_sets if rs is not None)


def actual_replica_count(replica_sets: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "replicas") for rs in replica_sets if rs is not None)


def ready_replica_count(replica_sets: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "readyReplicas") for rs in replica_sets if rs is not None)


def available_replica_count(replica_sets: Iterable[Obj | None]) -> int:
    return sum(status_int(rs, "availableReplicas") for rs in replica_sets if rs is not None)


def terminating_replica_count(replica_sets: Iterable[Obj | None]) -> int | None:
    """The sum of status.terminatingReplicas, or None as soon as one ReplicaSet does not report it."""
    total = 0
    for rs in replica_sets:
        if rs is None:
            continue
        value = (rs.get("status") or {}).get("terminatingReplicas")
        if value is None:
            return None
        total += int(value)
    return total


def filter_active_replica_sets(replica_sets: Iterable[Obj | None]) -> list[Obj]:
    return [rs for rs in replica_sets if rs is not None and replicas(rs) > 0]


# -- orderings ----------


def _created(rs: Obj) -> str:
    # RFC 3339 in UTC at second precision sorts as text
    return rs.get("metadata", {}).get("creationTimestamp") or ""


def by_creation(replica_sets: Iterable[Obj]) -> list[Obj]:
    """ReplicaSetsByCreationTimestamp: oldest first, the name breaking ties."""
    return sorted(replica_sets, key=lambda rs: (_created(rs), rs["metadata"]["name"]))


def by_revision(replica_sets: Iterable[Obj]) -> list[Obj]:
    """ReplicaSetsByRevision: lowest revision first, then by creation."""
    ordered = by_creation(replica_sets)
    return sorted(ordered, key=lambda rs: revision(rs) or 0)


def by_size_newer(replica_sets: Iterable[Obj]) -> list[Obj]:
    """ReplicaSetsBySizeNewer: larger first; of equal size, the newer first."""
    ordered = list(reversed(by_creation(replica_sets)))
    return sorted(ordered, key=lambda rs: -replicas(rs))


def by_size_older(replica_sets: Iterable[Obj]) -> list[Obj]:
    """ReplicaSetsBySizeOlder: larger first; of equal size, the older first."""
    return sorted(by_creation(replica_sets), key=lambda rs: -replicas(rs))


# -- templates ----------


def _without_hash(template: Mapping[str, Any] | None) -> Obj:
    copy: Obj = deep_copy(dict(template or {}))
    labels = (copy.get("metadata") or {}).get("labels")
    if labels:
        labels.pop(POD_TEMPLATE_HASH, None)
    return copy


def equal_ignore_hash(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """EqualIgnoreHash: semantic equality of two pod templates, the pod-template-hash label aside.

    Both are compared as the Go values they decode to (the hash's rendering), which is Semantic.DeepEqual:
    nil and empty collections alike, unset and zero scalars alike, quantities by value."""
    return spew_template(_without_hash(a)) == spew_template(_without_hash(b))


def find_new_replica_set(d: Obj, replica_sets: Sequence[Obj]) -> Obj | None:
    """FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's."""
    template = d.get("spec", {}).get("template")
    for rs in by_creation(replica_sets):
        if equal_ignore_hash(rs.get("spec", {}).get("template"), template):
            return rs
    return None


def find_old_replica_sets(d: Obj, replica_sets: Sequence[Obj]) -> tuple[list[Obj], list[Obj]]:
    """FindOldReplicaSets: (the old ones with replicas, all old ones)."""
    new_rs = find_new_replica_set(d, replica_sets)
    all_old = [rs for rs in replica_sets if new_rs is None or rs["metadata"]["name"] != new_rs["metadata"]["name"]]
    return [rs for rs in all_old if replicas(rs) != 0], all_old


def find_active_or_latest(new_rs: Obj | None, old_rss: Sequence[Obj]) -> Obj | None:
    """FindActiveOrLatest: the one active ReplicaSet, or the newest when none is active, or None."""
    if new_rs is None and not old_rss:
        return None
    newest_first = list(reversed(by_creation(old_rss)))
    active = filter_active_replica_sets([*newest_first, new_rs])
    if not active:
        return new_rs if new_rs is not None else newest_first[0]
    return active[0] if len(active) == 1 else None


def is_saturated(d: Obj, rs: Obj | None) -> bool:
    if rs is None:
        return False
    try:
        desired = int((rs.get("metadata", {}).get("annotations") or {}).get(DESIRED_REPLICAS, ""))
    except ValueError:
        return False
    want = replicas(d)
    return replicas(rs) == want and desired == want and status_int(rs, "availableReplicas") == want


# -- annotations ----------


def replicas_annotations_need_update(rs: Obj, desired: int, max_replicas: int) -> bool:
    current = rs.get("metadata", {}).get("annotations") or {}
    return current.get(DESIRED_REPLICAS) != str(desired) or current.get(MAX_REPLICAS) != str(max_replicas)


def set_replicas_annotations(rs: Obj, desired: int, max_replicas: int) -> bool:
    current = annotations_of(rs)
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(max_replicas))):
        if current.get(key) != value:
            current[key] = value
            changed = True
    return changed


def desired_replicas_annotation(rs: Obj) -> int | None:
    raw = (rs.get("metadata", {}).get("annotations") or {}).get(DESIRED_REPLICAS)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _max_replicas_annotation(rs: Obj) -> int | None:
    raw = (rs.get("metadata", {}).get("annotations") or {}).get(MAX_REPLICAS)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def copy_deployment_annotations(d: Obj, rs: Obj) -> bool:
    """copyDeploymentAnnotationsToReplicaSet: every annotation but the skipped ones."""
    changed = False
    target = annotations_of(rs)
    for key, value in (d.get("metadata", {}).get("annotations") or {}).items():
        if key in ANNOTATIONS_TO_SKIP or target.get(key) == value:
            continue
        target[key] = value
        changed = True
    return changed


def set_new_replica_set_annotations(d: Obj, rs: Obj, new_revision: str, exists: bool) -> bool:
    """SetNewReplicaSetAnnotations: the Deployment's annotations, the revision (only ever raised, the old
    one going to revision-history when a ReplicaSet comes back in a rollback), and for a new ReplicaSet the
    desired-replicas and max-replicas annotations."""
    changed = copy_deployment_annotations(d, rs)
    target = annotations_of(rs)
    old_revision = target.get(REVISION)
    try:
        old_int = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    new_int = int(new_revision)
    if old_int < new_int:
        target[REVISION] = new_revision
        changed = True
    if old_revision is not None and old_int < new_int:
        history = target.get(REVISION_HISTORY, "")
        old_revisions = history.split(",")
        if not old_revisions[0]:
            target[REVISION_HISTORY] = old_revision
        else:
            total = len(history) + len(old_revision) + 1
            start = 0
            while total > MAX_REV_HISTORY_LENGTH_IN_CHARS and start < len(old_revisions):
                total -= len(old_revisions[start]) + 1
                start += 1
            if total <= MAX_REV_HISTORY_LENGTH_IN_CHARS:
                target[REVISION_HISTORY] = ",".join([*old_revisions[start:], old_revision])
    if not exists and set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def set_deployment_revision(d: Obj, new_revision: str) -> bool:
    current = annotations_of(d)
    if current.get(REVISION) != new_revision:
        current[REVISION] = new_revision
        return True
    return False


# -- scaling arithmetic ----------


def new_rs_new_replicas(d: Obj, all_rss: Sequence[Obj | None], new_rs: Obj) -> int:
    """NewRSNewReplicas: how far the new ReplicaSet may grow now."""
    if not is_rolling_update(d):
        return replicas(d)
    surge = scaled_value(_rolling(d).get("maxSurge"), replicas(d), True)
    current = replica_count(all_rss)
    max_total = replicas(d) + surge
    if current >= max_total:
        return replicas(new_rs)
    scale_up = min(max_total - current, replicas(d) - replicas(new_rs))
    return replicas(new_rs) + scale_up


def _round_to_int32(value: float) -> int:
    return int(value - 0.5) if value < 0 else int(value + 0.5)


def replica_set_proportion(rs: Obj | None, d: Obj, to_add: int, added: int) -> int:
    """GetReplicaSetProportion: this ReplicaSet's share of a proportional scale."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _replica_set_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _replica_set_fraction(rs: Obj, d: Obj) -> int:
    if replicas(d) == 0:
        return -replicas(rs)
    deployment_max = replicas(d) + max_surge(d)
    before = _max_replicas_annotation(rs)
    if before is None:
        # a ReplicaSet edited by hand or older than the annotation: the Deployment's current size
        before = status_int(d, "replicas")
    if before == 0:
        return 0  # kube would divide by zero here; no share is the safe reading
    return _round_to_int32(replicas(rs) * deployment_max / before) - replicas(rs)


# -- conditions ----------


def get_condition(status: Mapping[str, Any] | None, kind: str) -> Obj | None:
    return next((c for c in (status or {}).get("conditions") or [] if c.get("type") == kind), None)


def new_condition(kind: str, status: str, reason: str, message: str, now: datetime) -> Obj:
    stamp = rfc3339(now)
    return {
        "type": kind,
        "status": status,
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def set_condition(status: Obj, condition: Obj) -> None:
    """SetDeploymentCondition: no change for the same status and reason; the transition time kept while the
    status stays; the condition moves to the end."""
    current = get_condition(status, condition["type"])
    if (
        current is not None
        and current.get("status") == condition["status"]
        and current.get("reason") == condition["reason"]
    ):
        return
    if current is not None and current.get("status") == condition["status"]:
        condition = {**condition, "lastTransitionTime": current.get("lastTransitionTime")}
    remove_condition(status, condition["type"])
    status.setdefault("conditions", []).append(condition)


def remove_condition(status: Obj, kind: str) -> None:
    kept = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


def rs_condition_to_deployment(condition: Mapping[str, Any]) -> Obj:
    return {
        "type": condition.get("type"),
        "status": condition.get("status"),
        "lastUpdateTime": condition.get("lastTransitionTime"),
        "lastTransitionTime": condition.get("lastTransitionTime"),
        "reason": condition.get("reason"),
        "message": condition.get("message"),
    }


# -- rollout state ----------


def _generation(d: Obj) -> int:
    return int(d.get("metadata", {}).get("generation") or 0)


def deployment_complete(d: Obj, status: Mapping[str, Any]) -> bool:
    want = replicas(d)
    return (
        int(status.get("updatedReplicas") or 0) == want
        and int(status.get("replicas") or 0) == want
        and int(status.get("availableReplicas") or 0) == want
        and int(status.get("observedGeneration") or 0) >= _generation(d)
    )


def deployment_progressing(d: Obj, status: Mapping[str, Any]) -> bool:
    old = d.get("status") or {}

    def get(s: Mapping[str, Any], key: str) -> int:
        return int(s.get(key) or 0)

    old_old = get(old, "replicas") - get(old, "updatedReplicas")
    new_old = get(status, "replicas") - get(status, "updatedReplicas")
    return (
        get(status, "updatedReplicas") > get(old, "updatedReplicas")
        or new_old < old_old
        or get(status, "readyReplicas") > get(old, "readyReplicas")
        or get(status, "availableReplicas") > get(old, "availableReplicas")
    )


def deployment_timed_out(d: Obj, status: Mapping[str, Any], now: datetime) -> bool:
    if not has_progress_deadline(d):
        return False
    condition = get_condition(status, PROGRESSING)
    if condition is None or condition.get("reason") == NEW_RS_AVAILABLE:
        return False
    if condition.get("reason") == TIMED_OUT:
        return True
    since = condition.get("lastUpdateTime")
    if not since:
        return False
    deadline = parse_rfc3339(since) + timedelta(seconds=int(d["spec"]["progressDeadlineSeconds"]))
    return deadline < now


def seconds_until_progress_check(d: Obj, status: Mapping[str, Any], now: datetime) -> float | None:
    """requeueStuckDeployment: when to look again for a deadline being passed (0: now), or None."""
    current = get_condition(d.get("status"), PROGRESSING)
    if not has_progress_deadline(d) or current is None:
        return None
    if deployment_complete(d, status) or current.get("reason") == TIMED_OUT:
        return None
    since = parse_rfc3339(current["lastUpdateTime"])
    after = (since + timedelta(seconds=int(d["spec"]["progressDeadlineSeconds"])) - now).total_seconds()
    return 0.0 if after < 1 else after
