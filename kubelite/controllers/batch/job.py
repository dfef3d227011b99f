"""What one sync of kube-controller-manager's Job controller does, as data: `sync_job(job, pods, now)`.

Given a Job, the pods it controls and the clock's reading, the answer lists the pods to create (from the
template, with the `batch.kubernetes.io/job-tracking` finalizer; for Indexed Jobs the completion index as
annotation, label, hostname and JOB_COMPLETION_INDEX, and with backoffLimitPerIndex the index's failure
counts), the pods to delete, the pods whose tracking finalizer to remove, the status to write, the events, and
when to look again (pod-failure backoff, activeDeadlineSeconds).

Status follows kube 1.36's finalizer-tracked accounting, which never loses or double-counts a pod: a finished
pod's uid first goes into `status.uncountedTerminatedPods` (written as `status_before_finalizers`), then its
finalizer is removed, then it moves to `succeeded` / `failed` (written as `status`). The terminal condition
waits for that and for terminating pods to go: first the interim SuccessCriteriaMet or FailureTarget
condition, then Complete (with completionTime) or Failed. Not modelled: successPolicy, managedBy, and the
API-call expectations (the reconcile loop syncs only once its own creates and deletes are seen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from kubelite.apimachinery.meta import deep_copy, parse_rfc3339, rfc3339

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX_KEY = "batch.kubernetes.io/job-completion-index"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
INDEX_FAILURE_COUNT_KEY = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT_KEY = "batch.kubernetes.io/job-index-ignored-failure-count"
#: the API's default backoffLimit when backoffLimitPerIndex is set
_MAX_INT32 = 2**31 - 1
_EPOCH = datetime.fromtimestamp(0, UTC)
DEFAULT_BACKOFF_LIMIT = 6
#: first delay before recreating a failed pod, doubled per further failure up to the maximum (kube's values)
POD_FAILURE_BACKOFF = 10.0
MAX_POD_FAILURE_BACKOFF = 600.0
MAX_POD_CREATE_DELETE_PER_SYNC = 500
#: generateName prefixes are cut so that the five random characters still fit a DNS label
_MAX_GENERATED_NAME_PREFIX = 58

Event = tuple[str, str, str]


@dataclass
class JobSync:
    """What a sync decided. Carry it out in order: deletes, creates, `status_before_finalizers` (when not
    None), finalizer removals, `status` (when `update_status`), events."""

    status: dict[str, Any]
    update_status: bool = False
    status_before_finalizers: dict[str, Any] | None = None
    pods_to_create: list[dict[str, Any]] = field(default_factory=list)
    #: names of pods to delete; those in `finalizers_to_remove` lose the finalizer first
    pods_to_delete: list[str] = field(default_factory=list)
    finalizers_to_remove: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    requeue_after: float | None = None


def created_pod_event(pod_name: str) -> Event:
    """The event recorded once a pod create returns its generated name."""
    return ("Normal", "SuccessfulCreate", f"Created pod: {pod_name}")


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _has_finalizer(pod: dict[str, Any]) -> bool:
    return TRACKING_FINALIZER in (_meta(pod).get("finalizers") or [])


def is_pod_ready(pod: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def is_active(pod: dict[str, Any]) -> bool:
    return _phase(pod) not in ("Succeeded", "Failed") and not _meta(pod).get("deletionTimestamp")


def is_terminating(pod: dict[str, Any]) -> bool:
    return bool(_meta(pod).get("deletionTimestamp")) and _phase(pod) not in ("Succeeded", "Failed")


def completion_index(pod: dict[str, Any]) -> int | None:
    value = (_meta(pod).get("annotations") or {}).get(COMPLETION_INDEX_KEY)
    if value is None or not value.isdigit():
        return None
    return int(value)


# ---- compressed index ranges ("1,3-5") ----


def format_indexes(indexes: set[int] | list[int]) -> str:
    """Kube's compressed form: sorted, runs of three or more as "a-c", a pair as "a,b", others alone."""
    runs: list[list[int]] = []
    for index in sorted(set(indexes)):
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(str(a) if a == b else f"{a},{b}" if b == a + 1 else f"{a}-{b}" for a, b in runs)


