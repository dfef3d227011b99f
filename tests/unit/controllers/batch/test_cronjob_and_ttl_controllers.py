"""The CronJob and TTL-after-finished loops' writes on stand-in clients, at the times a FakeClock says."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.errors import AlreadyExists
from kubelite.controllers.batch.cronjob_controller import CronJobController
from kubelite.controllers.batch.ttl_after_finished_controller import TTLAfterFinishedController, needs_cleanup
from tests.unit.controllers.batch.support import Call, StubRecorder, StubResource, clients, run

#: 2023-11-14T22:13:00Z, a whole minute
MINUTE = 1_699_999_980.0


def at(seconds: float) -> FakeClock:
    return FakeClock(1_000.0, wall_offset=seconds - 1_000.0)


def stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_cronjob(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {
            "name": "cj",
            "namespace": "ns",
            "uid": "cj-uid",
            "resourceVersion": "7",
            "creationTimestamp": stamp(MINUTE - 30),
        },
        "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": {"spec": {}}}}, **spec},
    }


def cron_job_of(name: str, *, finished: str | None = None) -> dict[str, Any]:
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "resourceVersion": "5",
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "uid": "cj-uid", "controller": True}
            ],
        },
        "spec": {},
        "status": {},
    }
    if finished:
        job["status"]["conditions"] = [{"type": finished, "status": "True"}]
    return job


class CronHarness:
    def __init__(self, cronjob: dict[str, Any], jobs: list[dict[str, Any]], now: float) -> None:
        self.clock = at(now)
        self.loop = CronJobController(clients(self.clock))
        self.calls: list[Call] = []
        self.cronjobs = StubResource(self.calls)
        self.jobs = StubResource(self.calls)
        self.recorder = StubRecorder()
        self.loop.cronjob_client = self.cronjobs  # type: ignore[assignment]
        self.loop.job_client = self.jobs  # type: ignore[assignment]
        self.loop.recorder = self.recorder  # type: ignore[assignment]
        self.loop.cronjobs.indexer.add(cronjob)
        for job in jobs:
            self.loop.jobs.indexer.add(job)

    def reconcile(self) -> float | None:
        async def body() -> float | None:
            return await self.loop.reconcile("ns/cj")

        result: float | None = run(body)
        return result


def test_a_due_start_time_creates_its_job_and_requeues_at_the_next_one() -> None:
    harness = CronHarness(make_cronjob(), [], now=MINUTE + 10)
    delay = harness.reconcile()
    assert delay == pytest.approx(50.1)
    name = f"cj-{int(MINUTE) // 60}"
    assert [(verb, n) for verb, n, _ in harness.calls] == [("create", name), ("status", "cj")]
    status = harness.calls[-1][2]
    assert status["lastScheduleTime"] == stamp(MINUTE)
    assert [ref["name"] for ref in status["active"]] == [name]
    assert status["active"][0]["uid"] == f"uid-{name}"
    assert harness.recorder.events == [("CronJob", "Normal", "SuccessfulCreate", f"Created job {name}")]
    # the cache still shows the CronJob the status replaced: the next sync waits for the new one
    harness.calls.clear()
    assert harness.reconcile() is None
    assert harness.calls == []


def test_before_the_first_start_time_nothing_runs() -> None:
    harness = CronHarness(make_cronjob(), [], now=MINUTE - 20)
    assert harness.reconcile() == pytest.approx(20.1)
    assert harness.calls == [] and harness.recorder.events == []


def test_a_job_that_exists_already_is_not_announced_and_the_start_time_stays_unmet() -> None:
    harness = CronHarness(make_cronjob(), [], now=MINUTE + 10)
    name = f"cj-{int(MINUTE) // 60}"
    harness.jobs.failing[("create", name)] = AlreadyExists(
        {"message": f'jobs.batch "{name}" already exists', "reason": "AlreadyExists", "code": 409}
    )
    with pytest.raises(AlreadyExists):
        harness.reconcile()
    # the status would change only to record the run, which did not start: nothing is written
    assert [(verb, n) for verb, n, _ in harness.calls] == [("create", name)]
    assert harness.recorder.events == []


def test_replace_deletes_the_running_job_in_the_background_before_the_next_starts() -> None:
    running = cron_job_of(f"cj-{int(MINUTE) // 60 - 1}")
    cronjob = make_cronjob(concurrencyPolicy="Replace")
    cronjob["status"] = {
        "lastScheduleTime": stamp(MINUTE - 60),
        "active": [{"kind": "Job", "name": running["metadata"]["name"], "namespace": "ns", "uid": "uid-" +
                    running["metadata"]["name"]}],
    }  # fmt: skip
    harness = CronHarness(cronjob, [running], now=MINUTE + 1)
    harness.reconcile()
    name = f"cj-{int(MINUTE) // 60}"
    assert harness.calls[0] == (
        "delete",
        running["metadata"]["name"],
        {"propagation_policy": "Background", "preconditions": {"uid": f"uid-{running['metadata']['name']}"}},
    )
    assert [(verb, n) for verb, n, _ in harness.calls[1:]] == [("create", name), ("status", "cj")]
    assert [ref["name"] for ref in harness.calls[-1][2]["active"]] == [name]
    assert [e[2:] for e in harness.recorder.events] == [
        ("SuccessfulDelete", f"Deleted job {running['metadata']['name']}"),
        ("SuccessfulCreate", f"Created job {name}"),
    ]


# ---- TTL after finished ----


def finished_job(ttl: int | None, finished_at: float, **meta: Any) -> dict[str, Any]:
    spec = {} if ttl is None else {"ttlSecondsAfterFinished": ttl}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ns", "uid": "job-uid", "resourceVersion": "3", **meta},
        "spec": spec,
        "status": {
            "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": stamp(finished_at)}]
        },
    }


def test_only_finished_jobs_with_a_ttl_need_cleaning_up() -> None:
    assert needs_cleanup(finished_job(10, MINUTE))
    assert not needs_cleanup(finished_job(None, MINUTE))
    assert not needs_cleanup(finished_job(10, MINUTE, deletionTimestamp=stamp(MINUTE)))
    running = finished_job(10, MINUTE)
    running["status"] = {}
    assert not needs_cleanup(running)


class TTLHarness:
    def __init__(self, cached: dict[str, Any], fresh: dict[str, Any] | None, now: float) -> None:
        self.loop = TTLAfterFinishedController(clients(at(now)))
        self.calls: list[Call] = []
        self.jobs = StubResource(self.calls, {"j": fresh} if fresh is not None else {})
        self.loop.job_client = self.jobs  # type: ignore[assignment]
        self.loop.jobs.indexer.add(cached)

    def reconcile(self) -> float | None:
        async def body() -> float | None:
            return await self.loop.reconcile("ns/j")

        result: float | None = run(body)
        return result


def test_a_job_is_deleted_in_the_foreground_once_its_ttl_has_passed() -> None:
    job = finished_job(10, MINUTE)
    early = TTLHarness(job, job, now=MINUTE + 4)
    assert early.reconcile() == pytest.approx(6)
    assert early.calls == []
    due = TTLHarness(job, job, now=MINUTE + 10)
    assert due.reconcile() is None
    assert due.calls == [
        ("get", "j", None),
        ("delete", "j", {"propagation_policy": "Foreground", "preconditions": {"uid": "job-uid"}}),
    ]


def test_the_ttl_is_read_again_from_the_api_before_deleting() -> None:
    cached = finished_job(10, MINUTE)
    longer = finished_job(60, MINUTE)
    harness = TTLHarness(cached, longer, now=MINUTE + 20)
    assert harness.reconcile() == pytest.approx(40)
    assert harness.calls == [("get", "j", None)]
    gone = TTLHarness(cached, None, now=MINUTE + 20)
    assert gone.reconcile() is None
    assert gone.calls == [("get", "j", None)]
