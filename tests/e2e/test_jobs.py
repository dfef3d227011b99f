"""Jobs and CronJobs on a whole simulated cluster of one node: the scheduler binds each pod, the node's kubelet
runs it (a Job's pod runs a second and exits 0, or as its `sim.kubelite.io/*` annotations say), and the
server's Job and TTL-after-finished controllers, as `system:kube-controller-manager`, take it from there. The
CronJob controller runs in the test process on a FakeClock (the server is started without its own), so a test
steps time across a schedule instead of waiting for it."""

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


def create(proc: KubeliteProcess, obj: dict[str, Any]) -> dict[str, Any]:
    result = proc.kubectl("create", "-o", "json", "-f", "-", input=json.dumps(obj))
    return dict(json.loads(result.stdout))


def runs_for(duration: str) -> dict[str, Any]:
    """A pod template whose container runs this long before it exits 0."""
    return {"metadata": {"annotations": {"sim.kubelite.io/run-time": duration}}}


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
    (pod,) = pods(cluster, ns, "pi")
    meta = pod["metadata"]
    assert meta["generateName"] == "pi-"
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "pi",
            "uid": done["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    # scheduled, run to its end by the node's kubelet, and, once counted, free of the tracking finalizer
    assert pod["spec"]["nodeName"] == "kubelite-node-0"
    assert pod["status"]["phase"] == "Succeeded"
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 0
    assert "finalizers" not in meta
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "pi")) == 2)
    assert events(cluster, ns, "Job", "pi") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {meta['name']}", "job-controller"),
        ("Normal", "Completed", "Job completed", "job-controller"),
    ]
    shown = cluster.kubectl("get", "job", "pi", "-n", ns, "--no-headers").stdout.split()
    assert shown[:3] == ["pi", "Complete", "1/1"]


def test_completions_and_parallelism(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("par", ns, completions=3, parallelism=2, template=runs_for("2s")))
    most = 0
    while not (found := job(cluster, ns, "par")).get("status", {}).get("completionTime"):
        most = max(most, len(active_pods(cluster, ns, "par")))
        assert "Failed" not in [c[0] for c in conditions(found)]
        time.sleep(0.1)
    # two ran side by side, never more; the third once one of them was done
    assert most == 2
    status = found["status"]
    assert status["succeeded"] == 3 and "active" not in status and "failed" not in status
    made = pods(cluster, ns, "par")
    assert [p["status"]["phase"] for p in made] == ["Succeeded"] * 3
    by_creation = sorted(made, key=lambda p: (p["metadata"]["creationTimestamp"], p["status"]["startTime"]))
    last = by_creation[2]
    # the third started after one of the first two had finished
    finished = sorted(p["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] for p in made[:3])
    assert last["metadata"]["creationTimestamp"] >= finished[0]
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "par")) == 4)
    found_events = events(cluster, ns, "Job", "par")
    assert sorted(found_events[:3]) == sorted(
        ("Normal", "SuccessfulCreate", f"Created pod: {p['metadata']['name']}", "job-controller") for p in made
    )
    assert found_events[3] == ("Normal", "Completed", "Job completed", "job-controller")


def test_an_indexed_job_runs_each_index_once(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("idx", ns, completions=3, parallelism=3, completionMode="Indexed"))
    cluster.kubectl("wait", "--for=condition=complete", "job/idx", "-n", ns, "--timeout=45s")
    status = job(cluster, ns, "idx")["status"]
    assert status["completedIndexes"] == "0-2"
    assert status["succeeded"] == 3
    made = pods(cluster, ns, "idx")
    by_index = {int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]): p for p in made}
    assert sorted(by_index) == [0, 1, 2] and len(made) == 3
    for index, pod in by_index.items():
        assert pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == str(index)
        assert pod["metadata"]["generateName"] == f"idx-{index}-"
        assert pod["spec"]["hostname"] == f"idx-{index}"
        assert pod["status"]["phase"] == "Succeeded"
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


def test_a_failing_job_reaches_its_backoff_limit(cluster: KubeliteProcess, ns: str) -> None:
    exits_1 = {"metadata": {"annotations": {"sim.kubelite.io/exit-code": "1", "sim.kubelite.io/run-time": "1s"}}}
    create(cluster, job_manifest("fails", ns, backoffLimit=0, template=exits_1))
    cluster.kubectl("wait", "--for=condition=failed", "job/fails", "-n", ns, "--timeout=45s")
    failed = job(cluster, ns, "fails")
    assert failed["status"]["failed"] == 1
    assert "succeeded" not in failed["status"] and "completionTime" not in failed["status"]
    message = "Job has reached the specified backoff limit"
    assert conditions(failed) == [
        ("FailureTarget", "True", "BackoffLimitExceeded", message),
        ("Failed", "True", "BackoffLimitExceeded", message),
    ]
    (pod,) = pods(cluster, ns, "fails")  # no retry past the limit
    assert pod["status"]["phase"] == "Failed"
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 1
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "fails")) == 2)
    assert events(cluster, ns, "Job", "fails") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}", "job-controller"),
        ("Warning", "BackoffLimitExceeded", message, "job-controller"),
    ]


