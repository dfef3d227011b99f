"""What one sync of kube-controller-manager's CronJob controller does, as data: `sync_cronjob(cronjob, jobs, now)`.

Given a CronJob, the Jobs it controls (as the API has them) and the clock's reading, the answer says which Job
to create (named `<cronjob>-<scheduled time in minutes since the epoch>`, so that a retried sync can never
create the same run twice), which Jobs to delete (Replace, and the history limits), the status to write, the
events to record with kube's reasons and texts, and when to sync again (the next start time plus kube's
100 ms of slack). The reconcile loop carries it out; after creating the Job it adds the created object's
reference with `with_created_job`, as kube adds the reference from the create's reply.

The order is kube's syncCronJob then cleanupFinishedJobs: finished Jobs leave `status.active`, missing ones
too; a CronJob being deleted, with an unknown zone, suspended or with a bad schedule starts nothing; then the
most recent unmet start time, the starting deadline, the concurrency policy, and the create.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from kubelite.apimachinery.meta import deep_copy, parse_rfc3339, rfc3339
from kubelite.util.cron import (
    CronError,
    InvalidSchedule,
    Schedule,
    UnknownTimeZone,
    load_location,
    most_recent_schedule_time,
    schedule_for,
)

SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
#: slack added to every requeue, so that a clock a little behind still finds the start time due
NEXT_SCHEDULE_DELTA = 0.1

Event = tuple[str, str, str]


@dataclass
class CronJobSync:
    """What a sync decided. `status` is the whole new status; write it when `update_status`."""

    status: dict[str, Any]
    update_status: bool = False
    job_to_create: dict[str, Any] | None = None
    #: (namespace, name, uid) of Jobs to delete with propagationPolicy Background, in order
    jobs_to_delete: list[tuple[str, str, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    #: seconds until the next sync, or None when only a change to the CronJob should wake it
    requeue_after: float | None = None


def finished_condition(job: dict[str, Any]) -> str | None:
    """ "Complete" or "Failed" when the Job has that condition True, else None."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return None


def job_reference(job: dict[str, Any]) -> dict[str, Any]:
    """The ObjectReference status.active holds (client-go's reference.GetReference)."""
    meta = job.get("metadata") or {}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
        "resourceVersion": meta.get("resourceVersion"),
        "uid": meta.get("uid"),
    }


