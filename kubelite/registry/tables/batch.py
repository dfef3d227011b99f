"""Tables of the batch/v1 kinds: jobs (Status, Completions, Duration) and cron jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.duration import between, since
from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import (
    TableSpec,
    age,
    age_col,
    col,
    containers_col,
    dig,
    images_col,
    integer,
    items,
    name_col,
    name_of,
    text,
)
from kubelite.registry.tables.format import container_cells, format_label_selector, template_containers


def _has_condition(job: Obj, kind: str) -> bool:
    """`hasJobCondition`: the first condition of that type decides."""
    for condition in items(job, "status", "conditions"):
        if text(condition, "type") == kind:
            return text(condition, "status") == "True"
    return False


def job_status(job: Obj) -> str:
    if _has_condition(job, "Complete"):
        return "Complete"
    if _has_condition(job, "Failed"):
        return "Failed"
    if dig(job, "metadata", "deletionTimestamp") is not None:
        return "Terminating"
    if _has_condition(job, "Suspended"):
        return "Suspended"
    if _has_condition(job, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions(job: Obj) -> str:
    succeeded = integer(job, "status", "succeeded")
    completions = dig(job, "spec", "completions")
    parallelism = dig(job, "spec", "parallelism")
    if completions is None and parallelism is None:
        # v1 defaulting makes a job with neither a single-pod job
        completions = 1
    if isinstance(completions, int):
        return f"{succeeded}/{completions}"
    if isinstance(parallelism, int) and parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def job_duration(job: Obj, now: datetime) -> str:
    start = text(job, "status", "startTime")
    if not start:
        return ""
    completion = text(job, "status", "completionTime")
    return between(start, completion) if completion else since(start, now)


def _job_row(job: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(job, "spec"))
    return [
        name_of(job),
        job_status(job),
        job_completions(job),
        job_duration(job, now),
        age(job, now),
        names,
        images,
        format_label_selector(dig(job, "spec", "selector")),
    ]


JOB_TABLE = TableSpec(
    [
        name_col(),
        col("Status", "string", "Status of the job."),
        col("Completions", "string", d.JOB_SUCCEEDED),
        col("Duration", "string", "Time required to complete the job."),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.JOB_SELECTOR, 1),
    ],
    _job_row,
)


def _bool_cell(value: Any) -> str:
    """`printBoolPtr`: `True`, `False`, or `<unset>`."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return "<unset>"


def _cron_job_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec", "jobTemplate", "spec"))
    last_schedule = text(obj, "status", "lastScheduleTime")
    time_zone = dig(obj, "spec", "timeZone")
    return [
        name_of(obj),
        text(obj, "spec", "schedule"),
        time_zone if isinstance(time_zone, str) else "<none>",
        # v1 defaulting sets suspend to false
        _bool_cell(dig(obj, "spec", "suspend") or False),
        len(items(obj, "status", "active")),
        since(last_schedule, now) if last_schedule else "<none>",
        age(obj, now),
        names,
        images,
        format_label_selector(dig(obj, "spec", "jobTemplate", "spec", "selector")),
    ]


CRON_JOB_TABLE = TableSpec(
    [
        name_col(),
        col("Schedule", "string", d.CRONJOB_SCHEDULE),
        col("Timezone", "string", d.CRONJOB_TIME_ZONE),
        col("Suspend", "boolean", d.CRONJOB_SUSPEND),
        col("Active", "integer", d.CRONJOB_ACTIVE),
        col("Last Schedule", "string", d.CRONJOB_LAST_SCHEDULE),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.JOB_SELECTOR, 1),
    ],
    _cron_job_row,
)
