"""Jobs and CronJobs on a whole simulated cluster: the server's Job and TTL-after-finished controllers run as
`system:kube-controller-manager`; the CronJob controller runs in the test process on a FakeClock (the server
is started without its own), so a test steps time across a schedule instead of waiting for it."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock, RealClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.controllers.batch.cronjob_controller import CronJobController
from tests.e2e.server import KubeliteProcess

MERGE = {"Content-Type": "application/merge-patch+json"}
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(
        Path(tmp_path_factory.mktemp("kubelite")),
        cluster=True,
        extra_args=["--nodes=1", "--controllers=*,-cronjob-controller"],
    )
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def ns(cluster: KubeliteProcess) -> str:
    name = f"batch-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", name)
    return name


# ---- helpers ----


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 45.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def get(proc: KubeliteProcess, path: str) -> Any:
    got = proc.http("GET", path)
    return got.json() if got.status == 200 else None


def job(proc: KubeliteProcess, ns: str, name: str) -> Any:
    return get(proc, f"/apis/batch/v1/namespaces/{ns}/jobs/{name}")


def pods(proc: KubeliteProcess, ns: str, job_name: str | None = None) -> list[dict[str, Any]]:
    query = f"?labelSelector=batch.kubernetes.io/job-name%3D{job_name}" if job_name else ""
    items = get(proc, f"/api/v1/namespaces/{ns}/pods{query}")["items"]
    return sorted(items, key=lambda p: int(p["metadata"]["resourceVersion"]))


def conditions(obj: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
        for c in (obj.get("status") or {}).get("conditions") or []
    ]


def events(proc: KubeliteProcess, ns: str, kind: str, name: str) -> list[tuple[str, str, str, str]]:
    """The object's events in the order they were first recorded, each repeat as often as it was counted."""
    items = get(proc, f"/api/v1/namespaces/{ns}/events")["items"]
    mine = [e for e in items if e["involvedObject"]["kind"] == kind and e["involvedObject"]["name"] == name]
    # an Event is named after the instant it was first recorded; repeats only raise its count
    mine.sort(key=lambda e: int(e["metadata"]["name"].rsplit(".", 1)[1], 16))
    return [
        (e["type"], e["reason"], e["message"], e["source"]["component"]) + (() if e["count"] == 1 else (e["count"],))
        for e in mine
    ]


