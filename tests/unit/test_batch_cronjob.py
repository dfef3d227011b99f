"""One CronJob sync as data: starting a Job on time, the starting deadline, each concurrency policy, suspend,
history limits, status and events with kube's texts, and the next requeue."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from kubelite.controllers.batch.cronjob import (
    SCHEDULED_TIMESTAMP_ANNOTATION,
    job_reference,
    sync_cronjob,
    with_created_job,
)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def cronjob(**spec: Any) -> dict[str, Any]:
    status = spec.pop("status", {})
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {
            "name": "nightly",
            "namespace": "ops",
            "uid": "cj-uid",
            "creationTimestamp": "2026-01-01T09:58:00Z",
        },
        "spec": {
            "schedule": "*/5 * * * *",
            "concurrencyPolicy": "Allow",
            "jobTemplate": {
                "metadata": {"labels": {"app": "report"}, "annotations": {"team": "ops"}},
                "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
            },
            **spec,
        },
        "status": status,
    }


def job(
    name: str, uid: str, *, finished: str | None = None, start: str | None = None, done: str | None = None
) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if finished:
        status["conditions"] = [{"type": finished, "status": "True"}]
    if start:
        status["startTime"] = start
    if done:
        status["completionTime"] = done
    return {"metadata": {"name": name, "namespace": "ops", "uid": uid}, "status": status}


def ref(name: str, uid: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": name,
        "namespace": "ops",
        "resourceVersion": None,
        "uid": uid,
    }


def test_a_due_start_time_creates_the_job() -> None:
    result = sync_cronjob(cronjob(), [], at("2026-01-01T10:00:03+00:00"))
    assert result.job_to_create == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "nightly-29454360",
            "namespace": "ops",
            "labels": {"app": "report"},
            "annotations": {"team": "ops", SCHEDULED_TIMESTAMP_ANNOTATION: "2026-01-01T10:00:00Z"},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "name": "nightly",
                    "uid": "cj-uid",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
    }
    assert result.events == [("Normal", "SuccessfulCreate", "Created job nightly-29454360")]
    assert result.status == {"active": [], "lastScheduleTime": "2026-01-01T10:00:00Z"}
    assert result.update_status
    assert result.requeue_after == pytest.approx(297.1)
    created = {"metadata": {"name": "nightly-29454360", "namespace": "ops", "uid": "j1", "resourceVersion": "7"}}
    assert with_created_job(result.status, created)["active"] == [job_reference(created)]


def test_the_scheduled_timestamp_is_written_in_the_time_zone() -> None:
    result = sync_cronjob(cronjob(schedule="0 11 * * *", timeZone="Europe/Paris"), [], at("2026-01-01T10:00:01+00:00"))
    assert result.job_to_create is not None
    assert (
        result.job_to_create["metadata"]["annotations"][SCHEDULED_TIMESTAMP_ANNOTATION] == "2026-01-01T11:00:00+01:00"
    )
    assert result.job_to_create["metadata"]["name"] == "nightly-29454360"


def test_nothing_is_due_before_the_first_start_time() -> None:
    result = sync_cronjob(cronjob(), [], at("2026-01-01T09:59:00+00:00"))
    assert (result.job_to_create, result.events, result.update_status) == (None, [], False)
    assert result.requeue_after == pytest.approx(60.1)


def test_an_already_processed_start_time_is_not_run_again() -> None:
    status = {"lastScheduleTime": "2026-01-01T10:00:00Z"}
    result = sync_cronjob(cronjob(status=status), [], at("2026-01-01T10:01:00+00:00"))
    assert result.job_to_create is None
    assert result.requeue_after == pytest.approx(240.1)


def test_a_start_time_past_the_starting_deadline_is_not_started() -> None:
    # kube looks for start times only after now minus the deadline, so a late one is passed over in silence
    # (its MissSchedule event cannot fire: a start time found that way is never past the deadline)
    in_time = sync_cronjob(cronjob(startingDeadlineSeconds=60), [], at("2026-01-01T10:00:59+00:00"))
    assert in_time.job_to_create is not None
    too_late = sync_cronjob(cronjob(startingDeadlineSeconds=60), [], at("2026-01-01T10:01:01+00:00"))
    assert (too_late.job_to_create, too_late.events, too_late.update_status) == (None, [], False)
    assert too_late.requeue_after == pytest.approx(239.1)


def test_too_many_missed_start_times_warn_and_start_the_latest() -> None:
    result = sync_cronjob(cronjob(schedule="* * * * *"), [], at("2026-01-02T10:00:30+00:00"))
    assert result.events == [
        (
            "Warning",
            "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        ),
        ("Normal", "SuccessfulCreate", "Created job nightly-29455800"),
    ]


def test_forbid_waits_for_the_active_job() -> None:
    status = {"active": [ref("nightly-29454355", "j0")], "lastScheduleTime": "2026-01-01T09:55:00Z"}
    result = sync_cronjob(
        cronjob(concurrencyPolicy="Forbid", status=status),
        [job("nightly-29454355", "j0")],
        at("2026-01-01T10:00:01+00:00"),
    )
    assert result.job_to_create is None
    assert result.events == [
        (
            "Normal",
            "JobAlreadyActive",
            "Not starting job because prior execution is running and concurrency policy is Forbid",
        )
    ]


def test_replace_deletes_the_active_job_then_creates() -> None:
    status = {"active": [ref("nightly-29454355", "j0")], "lastScheduleTime": "2026-01-01T09:55:00Z"}
    result = sync_cronjob(
        cronjob(concurrencyPolicy="Replace", status=status),
        [job("nightly-29454355", "j0")],
        at("2026-01-01T10:00:01+00:00"),
    )
    assert result.jobs_to_delete == [("ops", "nightly-29454355", "j0")]
    assert result.job_to_create is not None
    assert result.events == [
        ("Normal", "SuccessfulDelete", "Deleted job nightly-29454355"),
        ("Normal", "SuccessfulCreate", "Created job nightly-29454360"),
    ]
    assert result.status["active"] == []


def test_allow_runs_side_by_side() -> None:
    status = {"active": [ref("nightly-29454355", "j0")], "lastScheduleTime": "2026-01-01T09:55:00Z"}
    result = sync_cronjob(cronjob(status=status), [job("nightly-29454355", "j0")], at("2026-01-01T10:00:01+00:00"))
    assert result.jobs_to_delete == []
    assert result.job_to_create is not None
    assert result.status["active"] == [ref("nightly-29454355", "j0")]


def test_suspend_starts_nothing_and_does_not_requeue() -> None:
    result = sync_cronjob(cronjob(suspend=True), [], at("2026-01-01T10:00:01+00:00"))
    assert (result.job_to_create, result.requeue_after, result.events) == (None, None, [])


def test_a_finished_job_leaves_the_active_list() -> None:
    status = {"active": [ref("nightly-29454355", "j0")], "lastScheduleTime": "2026-01-01T09:55:00Z"}
    jobs = [job("nightly-29454355", "j0", finished="Complete", done="2026-01-01T09:56:10Z")]
    result = sync_cronjob(cronjob(status=status), jobs, at("2026-01-01T09:57:00+00:00"))
    assert result.status == {
        "active": [],
        "lastScheduleTime": "2026-01-01T09:55:00Z",
        "lastSuccessfulTime": "2026-01-01T09:56:10Z",
    }
    assert result.events == [("Normal", "SawCompletedJob", "Saw completed job: nightly-29454355, condition: Complete")]


def test_unexpected_and_missing_jobs() -> None:
    status = {"active": [ref("nightly-29454350", "gone")], "lastScheduleTime": "2026-01-01T09:55:00Z"}
    result = sync_cronjob(cronjob(status=status), [job("stray", "s1")], at("2026-01-01T09:57:00+00:00"))
    assert result.events == [
        ("Warning", "UnexpectedJob", "Saw a job that the controller did not create or forgot: stray"),
        ("Normal", "MissingJob", "Active job went missing: nightly-29454350"),
    ]
    assert result.status["active"] == []


def test_history_limits_delete_the_oldest_finished_jobs() -> None:
    jobs = [
        job("ok-3", "s3", finished="Complete", start="2026-01-01T09:30:00Z"),
        job("ok-1", "s1", finished="Complete", start="2026-01-01T09:10:00Z"),
        job("ok-2", "s2", finished="Complete", start="2026-01-01T09:20:00Z"),
        job("bad-1", "f1", finished="Failed", start="2026-01-01T09:15:00Z"),
        job("bad-2", "f2", finished="Failed", start="2026-01-01T09:25:00Z"),
        job("bad-0", "f0", finished="Failed"),
    ]
    status = {"lastScheduleTime": "2026-01-01T09:55:00Z"}
    spec = {"successfulJobsHistoryLimit": 1, "failedJobsHistoryLimit": 1, "status": status}
    result = sync_cronjob(cronjob(**spec), jobs, at("2026-01-01T09:57:00+00:00"))
    assert result.jobs_to_delete == [
        ("ops", "ok-1", "s1"),
        ("ops", "ok-2", "s2"),
        ("ops", "bad-1", "f1"),
        ("ops", "bad-2", "f2"),
    ]
    assert [event[2] for event in result.events] == [
        "Deleted job ok-1",
        "Deleted job ok-2",
        "Deleted job bad-1",
        "Deleted job bad-2",
    ]


@pytest.mark.parametrize(
    ("spec", "event"),
    [
        (
            {"timeZone": "Mars/Olympus"},
            ("Warning", "UnknownTimeZone", 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus'),
        ),
        (
            {"schedule": "61 * * * *"},
            (
                "Warning",
                "UnparseableSchedule",
                'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61',
            ),
        ),
        (
            {"schedule": "0 0 31 2 *"},
            (
                "Warning",
                "InvalidSchedule",
                "invalid schedule: 0 0 31 2 * : time difference between two schedules is less than 1 second",
            ),
        ),
    ],
)
def test_bad_schedules_start_nothing_and_say_why(spec: dict[str, Any], event: tuple[str, str, str]) -> None:
    result = sync_cronjob(cronjob(**spec), [], at("2026-01-01T10:00:01+00:00"))
    assert (result.job_to_create, result.requeue_after, result.events) == (None, None, [event])


def test_a_schedule_with_its_own_tz_is_warned_about_but_runs() -> None:
    result = sync_cronjob(cronjob(schedule="TZ=UTC */5 * * * *"), [], at("2026-01-01T10:00:01+00:00"))
    assert result.events[0] == (
        "Warning",
        "UnsupportedSchedule",
        'CRON_TZ or TZ used in schedule "TZ=UTC */5 * * * *" is not officially supported, see '
        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
    )
    assert result.job_to_create is not None


def test_a_cronjob_being_deleted_only_updates_status() -> None:
    doomed = cronjob()
    doomed["metadata"]["deletionTimestamp"] = "2026-01-01T10:00:00Z"
    result = sync_cronjob(doomed, [], at("2026-01-01T10:00:01+00:00"))
    assert (result.job_to_create, result.requeue_after) == (None, None)