def parse_indexes(text: str | None, completions: int) -> set[int]:
    """The indexes in a compressed string, those at or past `completions` dropped, malformed parts skipped."""
    result: set[int] = set()
    for part in (text or "").split(","):
        bounds = part.split("-")
        if not all(b.isdigit() for b in bounds) or len(bounds) not in (1, 2):
            continue
        low, high = int(bounds[0]), int(bounds[-1])
        result.update(range(low, min(high, completions - 1) + 1))
    return result


# ---- pod failure policy ----


def _exit_code_match(status: dict[str, Any], requirement: dict[str, Any]) -> dict[str, Any] | None:
    for statuses in (status.get("containerStatuses") or [], status.get("initContainerStatuses") or []):
        for container in statuses:
            terminated = (container.get("state") or {}).get("terminated")
            if terminated is None:
                continue
            name = requirement.get("containerName")
            code = terminated.get("exitCode", 0)
            if (name is None or name == container.get("name")) and code != 0:
                values = requirement.get("values") or []
                operator = requirement.get("operator")
                if (operator == "In" and code in values) or (operator == "NotIn" and code not in values):
                    return container
    return None


def match_pod_failure_policy(job: dict[str, Any], pod: dict[str, Any]) -> tuple[str | None, bool, str | None]:
    """(FailJob message or None, whether the failure counts towards backoffLimit, the matched action)."""
    policy = (job.get("spec") or {}).get("podFailurePolicy")
    if policy is None:
        return None, True, None
    meta, status = _meta(pod), pod.get("status") or {}
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        message: str | None = None
        if rule.get("onExitCodes") is not None:
            container = _exit_code_match(status, rule["onExitCodes"])
            if container is None:
                continue
            code = container["state"]["terminated"].get("exitCode")
            message = (
                f"Container {container.get('name')} for pod {meta.get('namespace')}/{meta.get('name')} failed with "
                f"exit code {code} matching {action} rule at index {index}"
            )
        elif rule.get("onPodConditions") is not None:
            condition = next(
                (
                    c
                    for c in status.get("conditions") or []
                    for pattern in rule["onPodConditions"]
                    if c.get("type") == pattern.get("type") and c.get("status") == pattern.get("status", "True")
                ),
                None,
            )
            if condition is None:
                continue
            message = (
                f"Pod {meta.get('namespace')}/{meta.get('name')} has condition {condition.get('type')} matching "
                f"{action} rule at index {index}"
            )
        else:
            continue
        if action == "Ignore":
            return None, False, "Ignore"
        if action == "Count":
            return None, True, "Count"
        if action == "FailJob":
            return message, True, "FailJob"
        if action == "FailIndex":
            return None, True, "FailIndex"
    return None, True, None


# ---- backoff ----


def pod_failure_backoff(failures: int) -> float:
    """Seconds to wait after the `failures`-th failure since the last success: 10 s, doubling, at most 10 min."""
    if failures <= 0:
        return 0.0
    delay = POD_FAILURE_BACKOFF
    for _ in range(1, failures):
        delay *= 2
        if delay >= MAX_POD_FAILURE_BACKOFF:
            return MAX_POD_FAILURE_BACKOFF
    return delay


def _finish_time(pod: dict[str, Any]) -> datetime | None:
    status = pod.get("status") or {}
    times = [
        parse_rfc3339(terminated["finishedAt"])
        for container in status.get("containerStatuses") or []
        if (terminated := (container.get("state") or {}).get("terminated")) and terminated.get("finishedAt")
    ]
    if times:
        return max(times)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("lastTransitionTime"):
            return parse_rfc3339(condition["lastTransitionTime"])
    stamp = _meta(pod).get("deletionTimestamp") or _meta(pod).get("creationTimestamp")
    return parse_rfc3339(stamp) if stamp else None


def backoff_remaining(job: dict[str, Any], pods: list[dict[str, Any]], now: datetime) -> float:
    """Seconds before a failed pod may be replaced: from the failures (counted by the pod failure policy)
    that finished after the last success, and when the last of them finished."""
    finished = [
        (when, _phase(pod) == "Succeeded")
        for pod in pods
        if (_phase(pod) == "Succeeded" or (_is_pod_failed(pod, job) and match_pod_failure_policy(job, pod)[1]))
        and (when := _finish_time(pod)) is not None
    ]
    last_success = max((when for when, ok in finished if ok), default=None)
    failures = [when for when, ok in finished if not ok and (last_success is None or when > last_success)]
    if not failures:
        return 0.0
    elapsed = (now - max(failures)).total_seconds()
    delay = pod_failure_backoff(len(failures))
    return 0.0 if delay < elapsed else delay - elapsed