def with_created_job(status: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
    """The status after the create: the new Job's reference appended to status.active."""
    updated = deep_copy(status)
    updated["active"] = [*(updated.get("active") or []), job_reference(created)]
    return updated


def job_name(cronjob_name: str, scheduled: datetime) -> str:
    return f"{cronjob_name}-{int(scheduled.timestamp()) // 60}"


def _go_rfc3339(when: datetime) -> str:
    text = when.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def job_from_template(cronjob: dict[str, Any], scheduled: datetime) -> dict[str, Any]:
    """The Job kube's getJobFromTemplate2 builds: the template's labels and annotations, the scheduled time
    (in the CronJob's zone) as an annotation, the CronJob as controlling owner, the template's spec."""
    meta = cronjob.get("metadata") or {}
    spec = cronjob.get("spec") or {}
    template = spec.get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    zone = load_location(spec.get("timeZone") or "")
    annotations = dict(template_meta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = _go_rfc3339(scheduled.astimezone(zone))
    job_meta: dict[str, Any] = {
        "name": job_name(meta.get("name", ""), scheduled),
        "namespace": meta.get("namespace"),
        "labels": dict(template_meta.get("labels") or {}),
        "annotations": annotations,
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "name": meta.get("name"),
                "uid": meta.get("uid"),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": job_meta,
        "spec": deep_copy(template.get("spec") or {}),
    }


def _time(value: str | None) -> datetime | None:
    return parse_rfc3339(value) if value else None


def _earliest(cronjob: dict[str, Any], status: dict[str, Any]) -> datetime:
    last = _time(status.get("lastScheduleTime"))
    if last is not None:
        return last
    created = _time((cronjob.get("metadata") or {}).get("creationTimestamp"))
    return created or datetime.fromtimestamp(0, UTC)


def next_schedule_delay(
    cronjob: dict[str, Any], status: dict[str, Any], now: datetime, schedule: Schedule
) -> float | None:
    """Seconds until the next start time after the most recent one (kube's nextScheduleTimeDuration); None
    when the schedule never fires again."""
    base: datetime
    try:
        missed = most_recent_schedule_time(schedule, _earliest(cronjob, status), now)
    except InvalidSchedule:
        base = now
    else:
        if missed.most_recent is not None:
            base = missed.most_recent
        else:
            base = missed.earliest if missed.missed == "none" else now
    upcoming = schedule.next_after(base)
    if upcoming is None:
        return None
    return (upcoming - now).total_seconds() + NEXT_SCHEDULE_DELTA


def _rfc1123z(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")


def _sync(cronjob: dict[str, Any], jobs: list[dict[str, Any]], now: datetime, result: CronJobSync) -> None:
    meta = cronjob.get("metadata") or {}
    spec = cronjob.get("spec") or {}
    status = result.status
    status.setdefault("active", [])
    by_uid = {(job.get("metadata") or {}).get("uid"): job for job in jobs}

    for job in jobs:
        job_meta = job.get("metadata") or {}
        uid = job_meta.get("uid")
        in_active = any(ref.get("uid") == uid for ref in status["active"])
        finished = finished_condition(job)
        if not in_active and finished is None:
            result.events.append(
                (
                    "Warning",
                    "UnexpectedJob",
                    f"Saw a job that the controller did not create or forgot: {job_meta.get('name')}",
                )
            )
        elif finished is not None:
            if in_active:
                status["active"] = [ref for ref in status["active"] if ref.get("uid") != uid]
                result.events.append(
                    ("Normal", "SawCompletedJob", f"Saw completed job: {job_meta.get('name')}, condition: {finished}")
                )
                result.update_status = True
            completion = (job.get("status") or {}).get("completionTime")
            if finished == "Complete":
                last = status.get("lastSuccessfulTime")
                if completion is not None and (last is None or parse_rfc3339(completion) > parse_rfc3339(last)):
                    status["lastSuccessfulTime"] = completion
                    result.update_status = True

    for ref in list(status["active"]):
        if ref.get("uid") not in by_uid:
            result.events.append(("Normal", "MissingJob", f"Active job went missing: {ref.get('name')}"))
            status["active"] = [kept for kept in status["active"] if kept.get("uid") != ref.get("uid")]
            result.update_status = True

    if meta.get("deletionTimestamp"):
        return
    time_zone = spec.get("timeZone")
    if time_zone is not None:
        try:
            load_location(time_zone)
        except UnknownTimeZone as error:
            result.events.append(("Warning", "UnknownTimeZone", f'invalid timeZone: "{time_zone}": {error}'))
            return
    if spec.get("suspend"):
        return
    schedule_text = spec.get("schedule") or ""
    if "TZ" in schedule_text:
        result.events.append(
            (
                "Warning",
                "UnsupportedSchedule",
                f'CRON_TZ or TZ used in schedule "{schedule_text}" is not officially supported, see '
                "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
            )
        )
    try:
        schedule = schedule_for(schedule_text, time_zone)
    except CronError as error:
        result.events.append(("Warning", "UnparseableSchedule", f'unparseable schedule: "{schedule_text}" : {error}'))
        return

    deadline = spec.get("startingDeadlineSeconds")
    try:
        missed = most_recent_schedule_time(schedule, _earliest(cronjob, status), now, deadline)
    except InvalidSchedule as error:
        result.events.append(("Warning", "InvalidSchedule", f"invalid schedule: {schedule_text} : {error}"))
        return
    scheduled = missed.most_recent
    if scheduled is not None and missed.missed == "many":
        result.events.append(
            (
                "Warning",
                "TooManyMissedTimes",
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
            )
        )

    def requeue() -> None:
        result.requeue_after = next_schedule_delay(cronjob, status, now, schedule)

    if scheduled is None:
        requeue()
        return
    if deadline is not None and scheduled + timedelta(seconds=deadline) < now:
        result.events.append(
            ("Warning", "MissSchedule", f"Missed scheduled time to start a job: {_rfc1123z(scheduled)}")
        )
        requeue()
        return
    name = job_name(meta.get("name", ""), scheduled)
    last = _time(status.get("lastScheduleTime"))
    if any(ref.get("name") == name and ref.get("namespace") == meta.get("namespace") for ref in status["active"]) or (
        last is not None and last == scheduled
    ):
        requeue()
        return
    policy = spec.get("concurrencyPolicy") or "Allow"
    if policy == "Forbid" and status["active"]:
        result.events.append(
            (
                "Normal",
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid",
            )
        )
        requeue()
        return
    if policy == "Replace":
        for ref in list(status["active"]):
            result.jobs_to_delete.append((str(ref.get("namespace")), str(ref.get("name")), str(ref.get("uid"))))
            status["active"] = [kept for kept in status["active"] if kept.get("uid") != ref.get("uid")]
            result.events.append(("Normal", "SuccessfulDelete", f"Deleted job {ref.get('name')}"))
            result.update_status = True

    result.job_to_create = job_from_template(cronjob, scheduled)
    result.events.append(("Normal", "SuccessfulCreate", f"Created job {name}"))
    status["lastScheduleTime"] = rfc3339(scheduled)
    result.update_status = True
    requeue()


def _start_time_key(job: dict[str, Any]) -> tuple[int, datetime, str]:
    started = _time((job.get("status") or {}).get("startTime"))
    name = (job.get("metadata") or {}).get("name") or ""
    return (0, started, name) if started is not None else (1, datetime.min.replace(tzinfo=UTC), name)


def _cleanup_finished(cronjob: dict[str, Any], jobs: list[dict[str, Any]], result: CronJobSync) -> None:
    spec = cronjob.get("spec") or {}
    for kind, limit in (
        ("Complete", spec.get("successfulJobsHistoryLimit")),
        ("Failed", spec.get("failedJobsHistoryLimit")),
    ):
        if limit is None:
            continue
        finished = sorted((job for job in jobs if finished_condition(job) == kind), key=_start_time_key)
        for job in finished[: max(len(finished) - int(limit), 0)]:
            job_meta = job.get("metadata") or {}
            result.jobs_to_delete.append(
                (str(job_meta.get("namespace")), str(job_meta.get("name")), str(job_meta.get("uid")))
            )
            result.status["active"] = [
                ref for ref in result.status.get("active") or [] if ref.get("uid") != job_meta.get("uid")
            ]
            result.events.append(("Normal", "SuccessfulDelete", f"Deleted job {job_meta.get('name')}"))
            result.update_status = True


def sync_cronjob(cronjob: dict[str, Any], jobs: list[dict[str, Any]], now: datetime) -> CronJobSync:
    """One sync of `cronjob`; `jobs` are the Jobs whose controlling owner it is."""
    result = CronJobSync(status=deep_copy(cronjob.get("status") or {}))
    _sync(cronjob, jobs, now, result)
    _cleanup_finished(cronjob, jobs, result)
    return result
