"""The Job loop's writes, in kube's order, on stand-in clients: one reconcile at a time, read back as calls."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.controllers.batch.job import TRACKING_FINALIZER
from kubelite.controllers.batch.job_controller import REMOVE_FINALIZER_PATCH, JobController
from kubelite.controllers.batch.loop_support import EXPECTATIONS_TTL_SECONDS
from tests.unit.controllers.batch.support import Call, StubRecorder, StubResource, clients, run, server_error

KEY = "ns/j"
REMOVE = ("strategic", REMOVE_FINALIZER_PATCH)
SELECTED = {"batch.kubernetes.io/controller-uid": "job-uid"}


def make_job(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ns", "uid": "job-uid", "resourceVersion": "10"},
        "spec": {
            "completions": 1,
            "parallelism": 1,
            "selector": {"matchLabels": SELECTED},
            "backoffLimit": 6,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}},
            **spec,
        },
        "status": {"startTime": "2023-11-14T22:13:00Z"},
    }


def make_pod(name: str, phase: str = "Running") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "resourceVersion": "3",
            "creationTimestamp": "2023-11-14T22:13:00Z",
            "labels": dict(SELECTED),
            "finalizers": [TRACKING_FINALIZER],
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "job-uid", "controller": True}
            ],
        },
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": phase},
    }


class Harness:
    def __init__(self, job: dict[str, Any], pods: list[dict[str, Any]]) -> None:
        self.clock = FakeClock(1_000.0, wall_offset=1_700_000_000.0 - 1_000.0)
        self.loop = JobController(clients(self.clock))
        self.calls: list[Call] = []
        self.jobs = StubResource(self.calls)
        self.pods = StubResource(self.calls)
        self.recorder = StubRecorder()
        self.loop.job_client = self.jobs  # type: ignore[assignment]
        self.loop.pod_client = self.pods  # type: ignore[assignment]
        self.loop.recorder = self.recorder  # type: ignore[assignment]
        self.loop.jobs.indexer.add(job)
        for pod in pods:
            self.loop.pods.indexer.add(pod)

    def reconcile(self) -> float | None:
        async def body() -> float | None:
            return await self.loop.reconcile(KEY)

        result: float | None = run(body)
        return result


def verbs(calls: list[Call]) -> list[tuple[str, str]]:
    return [(verb, name) for verb, name, _ in calls]


def test_a_succeeded_pod_is_named_uncounted_then_loses_its_finalizer_then_is_counted() -> None:
    harness = Harness(make_job(), [make_pod("p0", "Succeeded")])
    assert harness.reconcile() is None
    assert verbs(harness.calls) == [("status", "j"), ("patch", "p0"), ("status", "j")]
    before, removal, after = (detail for _, _, detail in harness.calls)
    assert before["uncountedTerminatedPods"] == {"succeeded": ["uid-p0"]}
    assert "succeeded" not in before
    assert removal == REMOVE
    assert after["succeeded"] == 1 and after["uncountedTerminatedPods"] == {}
    assert [c["type"] for c in after["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    assert harness.recorder.events == [("Job", "Normal", "Completed", "Job completed")]


def test_the_next_sync_waits_for_the_cache_to_show_the_status_and_the_removed_finalizer() -> None:
    harness = Harness(make_job(), [make_pod("p0", "Succeeded")])
    harness.reconcile()
    written = harness.calls[-1][2]
    harness.calls.clear()
    # the cached Job is still the one the sync wrote over: nothing is done again (the pod would count twice)
    assert harness.reconcile() is None
    assert harness.calls == []
    job = make_job()
    job["metadata"]["resourceVersion"] = "101"
    job["status"] = written
    harness.loop.jobs.indexer.update(job)
    # the Job is current, the pod still shows its finalizer
    assert harness.reconcile() == EXPECTATIONS_TTL_SECONDS
    assert harness.calls == []
    pod = make_pod("p0", "Succeeded")
    old = dict(pod)
    pod["metadata"] = {**pod["metadata"], "resourceVersion": "4"}
    del pod["metadata"]["finalizers"]
    harness.loop.pods.indexer.update(pod)
    harness.loop._pod_updated(old, pod)
    assert harness.reconcile() is None
    assert harness.calls == []


def test_pods_created_are_awaited_before_the_job_is_synced_again() -> None:
    harness = Harness(make_job(completions=2, parallelism=2), [])
    harness.reconcile()
    creates = [name for verb, name, _ in harness.calls if verb == "create"]
    assert creates == ["j-0", "j-1"]
    assert ("Job", "Normal", "SuccessfulCreate", "Created pod: j-0") in harness.recorder.events
    status = harness.calls[-1][2]
    assert status["active"] == 2
    job = make_job(completions=2, parallelism=2)
    job["metadata"]["resourceVersion"] = "100"  # the cache caught up with the status
    harness.loop.jobs.indexer.update(job)
    harness.calls.clear()
    assert harness.reconcile() == EXPECTATIONS_TTL_SECONDS
    assert harness.calls == []
    # the informer brings the two pods: the expectations are met and the sync runs (and has nothing to do)
    for name in creates:
        pod = make_pod(name, "Pending")
        harness.loop.pods.indexer.add(pod)
        harness.loop._pod_added(pod)
    job["status"] = {**job["status"], **status}
    harness.loop.jobs.indexer.update(job)
    assert harness.reconcile() is None
    assert harness.calls == []


def test_a_pod_removed_while_the_job_runs_loses_its_finalizer_before_it_is_deleted() -> None:
    harness = Harness(make_job(suspend=True), [make_pod("p0")])
    harness.reconcile()
    assert verbs(harness.calls) == [("patch", "p0"), ("delete", "p0"), ("status", "j")]
    status = harness.calls[-1][2]
    assert "failed" not in status and "active" not in status and status["uncountedTerminatedPods"] == {}
    assert status["terminating"] == 1
    assert [e[2:] for e in harness.recorder.events] == [
        ("SuccessfulDelete", "Deleted pod: p0"),
        ("Suspended", "Job suspended"),
    ]


def test_a_failing_jobs_active_pods_are_deleted_counted_and_then_released() -> None:
    harness = Harness(make_job(activeDeadlineSeconds=1), [make_pod("p0")])
    harness.reconcile()
    # deleted with the finalizer on, named as failed, released, then counted
    assert verbs(harness.calls) == [("delete", "p0"), ("status", "j"), ("patch", "p0"), ("status", "j")]
    assert harness.calls[1][2]["uncountedTerminatedPods"] == {"failed": ["uid-p0"]}
    assert harness.calls[3][2]["failed"] == 1


def test_a_finalizer_that_cannot_be_removed_keeps_the_pod_uncounted() -> None:
    harness = Harness(make_job(), [make_pod("p0", "Succeeded")])
    harness.pods.failing[("patch", "p0")] = server_error("etcd is down")
    with pytest.raises(Exception, match="etcd is down"):
        harness.reconcile()
    # the uncounted status was written; the one counting the pod (and completing the Job) was not
    assert verbs(harness.calls) == [("status", "j"), ("patch", "p0")]
    assert harness.recorder.events == []
    # nothing is awaited for the failed removal: the retry may run as soon as the cache has the status
    assert not harness.loop.finalizers.pending(KEY, harness.clock.monotonic())


def test_a_failed_create_is_an_event_and_its_status_is_left_to_the_retry() -> None:
    harness = Harness(make_job(completions=2, parallelism=2), [])
    harness.pods.failing[("create", "j-0")] = server_error("quota exceeded")
    with pytest.raises(Exception, match="quota exceeded"):
        harness.reconcile()
    # slow start: the first batch of one failed, so the second pod was never tried
    assert verbs(harness.calls) == [("create", "j-0")]
    assert harness.recorder.events == [("Job", "Warning", "FailedCreate", "Error creating: quota exceeded")]
    assert harness.loop.expectations.satisfied(KEY, harness.clock.monotonic())


def test_a_missing_jobs_pods_lose_their_finalizer() -> None:
    harness = Harness(make_job(), [make_pod("p0")])
    harness.loop.jobs.indexer.delete(make_job())
    assert harness.reconcile() is None
    assert harness.calls == [("patch", "p0", REMOVE)]


def test_an_orphan_pod_with_the_finalizer_loses_it_and_one_whose_job_exists_keeps_it() -> None:
    orphan = make_pod("orphan")
    orphan["metadata"]["ownerReferences"] = []
    harness = Harness(make_job(), [orphan, make_pod("p0")])

    async def body() -> None:
        await harness.loop.reconcile("orphan-pod:ns/orphan")
        await harness.loop.reconcile("orphan-pod:ns/p0")

    run(body)
    assert harness.calls == [("patch", "orphan", REMOVE)]


def test_a_failed_pod_is_replaced_only_after_the_backoff_and_the_sync_returns_when() -> None:
    failed = make_pod("p0", "Failed")
    failed["status"]["containerStatuses"] = [
        {"name": "c", "state": {"terminated": {"exitCode": 1, "finishedAt": "2023-11-14T22:13:17Z"}}}
    ]
    # the clock reads 22:13:20: three of the first failure's ten seconds have passed
    harness = Harness(make_job(), [failed])
    assert harness.reconcile() == 7.0
    assert [(verb, name) for verb, name, _ in harness.calls] == [("status", "j"), ("patch", "p0"), ("status", "j")]
    assert harness.calls[-1][2]["failed"] == 1
    assert not any(verb == "create" for verb, _, _ in harness.calls)


def test_an_orphan_the_selector_matches_is_adopted_with_the_finalizer_and_counted() -> None:
    orphan = make_pod("stray", "Succeeded")
    orphan["metadata"]["ownerReferences"] = []
    orphan["metadata"]["finalizers"] = []
    unrelated = make_pod("other")
    unrelated["metadata"]["ownerReferences"] = []
    unrelated["metadata"]["labels"] = {"app": "else"}
    harness = Harness(make_job(), [orphan, unrelated])
    harness.jobs.objects["j"] = make_job()
    adopted = make_pod("stray", "Succeeded")  # what the patch returns: owned, with the finalizer
    harness.pods.patch = _answering(harness.pods, {"stray": adopted})  # type: ignore[method-assign]
    harness.reconcile()
    assert harness.calls[0] == ("get", "j", None)  # the Job read again before adopting
    verb, name, (patch_type, patch) = harness.calls[1]
    assert (verb, name, patch_type) == ("patch", "stray", "strategic")
    assert patch == {
        "metadata": {
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": "j",
                    "uid": "job-uid",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "uid": "uid-stray",
            "finalizers": [TRACKING_FINALIZER],
        }
    }
    # the adopted pod's success completes the Job: no pod is created for it
    assert not any(verb == "create" for verb, _, _ in harness.calls)
    assert harness.calls[-1][2]["succeeded"] == 1


def test_a_job_being_deleted_adopts_nothing() -> None:
    orphan = make_pod("stray")
    orphan["metadata"]["ownerReferences"] = []
    harness = Harness(make_job(), [orphan])
    harness.jobs.objects["j"] = {**make_job(), "metadata": {**make_job()["metadata"], "deletionTimestamp": "x"}}
    harness.reconcile()
    assert ("get", "j", None) in harness.calls
    assert not any(verb == "patch" and name == "stray" for verb, name, _ in harness.calls)


def test_an_owned_pod_the_selector_no_longer_matches_is_released() -> None:
    moved = make_pod("moved")
    moved["metadata"]["labels"] = {"app": "elsewhere"}
    harness = Harness(make_job(), [moved])
    harness.reconcile()
    verb, name, (patch_type, patch) = harness.calls[0]
    assert (verb, name, patch_type) == ("patch", "moved", "strategic")
    assert patch == {
        "metadata": {
            "ownerReferences": [{"$patch": "delete", "uid": "job-uid"}],
            "$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER],
            "uid": "uid-moved",
        }
    }
    # released, it is not the Job's: a pod of its own is created
    assert any(verb == "create" for verb, _, _ in harness.calls)


def _answering(stub: StubResource, answers: dict[str, dict[str, Any]]) -> Any:
    original = stub.patch

    async def patch(name: str, body: Any, *, patch_type: str = "merge") -> dict[str, Any]:
        await original(name, body, patch_type=patch_type)
        return answers.get(name) or {"metadata": {"name": name}}

    return patch