# ---- backoffLimitPerIndex ----


def _count_annotation(pod: dict[str, Any], key: str) -> int:
    value = (_meta(pod).get("annotations") or {}).get(key, "")
    # a missing, garbled or out-of-range count reads as zero, as kube reads it
    return int(value) if value.isdigit() and int(value) <= _MAX_INT32 else 0


@dataclass
class _PerIndex:
    """An Indexed Job's per-index retry state: indexes out of retries, and per index the failed pod kept
    (with its finalizer) until its replacement exists, so that the replacement inherits its failure count."""

    failed_indexes: set[int]
    awaiting_replacement: dict[int, dict[str, Any]]

    def holds(self, pod: dict[str, Any]) -> bool:
        index = completion_index(pod)
        kept = self.awaiting_replacement.get(index) if index is not None else None
        return kept is not None and _meta(kept).get("uid") == _meta(pod).get("uid")


def _index_failed(job: dict[str, Any], pod: dict[str, Any]) -> bool:
    if not _is_pod_failed(pod, job):
        return False
    _, counted, action = match_pod_failure_policy(job, pod)
    if action == "FailIndex":
        return True
    limit = int((job.get("spec") or {}).get("backoffLimitPerIndex") or 0)
    return counted and _count_annotation(pod, INDEX_FAILURE_COUNT_KEY) >= limit


def _absolute_failures(pod: dict[str, Any]) -> int:
    return _count_annotation(pod, INDEX_FAILURE_COUNT_KEY) + _count_annotation(pod, INDEX_IGNORED_FAILURE_COUNT_KEY)


def _per_index_state(
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    active_pods: list[dict[str, Any]],
    succeeded_indexes: set[int],
    completions: int,
) -> _PerIndex:
    def valid(pod: dict[str, Any]) -> int | None:
        index = completion_index(pod)
        return index if _has_finalizer(pod) and index is not None and index < completions else None

    failed = parse_indexes((job.get("status") or {}).get("failedIndexes"), completions)
    failed |= {i for p in pods if (i := valid(p)) is not None and _index_failed(job, p)}
    active_indexes = {i for p in active_pods if (i := completion_index(p)) is not None}
    kept: dict[int, dict[str, Any]] = {}
    for pod in pods:
        index = valid(pod)
        if index is None or not _is_pod_failed(pod, job) or index in succeeded_indexes | failed | active_indexes:
            continue
        last = kept.get(index)
        if last is None or (
            _absolute_failures(last) <= _absolute_failures(pod)
            and (_finish_time(pod) or _EPOCH) >= (_finish_time(last) or _EPOCH)
        ):
            kept[index] = pod
    return _PerIndex(failed, kept)


def _index_backoff_remaining(replaced: dict[str, Any] | None, now: datetime) -> float:
    if replaced is None:
        return 0.0
    finished = _finish_time(replaced)
    if finished is None:
        return 0.0
    delay = pod_failure_backoff(_absolute_failures(replaced) + 1)
    elapsed = (now - finished).total_seconds()
    return 0.0 if delay < elapsed else delay - elapsed


# ---- the sync ----


def _only_replace_failed(job: dict[str, Any]) -> bool:
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def _is_pod_failed(pod: dict[str, Any], job: dict[str, Any]) -> bool:
    if _phase(pod) == "Failed":
        return True
    if _only_replace_failed(job):
        return False
    # a deleted pod that never reached a phase counts as failed, so that orphaned pods are not lost
    return bool(_meta(pod).get("deletionTimestamp")) and _phase(pod) != "Succeeded"


def _condition(type_: str, status: str, reason: str, message: str, now: datetime) -> dict[str, Any]:
    condition: dict[str, Any] = {
        "type": type_,
        "status": status,
        "lastProbeTime": rfc3339(now),
        "lastTransitionTime": rfc3339(now),
    }
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _find(conditions: list[dict[str, Any]], type_: str) -> dict[str, Any] | None:
    return next((c for c in conditions if c.get("type") == type_), None)


def _ensure_condition(
    conditions: list[dict[str, Any]], type_: str, status: str, reason: str, message: str, now: datetime
) -> bool:
    existing = _find(conditions, type_)
    if existing is not None:
        if (existing.get("status"), existing.get("reason", ""), existing.get("message", "")) != (
            status,
            reason,
            message,
        ):
            existing.clear()
            existing.update(_condition(type_, status, reason, message, now))
            return True
        return False
    if status != "False":
        conditions.append(_condition(type_, status, reason, message, now))
        return True
    return False