def test_suspend_and_resume(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("sus", ns, suspend=True, template=runs_for("60s")))
    suspended = wait_for("Suspended", lambda: conditions(job(cluster, ns, "sus")) and job(cluster, ns, "sus"))
    assert conditions(suspended) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert "startTime" not in suspended["status"]
    time.sleep(0.5)
    assert pods(cluster, ns, "sus") == []

    cluster.kubectl("patch", "job", "sus", "-n", ns, "--type=merge", "-p", '{"spec":{"suspend":false}}')
    (pod,) = wait_for(
        "a pod running once resumed",
        lambda: [p for p in pods(cluster, ns, "sus") if p.get("status", {}).get("phase") == "Running"],
    )
    resumed = wait_for("Resumed", lambda: (j := job(cluster, ns, "sus")) and conditions(j)[0][1] == "False" and j)
    assert conditions(resumed) == [("Suspended", "False", "JobResumed", "Job resumed")]
    assert "startTime" in resumed["status"]

    cluster.kubectl("patch", "job", "sus", "-n", ns, "--type=merge", "-p", '{"spec":{"suspend":true}}')
    # a suspended Job's pods are stopped, uncounted: their finalizer goes first, then the pod
    wait_for("the pod gone", lambda: pods(cluster, ns, "sus") == [])
    again = wait_for(
        "Suspended again",
        lambda: (
            (j := job(cluster, ns, "sus"))
            and conditions(j)[0][1] == "True"
            and not j["status"].get("terminating")
            and j
        ),
    )
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
    create(cluster, job_manifest("slow", ns, activeDeadlineSeconds=2, template=runs_for("60s")))
    (pod,) = wait_for("the pod", lambda: pods(cluster, ns, "slow"))
    cluster.kubectl("wait", "--for=condition=failed", "job/slow", "-n", ns, "--timeout=45s")
    failed = job(cluster, ns, "slow")
    message = "Job was active longer than specified deadline"
    assert conditions(failed) == [
        ("FailureTarget", "True", "DeadlineExceeded", message),
        ("Failed", "True", "DeadlineExceeded", message),
    ]
    # the Failed condition waits for the stopped pod to end (kube's terminating count): then it goes
    assert failed["status"]["failed"] == 1 and failed["status"]["terminating"] == 0
    assert all(p["status"]["phase"] in ("Failed", "Succeeded") for p in pods(cluster, ns, "slow"))
    wait_for("the pod gone", lambda: pods(cluster, ns, "slow") == [])
    wait_for("the events", lambda: len(events(cluster, ns, "Job", "slow")) == 3)
    assert events(cluster, ns, "Job", "slow") == [
        ("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}", "job-controller"),
        ("Normal", "SuccessfulDelete", f"Deleted pod: {pod['metadata']['name']}", "job-controller"),
        ("Warning", "DeadlineExceeded", message, "job-controller"),
    ]


def test_ttl_seconds_after_finished_deletes_the_job_and_its_pods(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("ttl", ns, ttlSecondsAfterFinished=2))
    # the TTL counts from the Complete condition's time (whole seconds): the Job is seen complete first
    done = wait_for("complete", lambda: (j := job(cluster, ns, "ttl")) and ("Complete", "True") in
                    [c[:2] for c in conditions(j)] and j)  # fmt: skip
    assert done["spec"]["ttlSecondsAfterFinished"] == 2
    assert len(pods(cluster, ns, "ttl")) == 1
    wait_for("the job deleted", lambda: job(cluster, ns, "ttl") is None)
    wait_for("its pods deleted", lambda: pods(cluster, ns, "ttl") == [])


def test_a_deleted_jobs_pods_lose_the_tracking_finalizer_and_go(cluster: KubeliteProcess, ns: str) -> None:
    create(cluster, job_manifest("gone", ns, completions=2, parallelism=2, template=runs_for("60s")))
    wait_for("two pods", lambda: len(active_pods(cluster, ns, "gone")) == 2)
    # kubectl deletes in the background: the Job goes at once, the garbage collector deletes its pods, and
    # the Job controller takes its finalizer off each pod no Job accounts for any more
    cluster.kubectl("delete", "job", "gone", "-n", ns)
    wait_for("the pods gone", lambda: pods(cluster, ns, "gone") == [])


def test_a_job_adopts_an_orphan_its_selector_matches(cluster: KubeliteProcess, ns: str) -> None:
    stray = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "stray",
            "namespace": ns,
            "annotations": {"sim.kubelite.io/run-time": "1s"},
            "labels": {"app": "adopt-me"},
        },
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
    cluster.kubectl("wait", "--for=condition=complete", "job/adopter", "-n", ns, "--timeout=45s")
    # the adopted pod was the one completion: the Job made none of its own
    assert [p["metadata"]["name"] for p in pods(cluster, ns)] == ["stray"]
    assert job(cluster, ns, "adopter")["status"]["succeeded"] == 1


# ---- CronJobs: the controller in this process, on a FakeClock ----


def cronjob_manifest(name: str, ns: str, schedule: str, *, run_time: str = "1s", **spec: Any) -> dict[str, Any]:
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
                        **runs_for(run_time),
                        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]},
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


def wait_complete(proc: KubeliteProcess, ns: str, name: str) -> None:
    proc.kubectl("wait", "--for=condition=complete", f"job/{name}", "-n", ns, "--timeout=45s")


def test_a_cronjob_starts_a_job_named_after_its_scheduled_minute(cluster: KubeliteProcess, ns: str) -> None:
    created = create(cluster, cronjob_manifest("every", ns, "*/1 * * * *", run_time="60s"))
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
    created = create(cluster, cronjob_manifest("forbid", ns, "*/1 * * * *", run_time="4s", concurrencyPolicy="Forbid"))
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
        # once the run is over (its pod runs 4 s), the start time it held back is due: it starts late, as kube's does
        await asyncio.to_thread(wait_complete, cluster, ns, name)
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
    created = create(
        cluster, cronjob_manifest("replace", ns, "*/1 * * * *", run_time="60s", concurrencyPolicy="Replace")
    )
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
            await asyncio.to_thread(wait_complete, cluster, ns, name)
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