def finish_pod(proc: KubeliteProcess, pod: dict[str, Any], *, exit_code: int = 0) -> None:
    """What a kubelet reports when the pod's only container exits."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    meta = pod["metadata"]
    container = pod["spec"]["containers"][0]
    status = {
        "phase": "Succeeded" if exit_code == 0 else "Failed",
        "containerStatuses": [
            {
                "name": container["name"],
                "image": container["image"],
                "imageID": "",
                "ready": False,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": exit_code,
                        "reason": "Completed" if exit_code == 0 else "Error",
                        "startedAt": now,
                        "finishedAt": now,
                    }
                },
            }
        ],
    }
    got = proc.http(
        "PATCH", f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}/status", {"status": status}, headers=MERGE
    )
    assert got.status == 200, got.body


def create(proc: KubeliteProcess, obj: dict[str, Any]) -> dict[str, Any]:
    result = proc.kubectl("create", "-o", "json", "-f", "-", input=json.dumps(obj))
    return dict(json.loads(result.stdout))


def job_manifest(name: str, ns: str, **spec: Any) -> dict[str, Any]:
    template = spec.pop("template", None) or {}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            **spec,
            "template": {
                "metadata": template.get("metadata", {}),
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                    **template.get("spec", {}),
                },
            },
        },
    }


def active_pods(proc: KubeliteProcess, ns: str, job_name: str) -> list[dict[str, Any]]:
    return [
        p
        for p in pods(proc, ns, job_name)
        if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        and not p["metadata"].get("deletionTimestamp")
    ]


# ---- Jobs ----


def test_kubectl_create_job_completes(cluster: KubeliteProcess, ns: str) -> None:
    cluster.kubectl("create", "job", "pi", "--image=busybox", "-n", ns)
    (pod,) = wait_for("the job's pod", lambda: pods(cluster, ns, "pi"))
    assert pod["metadata"]["finalizers"] == [TRACKING_FINALIZER]
    assert pod["metadata"]["generateName"] == "pi-"
    owner = pod["metadata"]["ownerReferences"]
    assert owner == [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "pi",
            "uid": job(cluster, ns, "pi")["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    wait_for("active 1", lambda: job(cluster, ns, "pi").get("status", {}).get("active") == 1)
    finish_pod(cluster, pod)
    cluster.kubectl("wait", "--for=condition=complete", "job/pi", "-n", ns, "--timeout=45s")
    done = job(cluster, ns, "pi")
    status = done["status"]
    assert status["succeeded"] == 1
    assert "active" not in status and "failed" not in status
    assert status["uncountedTerminatedPods"] == {}
    assert status["ready"] == 0 and status["terminating"] == 0
    assert status["completionTime"] >= status["startTime"]
    assert conditions(done) == [
        ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
        ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
    ]
    # the tracking finalizer goes once the pod is counted
    (counted,) = pods(cluster, ns, "pi")
    assert "finalizers" not in counted["metadata"]
    name = pod["metadata"]["name"]
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "pi")) == 2)
    assert events(cluster, ns, "Job", "pi") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {name}", "job-controller"),
        ("Normal", "Completed", "Job completed", "job-controller"),
    ]
    shown = cluster.kubectl("get", "job", "pi", "-n", ns, "--no-headers").stdout.split()
    assert shown[:2] == ["pi", "Complete"] and shown[2] == "1/1"


def test_completions_and_parallelism(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("par", ns, completions=3, parallelism=2))
    first = wait_for("two pods", lambda: len(pods(cluster, ns, "par")) == 2 and pods(cluster, ns, "par"))
    time.sleep(0.5)
    assert len(pods(cluster, ns, "par")) == 2  # never more than parallelism at once
    wait_for("active 2", lambda: job(cluster, ns, "par").get("status", {}).get("active") == 2)
    finish_pod(cluster, first[0])
    # one left to run: a third pod, and still two active
    known = {p["metadata"]["name"] for p in first}
    (third,) = wait_for(
        "a third pod",
        lambda: (
            len(found := pods(cluster, ns, "par")) == 3 and [p for p in found if p["metadata"]["name"] not in known]
        ),
    )
    wait_for("succeeded 1", lambda: job(cluster, ns, "par").get("status", {}).get("succeeded") == 1)
    assert job(cluster, ns, "par")["status"]["active"] == 2
    finish_pod(cluster, first[1])
    finish_pod(cluster, third)
    cluster.kubectl("wait", "--for=condition=complete", "job/par", "-n", ns, "--timeout=45s")
    status = job(cluster, ns, "par")["status"]
    assert status["succeeded"] == 3 and "active" not in status
    assert len(pods(cluster, ns, "par")) == 3
    names = [p["metadata"]["name"] for p in [*first, third]]
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "par")) == 4)
    found = events(cluster, ns, "Job", "par")
    assert sorted(found[:2]) == sorted(
        ("Normal", "SuccessfulCreate", f"Created pod: {n}", "job-controller") for n in names[:2]
    )
    assert found[2:] == [
        ("Normal", "SuccessfulCreate", f"Created pod: {names[2]}", "job-controller"),
        ("Normal", "Completed", "Job completed", "job-controller"),
    ]


def test_an_indexed_job_runs_each_index_once(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("idx", ns, completions=3, parallelism=3, completionMode="Indexed"))
    made = wait_for("three pods", lambda: len(pods(cluster, ns, "idx")) == 3 and pods(cluster, ns, "idx"))
    by_index = {int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]): p for p in made}
    assert sorted(by_index) == [0, 1, 2]
    for index, pod in by_index.items():
        assert pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == str(index)
        assert pod["metadata"]["generateName"] == f"idx-{index}-"
        assert pod["spec"]["hostname"] == f"idx-{index}"
        env = pod["spec"]["containers"][0]["env"]
        assert env == [
            {
                "name": "JOB_COMPLETION_INDEX",
                "valueFrom": {
                    "fieldRef": {
                        "apiVersion": "v1",
                        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']",
                    }
                },
            }
        ]
    finish_pod(cluster, by_index[0])
    finish_pod(cluster, by_index[2])
    wait_for("indexes 0 and 2", lambda: job(cluster, ns, "idx").get("status", {}).get("completedIndexes") == "0,2")
    assert job(cluster, ns, "idx")["status"]["succeeded"] == 2
    finish_pod(cluster, by_index[1])
    cluster.kubectl("wait", "--for=condition=complete", "job/idx", "-n", ns, "--timeout=45s")
    status = job(cluster, ns, "idx")["status"]
    assert status["completedIndexes"] == "0-2"
    assert status["succeeded"] == 3
    assert len(pods(cluster, ns, "idx")) == 3


def test_a_failing_job_reaches_its_backoff_limit(cluster: KubeliteProcess, ns: str) -> None:
    exits_1 = {"metadata": {"annotations": {"sim.kubelite.io/exit-code": "1", "sim.kubelite.io/run-time": "1s"}}}
    create(cluster, job_manifest("fails", ns, backoffLimit=0, template=exits_1))
    (pod,) = wait_for("the pod", lambda: pods(cluster, ns, "fails"))
    finish_pod(cluster, pod, exit_code=1)
    cluster.kubectl("wait", "--for=condition=failed", "job/fails", "-n", ns, "--timeout=45s")
    failed = job(cluster, ns, "fails")
    assert failed["status"]["failed"] == 1
    assert "succeeded" not in failed["status"] and "completionTime" not in failed["status"]
    message = "Job has reached the specified backoff limit"
    assert conditions(failed) == [
        ("FailureTarget", "True", "BackoffLimitExceeded", message),
        ("Failed", "True", "BackoffLimitExceeded", message),
    ]
    assert len(pods(cluster, ns, "fails")) == 1  # no retry past the limit
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "fails")) == 2)
    assert events(cluster, ns, "Job", "fails") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}", "job-controller"),
        ("Warning", "BackoffLimitExceeded", message, "job-controller"),
    ]


def test_suspend_and_resume(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("sus", ns, suspend=True))
    suspended = wait_for("Suspended", lambda: conditions(job(cluster, ns, "sus")) and job(cluster, ns, "sus"))
    assert conditions(suspended) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert "startTime" not in suspended["status"]
    time.sleep(0.5)
    assert pods(cluster, ns, "sus") == []

    cluster.kubectl("patch", "job", "sus", "-n", ns, "--type=merge", "-p", '{"spec":{"suspend":false}}')
    (pod,) = wait_for("a pod once resumed", lambda: pods(cluster, ns, "sus"))
    resumed = wait_for("Resumed", lambda: (j := job(cluster, ns, "sus")) and conditions(j)[0][1] == "False" and j)
    assert conditions(resumed) == [("Suspended", "False", "JobResumed", "Job resumed")]
    assert "startTime" in resumed["status"]

    cluster.kubectl("patch", "job", "sus", "-n", ns, "--type=merge", "-p", '{"spec":{"suspend":true}}')
    # a suspended Job's pods go, uncounted: their finalizer first, then the pod
    wait_for("the pod gone", lambda: pods(cluster, ns, "sus") == [])
    again = wait_for("Suspended again", lambda: (j := job(cluster, ns, "sus")) and conditions(j)[0][1] == "True" and j)
    assert conditions(again) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert "failed" not in again["status"] and "active" not in again["status"]
    name = pod["metadata"]["name"]
    # the second suspension repeats the first's event: one Event, counted twice
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "sus")) == 4)
    assert events(cluster, ns, "Job", "sus") == [
        ("Normal", "Suspended", "Job suspended", "job-controller", 2),
        ("Normal", "SuccessfulCreate", f"Created pod: {name}", "job-controller"),
        ("Normal", "Resumed", "Job resumed", "job-controller"),
        ("Normal", "SuccessfulDelete", f"Deleted pod: {name}", "job-controller"),
    ]


def test_active_deadline_seconds_fails_the_job(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("slow", ns, activeDeadlineSeconds=2))
    (pod,) = wait_for("the pod", lambda: pods(cluster, ns, "slow"))
    cluster.kubectl("wait", "--for=condition=failed", "job/slow", "-n", ns, "--timeout=45s")
    failed = job(cluster, ns, "slow")
    message = "Job was active longer than specified deadline"
    assert conditions(failed) == [
        ("FailureTarget", "True", "DeadlineExceeded", message),
        ("Failed", "True", "DeadlineExceeded", message),
    ]
    assert failed["status"]["failed"] == 1
    wait_for("the pod gone", lambda: pods(cluster, ns, "slow") == [])
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "slow")) == 3)
    assert events(cluster, ns, "Job", "slow") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}", "job-controller"),
        ("Normal", "SuccessfulDelete", f"Deleted pod: {pod['metadata']['name']}", "job-controller"),
        ("Warning", "DeadlineExceeded", message, "job-controller"),
    ]


def test_ttl_seconds_after_finished_deletes_the_job_and_its_pods(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("ttl", ns, ttlSecondsAfterFinished=2))
    (pod,) = wait_for("the pod", lambda: pods(cluster, ns, "ttl"))
    finish_pod(cluster, pod)
    # the TTL counts from the Complete condition's time (whole seconds): the Job is seen complete first
    done = wait_for("complete", lambda: (j := job(cluster, ns, "ttl")) and ("Complete", "True") in
                    [c[:2] for c in conditions(j)] and j)  # fmt: skip
    assert done["spec"]["ttlSecondsAfterFinished"] == 2
    wait_for("the job deleted", lambda: job(cluster, ns, "ttl") is None)
    wait_for("its pods deleted", lambda: pods(cluster, ns, "ttl") == [])


def test_a_deleted_jobs_pods_lose_the_tracking_finalizer_and_go(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("gone", ns, completions=2, parallelism=2))
    wait_for("two pods", lambda: len(active_pods(cluster, ns, "gone")) == 2)
    # kubectl deletes in the background: the Job goes at once, the garbage collector deletes its pods, and
    # the Job controller takes its finalizer off each pod no Job accounts for any more
    cluster.kubectl("delete", "job", "gone", "-n", ns)
    wait_for("the pods gone", lambda: pods(cluster, ns, "gone") == [])


def test_a_job_adopts_an_orphan_its_selector_matches(cluster: KubeliteProcess, ns: str) -> None:
    stray = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "stray", "namespace": ns, "labels": {"app": "adopt-me"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]},
    }
    create(cluster, stray)
    manifest = job_manifest("adopter", ns, manualSelector=True, selector={"matchLabels": {"app": "adopt-me"}})
    manifest["spec"]["template"]["metadata"] = {"labels": {"app": "adopt-me"}}
    made = create(cluster, manifest)
    adopted = wait_for(
        "the pod adopted",
        lambda: (p := get(cluster, f"/api/v1/namespaces/{ns}/pods/stray"))["metadata"].get("ownerReferences") and p,
    )
    assert adopted["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "adopter",
            "uid": made["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert adopted["metadata"]["finalizers"] == [TRACKING_FINALIZER]
    finish_pod(cluster, adopted)
    cluster.kubectl("wait", "--for=condition=complete", "job/adopter", "-n", ns, "--timeout=45s")
    # the adopted pod was the one completion: the Job made none of its own
    assert [p["metadata"]["name"] for p in pods(cluster, ns)] == ["stray"]
    assert job(cluster, ns, "adopter")["status"]["succeeded"] == 1


# ---- CronJobs: the controller in this process, on a FakeClock ----


def cronjob_manifest(name: str, ns: str, schedule: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "schedule": schedule,
            **spec,
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}
                    }
                }
            },
        },
    }


async def eventually(what: str, probe: Callable[[], Any], timeout: float = 45.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await asyncio.to_thread(probe)
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


def cronjob_jobs(proc: KubeliteProcess, ns: str) -> list[str]:
    items = get(proc, f"/apis/batch/v1/namespaces/{ns}/jobs")["items"]
    return sorted(j["metadata"]["name"] for j in items if not j["metadata"].get("deletionTimestamp"))


def cronjob(proc: KubeliteProcess, ns: str, name: str) -> Any:
    return get(proc, f"/apis/batch/v1/namespaces/{ns}/cronjobs/{name}")


def active_runs(proc: KubeliteProcess, ns: str, name: str) -> list[str]:
    return [ref["name"] for ref in (cronjob(proc, ns, name).get("status") or {}).get("active", [])]


async def with_cronjob_controller(
    proc: KubeliteProcess, clock: FakeClock | RealClock, body: Callable[[CronJobController], Awaitable[None]]
) -> None:
    clients = ComponentClient("kube-controller-manager", Config(host=proc.url), clock=clock)
    controller = CronJobController(clients)
    clients.start_informers()
    try:
        informers = [clients.informers.for_resource(r).informer for r in (("batch", "v1", "cronjobs"),
                                                                           ("batch", "v1", "jobs"))]  # fmt: skip
        while not all(i.has_synced() for i in informers):
            await asyncio.sleep(0.05)
        task = asyncio.create_task(controller.run())
        try:
            await body(controller)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    finally:
        await clients.close()


def fake_clock_at(when: float) -> FakeClock:
    return FakeClock(1_000.0, wall_offset=when - 1_000.0)


def next_minute(after: float) -> float:
    return (int(after) // 60 + 1) * 60.0


async def step_to(clock: FakeClock, when: float) -> None:
    clock.step(when - clock.now())
    await asyncio.sleep(0)


def complete_job(proc: KubeliteProcess, ns: str, name: str) -> None:
    (pod,) = wait_for(f"the pod of {name}", lambda: pods(proc, ns, name))
    finish_pod(proc, pod)
    proc.kubectl("wait", "--for=condition=complete", f"job/{name}", "-n", ns, "--timeout=45s")


def test_a_cronjob_starts_a_job_named_after_its_scheduled_minute(cluster: KubeliteProcess, ns: str) -> None:
    created = create(cluster, cronjob_manifest("every", ns, "*/1 * * * *"))
    start = datetime.fromisoformat(created["metadata"]["creationTimestamp"]).timestamp()
    clock = fake_clock_at(start + 1)
    first = next_minute(start + 1)

    async def body(controller: CronJobController) -> None:
        await asyncio.sleep(0.3)
        assert await asyncio.to_thread(cronjob_jobs, cluster, ns) == []  # nothing before the first start time
        await step_to(clock, first + 1)
        name = f"every-{int(first) // 60}"
        await eventually("the first job", lambda: cronjob_jobs(cluster, ns) == [name])
        made = job(cluster, ns, name)
        assert made["metadata"]["annotations"] == {
            "batch.kubernetes.io/cronjob-scheduled-timestamp": datetime.fromtimestamp(first, UTC).strftime(
                "%Y-%m-%dT%H:%M:%SZ"
            )
        }
        owner = made["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["controller"]) == ("CronJob", "every", True)
        status = await eventually(
            "the status", lambda: (c := cronjob(cluster, ns, "every")).get("status", {}).get("active") and c
        )
        status = status["status"]
        assert [ref["name"] for ref in status["active"]] == [name]
        assert status["lastScheduleTime"] == datetime.fromtimestamp(first, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        # the next minute starts the next run (Allow: both run)
        await step_to(clock, first + 61)
        second = f"every-{int(first) // 60 + 1}"
        await eventually("the second job", lambda: cronjob_jobs(cluster, ns) == [name, second])
        found = await eventually("the events", lambda: len(e := events(cluster, ns, "CronJob", "every")) == 2 and e)
        assert found == [
            ("Normal", "SuccessfulCreate", f"Created job {name}", "cronjob-controller"),
            ("Normal", "SuccessfulCreate", f"Created job {second}", "cronjob-controller"),
        ]

    asyncio.run(asyncio.wait_for(with_cronjob_controller(cluster, clock, body), 60))


def test_concurrency_policy_forbid_skips_while_a_run_is_active(cluster: KubeliteProcess, ns: str) -> None:
    created = create(cluster, cronjob_manifest("forbid", ns, "*/1 * * * *", concurrencyPolicy="Forbid"))
    start = datetime.fromisoformat(created["metadata"]["creationTimestamp"]).timestamp()
    clock = fake_clock_at(start + 1)
    first = next_minute(start + 1)
    name = f"forbid-{int(first) // 60}"

    async def body(controller: CronJobController) -> None:
        await step_to(clock, first + 1)
        await eventually("the first job", lambda: cronjob_jobs(cluster, ns) == [name])
        await step_to(clock, first + 61)
        await eventually(
            "JobAlreadyActive",
            lambda: any(e[1] == "JobAlreadyActive" for e in events(cluster, ns, "CronJob", "forbid")),
        )
        assert await asyncio.to_thread(cronjob_jobs, cluster, ns) == [name]
        # once the run is over, the start time it held back is due: it starts late, as kube's does
        await asyncio.to_thread(complete_job, cluster, ns, name)
        late = f"forbid-{int(first) // 60 + 1}"
        await eventually("the held-back job", lambda: cronjob_jobs(cluster, ns) == [name, late])
        # and while that one runs, the next start time is skipped again
        await step_to(clock, first + 121)
        found = await eventually(
            "the events",
            lambda: len(e := events(cluster, ns, "CronJob", "forbid")) == 4 and e[1][4:] and e,
        )
        # every sync while a run is active says so again (kube's too): one Event, counted each time
        assert found[1][4:] and found[1][4] >= 2
        assert [e[:4] for e in found] == [
            ("Normal", "SuccessfulCreate", f"Created job {name}", "cronjob-controller"),
            (
                "Normal",
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid",
                "cronjob-controller",
            ),
            ("Normal", "SawCompletedJob", f"Saw completed job: {name}, condition: Complete", "cronjob-controller"),
            ("Normal", "SuccessfulCreate", f"Created job {late}", "cronjob-controller"),
        ]
        assert await asyncio.to_thread(cronjob_jobs, cluster, ns) == [name, late]
        status = cronjob(cluster, ns, "forbid")["status"]
        assert status["lastSuccessfulTime"] == job(cluster, ns, name)["status"]["completionTime"]

    asyncio.run(asyncio.wait_for(with_cronjob_controller(cluster, clock, body), 60))


def test_concurrency_policy_replace_deletes_the_running_job(cluster: KubeliteProcess, ns: str) -> None:
    created = create(cluster, cronjob_manifest("replace", ns, "*/1 * * * *", concurrencyPolicy="Replace"))
    start = datetime.fromisoformat(created["metadata"]["creationTimestamp"]).timestamp()
    clock = fake_clock_at(start + 1)
    first = next_minute(start + 1)
    name, second = f"replace-{int(first) // 60}", f"replace-{int(first) // 60 + 1}"

    async def body(controller: CronJobController) -> None:
        await step_to(clock, first + 1)
        await eventually("the first job", lambda: cronjob_jobs(cluster, ns) == [name])
        await step_to(clock, first + 61)
        await eventually("the replacement", lambda: cronjob_jobs(cluster, ns) == [second])
        found = await eventually("the events", lambda: len(e := events(cluster, ns, "CronJob", "replace")) == 3 and e)
        assert found == [
            ("Normal", "SuccessfulCreate", f"Created job {name}", "cronjob-controller"),
            ("Normal", "SuccessfulDelete", f"Deleted job {name}", "cronjob-controller"),
            ("Normal", "SuccessfulCreate", f"Created job {second}", "cronjob-controller"),
        ]
        await eventually("only the new run active", lambda: active_runs(cluster, ns, "replace") == [second])

    asyncio.run(asyncio.wait_for(with_cronjob_controller(cluster, clock, body), 60))


def test_history_limits_delete_the_oldest_finished_jobs(cluster: KubeliteProcess, ns: str) -> None:
    created = create(
        cluster,
        cronjob_manifest("hist", ns, "*/1 * * * *", successfulJobsHistoryLimit=1, failedJobsHistoryLimit=1),
    )
    start = datetime.fromisoformat(created["metadata"]["creationTimestamp"]).timestamp()
    clock = fake_clock_at(start + 1)
    first = next_minute(start + 1)
    names = [f"hist-{int(first) // 60 + i}" for i in range(3)]

    async def body(controller: CronJobController) -> None:
        for i, name in enumerate(names):
            await step_to(clock, first + 60 * i + 1)
            await eventually(f"job {name}", lambda name=name: name in cronjob_jobs(cluster, ns))
            await asyncio.to_thread(complete_job, cluster, ns, name)
            await eventually(
                f"{name} seen completed",
                lambda name=name: all(
                    r["name"] != name for r in cronjob(cluster, ns, "hist").get("status", {}).get("active", [])
                ),
            )
            # one successful Job is kept: the newest
            await eventually("only the newest kept", lambda name=name: cronjob_jobs(cluster, ns) == [name])
        found = await eventually(
            "the deletions' events",
            lambda: (
                len(e := [e for e in events(cluster, ns, "CronJob", "hist") if e[1] == "SuccessfulDelete"]) == 2 and e
            ),
        )
        assert found == [
            ("Normal", "SuccessfulDelete", f"Deleted job {names[0]}", "cronjob-controller"),
            ("Normal", "SuccessfulDelete", f"Deleted job {names[1]}", "cronjob-controller"),
        ]

    asyncio.run(asyncio.wait_for(with_cronjob_controller(cluster, clock, body), 60))


def test_every_minute_is_due_at_the_next_minute_in_real_time(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, cronjob_manifest("realtime", ns, "*/1 * * * *"))

    async def body(controller: CronJobController) -> None:
        await eventually(
            "the cronjob cached", lambda: controller.cronjobs.indexer.get_by_key(f"{ns}/realtime") is not None
        )
        while True:
            before = time.time()
            delay = await controller.reconcile(f"{ns}/realtime")
            after = time.time()
            if next_minute(before) == next_minute(after):
                break  # else a minute began during the sync: measure again
        assert delay is not None
        # kube's nextScheduleTimeDuration: to the next whole minute, plus 100 ms of slack
        assert next_minute(before) - before + 0.1 >= delay >= next_minute(after) - after + 0.1 - 0.001
        assert await asyncio.to_thread(cronjob_jobs, cluster, ns) == []

    asyncio.run(asyncio.wait_for(with_cronjob_controller(cluster, RealClock(), body), 60))