def is_finished(job: dict[str, Any]) -> bool:
    return any(
        c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or []
    )


def _removal_order(pod: dict[str, Any]) -> tuple[int, int, int, int, str]:
    # kube's ActivePods order, condensed: unscheduled first, pending before running, not ready before ready,
    # more container restarts first, then the newest
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(_phase(pod), 0)
    scheduled = 1 if (pod.get("spec") or {}).get("nodeName") else 0
    restarts = max(
        (int(c.get("restartCount", 0)) for c in (pod.get("status") or {}).get("containerStatuses") or []), default=0
    )
    created = _meta(pod).get("creationTimestamp") or ""
    return (scheduled, phase_rank, 1 if is_pod_ready(pod) else 0, -restarts, _invert(created))


def _invert(text: str) -> str:
    # newer pods go first among equals
    return "".join(chr(0x10FFFF - ord(ch)) for ch in text)


def _pods_for_removal(job: dict[str, Any], active: list[dict[str, Any]], at_least: int) -> list[dict[str, Any]]:
    remove: list[dict[str, Any]] = []
    left = active
    if _indexed(job):
        completions = int((job.get("spec") or {}).get("completions") or 0)
        seen: set[int] = set()
        left = []
        for pod in sorted(active, key=lambda p: (completion_index(p) is None, completion_index(p) or 0)):
            index = completion_index(pod)
            if index is None or index >= completions or index in seen:
                remove.append(pod)
            else:
                seen.add(index)
                left.append(pod)
    if len(remove) < at_least:
        remove.extend(sorted(left, key=_removal_order)[: at_least - len(remove)])
    return remove


def _indexed(job: dict[str, Any]) -> bool:
    return (job.get("spec") or {}).get("completionMode") == "Indexed"


def pod_from_template(job: dict[str, Any], index: int | None, replaced: dict[str, Any] | None = None) -> dict[str, Any]:
    """The pod the Job controller creates: the template, the tracking finalizer, the Job as controller; with
    backoffLimitPerIndex, the failure counts of the index carried on from the pod it `replaced`."""
    meta, spec = _meta(job), job.get("spec") or {}
    template = deep_copy(spec.get("template") or {})
    template_meta = template.get("metadata") or {}
    pod_spec = template.get("spec") or {}
    labels = dict(template_meta.get("labels") or {})
    annotations = dict(template_meta.get("annotations") or {})
    finalizers = list(template_meta.get("finalizers") or [])
    if TRACKING_FINALIZER not in finalizers:
        finalizers.append(TRACKING_FINALIZER)
    name = meta.get("name", "")
    generate_name = f"{name}-"
    if index is not None:
        annotations[COMPLETION_INDEX_KEY] = str(index)
        labels[COMPLETION_INDEX_KEY] = str(index)
        pod_spec["hostname"] = f"{name}-{index}"
        if spec.get("backoffLimitPerIndex") is not None:
            failures = ignored = 0
            if replaced is not None:
                failures = _count_annotation(replaced, INDEX_FAILURE_COUNT_KEY)
                ignored = _count_annotation(replaced, INDEX_IGNORED_FAILURE_COUNT_KEY)
                if match_pod_failure_policy(job, replaced)[1]:
                    failures += 1
                else:
                    ignored += 1
            annotations[INDEX_FAILURE_COUNT_KEY] = str(failures)
            if ignored:
                annotations[INDEX_IGNORED_FAILURE_COUNT_KEY] = str(ignored)
        suffix = f"-{index}-"
        generate_name = f"{name}{suffix}"
        if len(generate_name) > _MAX_GENERATED_NAME_PREFIX:
            generate_name = name[: _MAX_GENERATED_NAME_PREFIX - len(suffix)] + suffix
        for key in ("initContainers", "containers"):
            for container in pod_spec.get(key) or []:
                env = container.setdefault("env", [])
                if not any(var.get("name") == COMPLETION_INDEX_ENV for var in env):
                    env.append(
                        {
                            "name": COMPLETION_INDEX_ENV,
                            "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{COMPLETION_INDEX_KEY}']"}},
                        }
                    )
    pod_meta: dict[str, Any] = {
        "generateName": generate_name,
        "namespace": meta.get("namespace"),
        "finalizers": finalizers,
    }
    if labels:
        pod_meta["labels"] = labels
    if annotations:
        pod_meta["annotations"] = annotations
    pod_meta["ownerReferences"] = [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": name,
            "uid": meta.get("uid"),
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": pod_spec}


def _past_backoff_on_failure(job: dict[str, Any], pods: list[dict[str, Any]], limit: int) -> bool:
    template_spec = ((job.get("spec") or {}).get("template") or {}).get("spec") or {}
    if template_spec.get("restartPolicy") != "OnFailure":
        return False
    restarts = sum(
        container.get("restartCount", 0)
        for pod in pods
        if _phase(pod) in ("Running", "Pending")
        for key in ("initContainerStatuses", "containerStatuses")
        for container in (pod.get("status") or {}).get(key) or []
    )
    return restarts > 0 if limit == 0 else restarts >= limit


def sync_job(job: dict[str, Any], pods: list[dict[str, Any]], now: datetime) -> JobSync:
    """One sync of `job`; `pods` are the pods whose controlling owner it is."""
    meta, spec = _meta(job), job.get("spec") or {}
    status = deep_copy(job.get("status") or {})
    result = JobSync(status=status)
    if is_finished(job):
        # finished: only stragglers' finalizers remain to go (kube's orphan-pod cleanup)
        result.finalizers_to_remove = [_meta(p)["name"] for p in pods if _has_finalizer(p)]
        return result

    indexed = _indexed(job)
    completions: int | None = spec.get("completions")
    per_index_limit = indexed and spec.get("backoffLimitPerIndex") is not None
    backoff_limit = int(spec.get("backoffLimit", _MAX_INT32 if per_index_limit else DEFAULT_BACKOFF_LIMIT))
    suspended = bool(spec.get("suspend"))
    uncounted = status.get("uncountedTerminatedPods") or {}
    uncounted_succeeded = set(uncounted.get("succeeded") or [])
    uncounted_failed = set(uncounted.get("failed") or [])
    conditions: list[dict[str, Any]] = status.setdefault("conditions", [])

    active_pods = [p for p in pods if is_active(p)]
    terminating = sum(1 for p in pods if is_terminating(p))
    ready = sum(1 for p in active_pods if is_pod_ready(p))
    active = len(active_pods)

    def valid_index(pod: dict[str, Any]) -> bool:
        index = completion_index(pod)
        return not indexed or (index is not None and index < int(completions or 0))

    def countable(pod: dict[str, Any], seen: set[str]) -> bool:
        return _has_finalizer(pod) and _meta(pod).get("uid") not in seen and valid_index(pod)

    new_succeeded = [p for p in pods if countable(p, uncounted_succeeded) and _phase(p) == "Succeeded"]
    new_failed = [p for p in pods if countable(p, uncounted_failed) and _is_pod_failed(p, job)]
    succeeded = int(status.get("succeeded", 0)) + len(new_succeeded) + len(uncounted_succeeded)
    failed = (
        int(status.get("failed", 0))
        + sum(1 for p in new_failed if match_pod_failure_policy(job, p)[1])
        + len(uncounted_failed)
    )

    if status.get("startTime") is None and not suspended:
        status["startTime"] = rfc3339(now)

    finished: dict[str, Any] | None = None
    criteria_met = _find(conditions, "SuccessCriteriaMet")
    if criteria_met is not None and criteria_met.get("status") == "True":
        finished = criteria_met
    else:
        target = _find(conditions, "FailureTarget")
        if target is not None and target.get("status") == "True":
            finished = _condition("Failed", "True", target.get("reason", ""), target.get("message", ""), now)
        else:
            message = next(
                (m for p in pods if _is_pod_failed(p, job) and (m := match_pod_failure_policy(job, p)[0]) is not None),
                None,
            )
            if message is not None:
                finished = _condition("FailureTarget", "True", "PodFailurePolicy", message, now)
    deadline = spec.get("activeDeadlineSeconds")
    if finished is None:
        started = parse_rfc3339(status["startTime"]) if status.get("startTime") else None
        if failed > backoff_limit or _past_backoff_on_failure(job, pods, backoff_limit):
            finished = _condition(
                "FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit", now
            )
        elif deadline is not None and started is not None and not suspended:
            remaining = deadline - (now - started).total_seconds()
            if remaining <= 0:
                finished = _condition(
                    "FailureTarget", "True", "DeadlineExceeded", "Job was active longer than specified deadline", now
                )
            else:
                result.requeue_after = remaining

    succeeded_indexes: set[int] = set()
    if indexed:
        succeeded_indexes = parse_indexes(status.get("completedIndexes"), int(completions or 0))
        # a succeeded pod without the finalizer is already in completedIndexes (or was never the Job's to count)
        succeeded_indexes |= {
            index
            for p in pods
            if _phase(p) == "Succeeded"
            and _has_finalizer(p)
            and valid_index(p)
            and (index := completion_index(p)) is not None
        }
        succeeded = len(succeeded_indexes)
    per_index: _PerIndex | None = None
    if per_index_limit:
        per_index = _per_index_state(job, pods, active_pods, succeeded_indexes, int(completions or 0))
        failed_count = len(per_index.failed_indexes)
        max_failed = spec.get("maxFailedIndexes")
        if finished is not None:
            pass
        elif max_failed is not None and failed_count > int(max_failed):
            finished = _condition(
                "FailureTarget",
                "True",
                "MaxFailedIndexesExceeded",
                "Job has exceeded the specified maximal number of failed indexes",
                now,
            )
        elif failed_count > 0 and failed_count + len(succeeded_indexes) >= int(completions or 0):
            finished = _condition("FailureTarget", "True", "FailedIndexes", "Job has failed indexes", now)

    deleted_with_finalizer: set[str] = set()
    if finished is not None:
        # a failing Job's active pods are deleted; their finalizers go below, once they count as failed
        result.pods_to_delete = [_meta(p)["name"] for p in active_pods]
        result.events.extend(("Normal", "SuccessfulDelete", f"Deleted pod: {_meta(p)['name']}") for p in active_pods)
        terminating += active
        ready = 0
        active = 0
    else:
        # a Job being deleted is only counted: no pods are made or removed for it
        managed = not meta.get("deletionTimestamp")
        if managed:
            active, ready, terminating = _manage(
                job, pods, active_pods, now, succeeded, succeeded_indexes, terminating, ready, per_index, result
            )
        deleted_with_finalizer = set(result.finalizers_to_remove)
        complete = (
            (succeeded > 0 and active == 0) if completions is None else (succeeded >= completions and active == 0)
        )
        if complete:
            finished = _condition(
                "SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods", now
            )
        elif not managed:
            pass
        elif suspended:
            if _ensure_condition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", now):
                result.update_status = True
                result.events.append(("Normal", "Suspended", "Job suspended"))
        elif _ensure_condition(conditions, "Suspended", "False", "JobResumed", "Job resumed", now):
            result.update_status = True
            result.events.append(("Normal", "Resumed", "Job resumed"))
            # activeDeadlineSeconds counts time continuously active: a resumed Job starts its clock again
            status["startTime"] = rfc3339(now)

    if active != status.get("active", 0) or ready != status.get("ready") or terminating != status.get("terminating"):
        result.update_status = True
    status["active"], status["ready"], status["terminating"] = active, ready, terminating
    _track(job, pods, now, finished, succeeded_indexes, terminating, deleted_with_finalizer, per_index, result)
    _omit_empty(status)
    if result.status_before_finalizers is not None:
        _omit_empty(result.status_before_finalizers)
    return result


def _omit_empty(status: dict[str, Any]) -> None:
    # the wire form: JobStatus's int32 counters, completedIndexes and conditions are omitempty
    for key in ("active", "succeeded", "failed", "completedIndexes", "conditions"):
        if key in status and not status[key]:
            del status[key]


def _manage(
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    active_pods: list[dict[str, Any]],
    now: datetime,
    succeeded: int,
    succeeded_indexes: set[int],
    terminating: int,
    ready: int,
    per_index: _PerIndex | None,
    result: JobSync,
) -> tuple[int, int, int]:
    """kube's manageJob: delete or create pods towards the wanted number of active ones."""
    spec = job.get("spec") or {}
    active = len(active_pods)
    parallelism = int(spec.get("parallelism", 1))
    completions: int | None = spec.get("completions")

    def delete(chosen: list[dict[str, Any]]) -> tuple[int, int, int]:
        for pod in chosen:
            name = _meta(pod)["name"]
            result.pods_to_delete.append(name)
            if _has_finalizer(pod):
                result.finalizers_to_remove.append(name)
            result.events.append(("Normal", "SuccessfulDelete", f"Deleted pod: {name}"))
        removed_ready = sum(1 for pod in chosen if is_pod_ready(pod))
        return active - len(chosen), ready - removed_ready, terminating + len(chosen)

    if spec.get("suspend"):
        return delete(_pods_for_removal(job, active_pods, active))
    if completions is None:
        want = active if succeeded > 0 else parallelism
    else:
        want = max(min(completions - succeeded, parallelism), 0)
    chosen = _pods_for_removal(job, active_pods, max(active - want, 0))[:MAX_POD_CREATE_DELETE_PER_SYNC]
    if chosen:
        return delete(chosen)
    replacing = terminating if _only_replace_failed(job) else 0
    missing = min(want - replacing - active, MAX_POD_CREATE_DELETE_PER_SYNC)
    if missing <= 0:
        return active, ready, terminating
    # with backoffLimitPerIndex each index backs off on its own, below
    remaining = 0.0 if per_index is not None else backoff_remaining(job, pods, now)
    if remaining > 0:
        result.requeue_after = remaining if result.requeue_after is None else min(result.requeue_after, remaining)
        return active, ready, terminating
    if _indexed(job):
        taken = set(succeeded_indexes) | {i for p in active_pods if (i := completion_index(p)) is not None}
        if _only_replace_failed(job):
            taken |= {i for p in pods if is_terminating(p) and (i := completion_index(p)) is not None}
        if per_index is not None:
            taken |= per_index.failed_indexes
        free = [i for i in range(int(completions or 0)) if i not in taken][:missing]
        replaced: dict[int, dict[str, Any]] = per_index.awaiting_replacement if per_index is not None else {}
        waits = {i: _index_backoff_remaining(replaced.get(i), now) for i in free}
        ready_now = [i for i in free if waits[i] <= 0]
        if not ready_now and waits:
            result.requeue_after = min(waits.values())
            return active, ready, terminating
        result.pods_to_create = [pod_from_template(job, index, replaced.get(index)) for index in ready_now]
    else:
        result.pods_to_create = [pod_from_template(job, None) for _ in range(missing)]
    return active + len(result.pods_to_create), ready, terminating


def _track(
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    now: datetime,
    finished: dict[str, Any] | None,
    succeeded_indexes: set[int],
    terminating: int,
    deleted_with_finalizer: set[str],
    per_index: _PerIndex | None,
    result: JobSync,
) -> None:
    """kube's trackJobStatusAndRemoveFinalizers, with every finalizer removal assumed to succeed."""
    status = result.status
    spec = job.get("spec") or {}
    indexed = _indexed(job)
    completions = int(spec.get("completions") or 0)
    uncounted = status.get("uncountedTerminatedPods") or {}
    uncounted_succeeded = list(uncounted.get("succeeded") or [])
    uncounted_failed = list(uncounted.get("failed") or [])
    needs_flush = False
    prev_indexes = parse_indexes(status.get("completedIndexes"), completions) if indexed else set()
    new_indexes: set[int] = set()
    remove: list[str] = []
    terminal_failure = finished is not None and finished.get("type") != "SuccessCriteriaMet"
    ordered = sorted(pods, key=lambda p: completion_index(p) or 0) if indexed else pods
    for pod in ordered:
        if not _has_finalizer(pod):
            continue
        name, uid = _meta(pod)["name"], _meta(pod).get("uid")
        pod_failed = _is_pod_failed(pod, job)
        if not (meta_deleting(job) or finished is not None or _phase(pod) == "Succeeded"):
            if not pod_failed or (per_index is not None and per_index.holds(pod)):
                continue
        remove.append(name)
        if _phase(pod) == "Succeeded" and uid not in uncounted_failed:
            if indexed:
                index = completion_index(pod)
                if index is not None and index < completions and index not in prev_indexes:
                    new_indexes.add(index)
                    needs_flush = True
            elif uid not in uncounted_succeeded:
                uncounted_succeeded.append(uid)
                needs_flush = True
        elif pod_failed or terminal_failure:
            index = completion_index(pod)
            if uid not in uncounted_failed and (not indexed or (index is not None and index < completions)):
                if match_pod_failure_policy(job, pod)[1]:
                    uncounted_failed.append(uid)
                    needs_flush = True
    conditions: list[dict[str, Any]] = status.setdefault("conditions", [])
    if indexed:
        text = format_indexes(succeeded_indexes | new_indexes)
        if text != status.get("completedIndexes", ""):
            needs_flush = True
        status["completedIndexes"] = text
        status["succeeded"] = len(succeeded_indexes | new_indexes)
        if per_index is not None:
            failed_text = format_indexes(per_index.failed_indexes)
            if failed_text != status.get("failedIndexes"):
                needs_flush = True
            status["failedIndexes"] = failed_text
    terminal: dict[str, Any] | None = finished
    if finished is not None and finished.get("type") == "FailureTarget":
        conditions.append(finished)
        needs_flush = True
        terminal = _condition("Failed", "True", finished.get("reason", ""), finished.get("message", ""), now)
    elif finished is not None and finished.get("type") == "SuccessCriteriaMet":
        if _find(conditions, "SuccessCriteriaMet") is None:
            conditions.append(finished)
            needs_flush = True
        terminal = _condition("Complete", "True", finished.get("reason", ""), finished.get("message", ""), now)
    status["uncountedTerminatedPods"] = _uncounted(uncounted_succeeded, uncounted_failed)
    if needs_flush or result.update_status:
        result.status_before_finalizers = deep_copy(status)
    # after the removals: every uid whose finalizer went is counted
    removed_uids = {_meta(p).get("uid") for p in pods if _meta(p)["name"] in remove}
    still_succeeded = [u for u in uncounted_succeeded if u not in removed_uids]
    still_failed = [u for u in uncounted_failed if u not in removed_uids]
    if not indexed:
        status["succeeded"] = int(status.get("succeeded", 0)) + len(uncounted_succeeded) - len(still_succeeded)
    else:
        status.setdefault("succeeded", 0)
    status["failed"] = int(status.get("failed", 0)) + len(uncounted_failed) - len(still_failed)
    status["uncountedTerminatedPods"] = _uncounted(still_succeeded, still_failed)
    result.finalizers_to_remove = list(dict.fromkeys([*deleted_with_finalizer, *remove]))
    if still_succeeded != uncounted_succeeded or still_failed != uncounted_failed or needs_flush:
        result.update_status = True
    if terminal is not None and not still_succeeded and not still_failed and terminating == 0:
        _ensure_condition(
            conditions, terminal["type"], "True", terminal.get("reason", ""), terminal.get("message", ""), now
        )
        if terminal["type"] == "Complete":
            status["completionTime"] = rfc3339(now)
            if spec.get("completions") is not None and status["succeeded"] > spec["completions"]:
                result.events.append(
                    (
                        "Warning",
                        "TooManySucceededPods",
                        "Too many succeeded pods running after completion count reached",
                    )
                )
            result.events.append(("Normal", "Completed", "Job completed"))
        else:
            result.events.append(("Warning", terminal.get("reason", ""), terminal.get("message", "")))
        result.update_status = True
    if result.status_before_finalizers is not None and not remove:
        # nothing to remove: the two writes are one
        result.status_before_finalizers = None


def meta_deleting(job: dict[str, Any]) -> bool:
    return bool(_meta(job).get("deletionTimestamp"))


def _uncounted(succeeded: list[str], failed: list[str]) -> dict[str, Any]:
    uncounted: dict[str, Any] = {}
    if succeeded:
        uncounted["succeeded"] = succeeded
    if failed:
        uncounted["failed"] = failed
    return uncounted


# ---- ttlSecondsAfterFinished ----


def finish_time(job: dict[str, Any]) -> datetime | None:
    """When the Job finished: its Complete or Failed condition's lastTransitionTime."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            stamp = condition.get("lastTransitionTime")
            return parse_rfc3339(stamp) if stamp else None
    return None


def ttl_expiry(job: dict[str, Any], now: datetime) -> tuple[bool, float | None]:
    """The TTL-after-finished controller's decision: (delete now, or seconds until it is due). A Job without
    ttlSecondsAfterFinished, unfinished, or already being deleted is left alone: (False, None). The deletion
    is Foreground, with the Job's uid as precondition."""
    ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
    if ttl is None or _meta(job).get("deletionTimestamp") or not is_finished(job):
        return False, None
    finished_at = finish_time(job)
    if finished_at is None:
        return False, None
    remaining = (finished_at + timedelta(seconds=int(ttl)) - now).total_seconds()
    if remaining <= 0:
        return True, None
    return False, remaining


__all__ = ["JobSync", "sync_job", "ttl_expiry"]
