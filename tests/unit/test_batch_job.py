"""One Job sync as data: NonIndexed and Indexed Jobs run to completion through finalizer-tracked counting,
backoff, the backoff limit, the active deadline, the pod failure policy, suspend, lowered parallelism, TTL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from kubelite.controllers.batch.job import (
    COMPLETION_INDEX_KEY,
    INDEX_FAILURE_COUNT_KEY,
    TRACKING_FINALIZER,
    JobSync,
    created_pod_event,
    format_indexes,
    parse_indexes,
    pod_failure_backoff,
    sync_job,
    ttl_expiry,
)

NOW = datetime.fromisoformat("2026-01-01T10:00:00+00:00")
TEMPLATE = {"metadata": {"labels": {"app": "pi"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "main"}]}}


def a_job(status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "ops", "uid": "job-uid"},
        "spec": {"completions": 3, "parallelism": 2, "backoffLimit": 6, "template": TEMPLATE, **spec},
        "status": status if status is not None else {},
    }


def a_pod(
    name: str,
    phase: str,
    *,
    index: int | None = None,
    exit_code: int | None = None,
    finished: str = "2026-01-01T09:59:00Z",
    ready: bool = False,
    node: str | None = None,
) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "metadata": {"name": name, "namespace": "ops", "uid": f"uid-{name}", "finalizers": [TRACKING_FINALIZER]},
        "spec": {},
        "status": {"phase": phase},
    }
    if index is not None:
        pod["metadata"]["annotations"] = {COMPLETION_INDEX_KEY: str(index)}
    if exit_code is not None:
        pod["status"]["containerStatuses"] = [
            {"name": "main", "state": {"terminated": {"exitCode": exit_code, "finishedAt": finished}}}
        ]
    if ready:
        pod["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def condition(type_: str, reason: str, message: str, status: str = "True") -> dict[str, Any]:
    return {
        "type": type_,
        "status": status,
        "lastProbeTime": "2026-01-01T10:00:00Z",
        "lastTransitionTime": "2026-01-01T10:00:00Z",
        "reason": reason,
        "message": message,
    }


COMPLETE = "Reached expected number of succeeded pods"


def test_a_new_job_creates_parallelism_pods_from_the_template() -> None:
    result = sync_job(a_job(), [], NOW)
    owner = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": "pi",
        "uid": "job-uid",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    expected_pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "generateName": "pi-",
            "namespace": "ops",
            "finalizers": [TRACKING_FINALIZER],
            "labels": {"app": "pi"},
            "ownerReferences": [owner],
        },
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main"}]},
    }
    assert result.pods_to_create == [expected_pod, expected_pod]
    assert result.status == {
        "startTime": "2026-01-01T10:00:00Z",
        "active": 2,
        "ready": 0,
        "terminating": 0,
        "uncountedTerminatedPods": {},
    }
    assert result.update_status and result.events == []
    assert created_pod_event("pi-x7k2q") == ("Normal", "SuccessfulCreate", "Created pod: pi-x7k2q")


def test_nonindexed_job_to_completion() -> None:
    # one pod done: its uid is recorded as uncounted, its finalizer removed, then it is counted; one more pod
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 2, "ready": 1, "terminating": 0})
    pods = [a_pod("a", "Succeeded"), a_pod("b", "Running", ready=True)]
    result = sync_job(job, pods, NOW)
    assert result.status_before_finalizers == {
        "startTime": "2026-01-01T09:50:00Z",
        "active": 2,
        "ready": 1,
        "terminating": 0,
        "uncountedTerminatedPods": {"succeeded": ["uid-a"]},
    }
    assert result.finalizers_to_remove == ["a"]
    assert len(result.pods_to_create) == 1
    assert result.status == {
        "startTime": "2026-01-01T09:50:00Z",
        "active": 2,
        "ready": 1,
        "terminating": 0,
        "uncountedTerminatedPods": {},
        "succeeded": 1,
    }
    # the last two finish: SuccessCriteriaMet first, then Complete with the completion time
    done = [a_pod("b", "Succeeded"), a_pod("c", "Succeeded")]
    result = sync_job(a_job(result.status), done, NOW)
    assert result.status["conditions"] == [
        condition("SuccessCriteriaMet", "CompletionsReached", COMPLETE),
        condition("Complete", "CompletionsReached", COMPLETE),
    ]
    assert (result.status["succeeded"], result.status["completionTime"]) == (3, "2026-01-01T10:00:00Z")
    assert result.events == [("Normal", "Completed", "Job completed")]
    assert result.finalizers_to_remove == ["b", "c"]


def test_a_job_without_completions_is_done_when_one_pod_succeeds_and_the_rest_stop() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "succeeded": 1}, completions=None)
    running = sync_job(job, [a_pod("b", "Running")], NOW)
    assert (running.pods_to_create, "conditions" in running.status) == ([], False)
    finished = sync_job(job, [], NOW)
    assert finished.events == [("Normal", "Completed", "Job completed")]


def test_indexed_job_pods_carry_their_index() -> None:
    result = sync_job(a_job(completionMode="Indexed"), [], NOW)
    first = result.pods_to_create[0]
    assert first["metadata"]["generateName"] == "pi-0-"
    assert first["metadata"]["annotations"] == {COMPLETION_INDEX_KEY: "0"}
    assert first["metadata"]["labels"] == {"app": "pi", COMPLETION_INDEX_KEY: "0"}
    assert first["spec"]["hostname"] == "pi-0"
    assert first["spec"]["containers"][0]["env"] == [
        {
            "name": "JOB_COMPLETION_INDEX",
            "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{COMPLETION_INDEX_KEY}']"}},
        }
    ]
    assert [p["metadata"]["generateName"] for p in result.pods_to_create] == ["pi-0-", "pi-1-"]


def test_indexed_job_to_completion() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 2}, completionMode="Indexed")
    result = sync_job(job, [a_pod("pi-0-a", "Running", index=0), a_pod("pi-1-a", "Succeeded", index=1)], NOW)
    assert result.status["completedIndexes"] == "1"
    assert result.status["succeeded"] == 1
    assert [p["metadata"]["annotations"][COMPLETION_INDEX_KEY] for p in result.pods_to_create] == ["2"]
    pods = [a_pod("pi-0-a", "Succeeded", index=0), a_pod("pi-2-a", "Succeeded", index=2)]
    result = sync_job(a_job(result.status, completionMode="Indexed"), pods, NOW)
    assert result.status["completedIndexes"] == "0-2"
    assert result.status["conditions"][-1] == condition("Complete", "CompletionsReached", COMPLETE)
    assert result.events == [("Normal", "Completed", "Job completed")]


def test_duplicate_and_out_of_range_indexes_are_deleted() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 3}, completionMode="Indexed")
    pods = [
        a_pod("pi-0-a", "Running", index=0),
        a_pod("pi-0-b", "Running", index=0),
        a_pod("pi-7-a", "Running", index=7),
    ]
    result = sync_job(job, pods, NOW)
    assert sorted(result.pods_to_delete) == ["pi-0-b", "pi-7-a"]
    assert result.pods_to_create == []


@pytest.mark.parametrize(
    ("indexes", "text"),
    [([], ""), ([1], "1"), ([5, 1, 3, 4], "1,3-5"), ([0, 1], "0,1"), ([0, 2, 4, 5, 6, 9], "0,2,4-6,9")],
)
def test_compressed_index_ranges(indexes: list[int], text: str) -> None:
    assert format_indexes(indexes) == text
    assert parse_indexes(text, 10) == set(indexes)


def test_parse_drops_indexes_past_completions() -> None:
    assert parse_indexes("1,3-5,8", 5) == {1, 3, 4}


def test_backoff_delays_double_to_ten_minutes() -> None:
    assert [pod_failure_backoff(n) for n in (0, 1, 2, 3, 6, 7, 20)] == [0.0, 10.0, 20.0, 40.0, 320.0, 600.0, 600.0]


def test_a_failed_pod_is_replaced_after_its_backoff() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 1}, completions=1, parallelism=1)
    pods = [a_pod("a", "Failed", exit_code=1, finished="2026-01-01T09:59:56Z")]
    waiting = sync_job(job, pods, NOW)
    assert (waiting.pods_to_create, waiting.requeue_after) == ([], 6.0)
    assert waiting.status["failed"] == 1
    later = sync_job(
        a_job(waiting.status, completions=1, parallelism=1),
        [a_pod("a", "Failed", exit_code=1, finished="2026-01-01T09:59:49Z")],
        NOW,
    )
    assert len(later.pods_to_create) == 1


def test_the_backoff_limit_fails_the_job_once_its_pods_are_gone() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 2}, backoffLimit=1)
    pods = [a_pod("a", "Failed", exit_code=1), a_pod("b", "Failed", exit_code=1), a_pod("c", "Running", ready=True)]
    result = sync_job(job, pods, NOW)
    target = condition("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    assert result.pods_to_delete == ["c"]
    assert result.events == [("Normal", "SuccessfulDelete", "Deleted pod: c")]
    assert result.status_before_finalizers is not None
    assert result.status_before_finalizers["uncountedTerminatedPods"] == {"failed": ["uid-a", "uid-b", "uid-c"]}
    assert result.status["conditions"] == [target]
    assert (
        result.status["failed"],
        result.status["terminating"],
        "active" in result.status,
    ) == (3, 1, False)
    # the deleted pod is gone: Failed, with the same reason, and the event
    result = sync_job(a_job(result.status, backoffLimit=1), [], NOW)
    assert result.status["conditions"] == [
        target,
        condition("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
    ]
    assert result.events == [("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]
    assert "completionTime" not in result.status


def test_the_active_deadline() -> None:
    job = a_job({"startTime": "2026-01-01T09:59:40Z", "active": 2}, activeDeadlineSeconds=30)
    pods = [a_pod("a", "Running"), a_pod("b", "Running")]
    before = sync_job(job, pods, NOW)
    assert (before.requeue_after, before.pods_to_delete) == (10.0, [])
    past = sync_job(a_job({"startTime": "2026-01-01T09:59:00Z", "active": 2}, activeDeadlineSeconds=30), pods, NOW)
    assert past.pods_to_delete == ["a", "b"]
    assert past.status["conditions"] == [
        condition("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline")
    ]
    gone = sync_job(a_job(past.status, activeDeadlineSeconds=30), [], NOW)
    assert gone.events == [("Warning", "DeadlineExceeded", "Job was active longer than specified deadline")]


POLICY = {
    "rules": [
        {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}},
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [42]}},
    ]
}


def test_pod_failure_policy_fail_job_on_an_exit_code() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 1}, podFailurePolicy=POLICY)
    result = sync_job(job, [a_pod("a", "Failed", exit_code=42), a_pod("b", "Running")], NOW)
    message = "Container main for pod ops/a failed with exit code 42 matching FailJob rule at index 0"
    assert result.status["conditions"] == [condition("FailureTarget", "PodFailurePolicy", message)]
    assert result.pods_to_delete == ["b"]
    done = sync_job(a_job(result.status, podFailurePolicy=POLICY), [], NOW)
    assert done.events == [("Warning", "PodFailurePolicy", message)]


def test_pod_failure_policy_ignore_does_not_count() -> None:
    disrupted = a_pod("a", "Failed", exit_code=1, finished="2026-01-01T09:59:59Z")
    disrupted["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True"}]
    job = a_job(
        {"startTime": "2026-01-01T09:50:00Z", "active": 1},
        completions=1,
        parallelism=1,
        backoffLimit=0,
        podFailurePolicy=POLICY,
    )
    result = sync_job(job, [disrupted], NOW)
    assert "failed" not in result.status and "conditions" not in result.status
    # an ignored failure is no reason to back off
    assert len(result.pods_to_create) == 1
    assert result.finalizers_to_remove == ["a"]


def test_pod_failure_policy_count_counts_towards_the_backoff_limit() -> None:
    job = a_job(
        {"startTime": "2026-01-01T09:50:00Z", "active": 1},
        completions=1,
        parallelism=1,
        backoffLimit=0,
        podFailurePolicy=POLICY,
    )
    result = sync_job(job, [a_pod("a", "Failed", exit_code=3)], NOW)
    message = "Job has reached the specified backoff limit"
    assert result.status["failed"] == 1
    # nothing left running: the interim and the final condition in the same sync
    assert result.status["conditions"] == [
        condition("FailureTarget", "BackoffLimitExceeded", message),
        condition("Failed", "BackoffLimitExceeded", message),
    ]
    assert result.status_before_finalizers is not None
    assert result.status_before_finalizers["conditions"] == [
        condition("FailureTarget", "BackoffLimitExceeded", message)
    ]
    assert result.events == [("Warning", "BackoffLimitExceeded", message)]


def test_pod_failure_policy_fail_job_on_a_pod_condition() -> None:
    policy = {"rules": [{"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue", "status": "True"}]}]}
    failed = a_pod("a", "Failed")
    failed["status"]["conditions"] = [{"type": "ConfigIssue", "status": "True"}]
    result = sync_job(a_job({"startTime": "2026-01-01T09:50:00Z"}, podFailurePolicy=policy), [failed], NOW)
    assert (
        result.status["conditions"][0]["message"]
        == "Pod ops/a has condition ConfigIssue matching FailJob rule at index 0"
    )


def test_suspend_deletes_the_active_pods_and_resume_restarts_the_clock() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 2, "ready": 1}, suspend=True)
    result = sync_job(job, [a_pod("a", "Running", ready=True), a_pod("b", "Pending")], NOW)
    assert sorted(result.pods_to_delete) == ["a", "b"]
    assert sorted(result.finalizers_to_remove) == ["a", "b"]
    assert result.status["conditions"] == [condition("Suspended", "JobSuspended", "Job suspended")]
    assert ("Normal", "Suspended", "Job suspended") in result.events
    assert (result.status.get("active", 0), result.status["ready"], result.status["terminating"]) == (0, 0, 2)
    resumed = sync_job(a_job(result.status, suspend=False), [], datetime.fromisoformat("2026-01-01T11:00:00+00:00"))
    assert resumed.status["conditions"][0]["status"] == "False"
    assert resumed.status["conditions"][0]["reason"] == "JobResumed"
    assert resumed.events == [("Normal", "Resumed", "Job resumed")]
    assert resumed.status["startTime"] == "2026-01-01T11:00:00Z"
    assert len(resumed.pods_to_create) == 2


def test_a_job_created_suspended_has_no_start_time() -> None:
    result = sync_job(a_job(suspend=True), [], NOW)
    assert "startTime" not in result.status and result.pods_to_create == []


def test_lowered_parallelism_deletes_the_least_advanced_pods_first() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 3}, completions=None, parallelism=1)
    pods = [
        a_pod("running", "Running", ready=True, node="n1"),
        a_pod("pending", "Pending", node="n1"),
        a_pod("unscheduled", "Pending"),
    ]
    result = sync_job(job, pods, NOW)
    assert result.pods_to_delete == ["unscheduled", "pending"]
    assert result.pods_to_create == []


def test_a_finished_job_only_releases_finalizers() -> None:
    finished = a_job({"conditions": [{"type": "Complete", "status": "True"}]})
    result = sync_job(finished, [a_pod("a", "Succeeded")], NOW)
    assert result == JobSync(status=finished["status"], finalizers_to_remove=["a"])


def test_ttl_after_finished() -> None:
    finished = a_job(
        {"conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": "2026-01-01T09:58:20Z"}]},
        ttlSecondsAfterFinished=60,
    )
    assert ttl_expiry(finished, NOW) == (True, None)
    finished["spec"]["ttlSecondsAfterFinished"] = 300
    assert ttl_expiry(finished, NOW) == (False, 200.0)
    assert ttl_expiry(a_job(ttlSecondsAfterFinished=0), NOW) == (False, None)
    assert ttl_expiry(a_job({"conditions": finished["status"]["conditions"]}), NOW) == (False, None)


def per_index_job(status: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return a_job(status, completions=2, parallelism=2, completionMode="Indexed", backoffLimitPerIndex=1, **spec)


def indexed_pod(name: str, phase: str, index: int, failures: int, **kwargs: Any) -> dict[str, Any]:
    pod = a_pod(name, phase, index=index, **kwargs)
    pod["metadata"]["annotations"][INDEX_FAILURE_COUNT_KEY] = str(failures)
    return pod


def test_per_index_retry_keeps_the_failed_pod_until_its_replacement_exists() -> None:
    job = per_index_job({"startTime": "2026-01-01T09:50:00Z", "active": 2})
    failed = indexed_pod("pi-0-a", "Failed", 0, 0, exit_code=1, finished="2026-01-01T09:59:00Z")
    result = sync_job(job, [failed, indexed_pod("pi-1-a", "Running", 1, 0)], NOW)
    assert [p["metadata"]["annotations"] for p in result.pods_to_create] == [
        {COMPLETION_INDEX_KEY: "0", INDEX_FAILURE_COUNT_KEY: "1"}
    ]
    assert result.finalizers_to_remove == []
    assert result.status["failedIndexes"] == ""
    # once the replacement runs, the failed pod is let go and counted
    replacement = indexed_pod("pi-0-b", "Running", 0, 1)
    result = sync_job(per_index_job(result.status), [failed, replacement, indexed_pod("pi-1-a", "Running", 1, 0)], NOW)
    assert result.finalizers_to_remove == ["pi-0-a"]
    assert result.status["failed"] == 1


def test_per_index_backoff_delays_the_replacement() -> None:
    job = per_index_job({"startTime": "2026-01-01T09:50:00Z", "active": 2})
    failed = indexed_pod("pi-0-a", "Failed", 0, 0, exit_code=1, finished="2026-01-01T09:59:56Z")
    result = sync_job(job, [failed, indexed_pod("pi-1-a", "Running", 1, 0)], NOW)
    assert (result.pods_to_create, result.requeue_after) == ([], 6.0)


def test_an_index_out_of_retries_fails_and_so_does_the_job_once_all_are_done() -> None:
    job = per_index_job({"startTime": "2026-01-01T09:50:00Z", "active": 2, "failed": 1, "failedIndexes": ""})
    pods = [indexed_pod("pi-0-b", "Failed", 0, 1, exit_code=1), indexed_pod("pi-1-a", "Running", 1, 0)]
    running = sync_job(job, pods, NOW)
    assert running.status["failedIndexes"] == "0"
    assert running.pods_to_create == [] and "conditions" not in running.status
    pods = [indexed_pod("pi-1-a", "Succeeded", 1, 0)]
    done = sync_job(per_index_job(running.status), pods, NOW)
    assert done.status["completedIndexes"] == "1"
    assert done.status["conditions"] == [
        condition("FailureTarget", "FailedIndexes", "Job has failed indexes"),
        condition("Failed", "FailedIndexes", "Job has failed indexes"),
    ]
    assert done.events == [("Warning", "FailedIndexes", "Job has failed indexes")]


def test_max_failed_indexes_fails_the_job_at_once() -> None:
    job = per_index_job({"startTime": "2026-01-01T09:50:00Z", "active": 2}, maxFailedIndexes=0)
    pods = [indexed_pod("pi-0-b", "Failed", 0, 1, exit_code=1), indexed_pod("pi-1-a", "Running", 1, 0)]
    result = sync_job(job, pods, NOW)
    message = "Job has exceeded the specified maximal number of failed indexes"
    assert result.status["conditions"] == [condition("FailureTarget", "MaxFailedIndexesExceeded", message)]
    assert result.pods_to_delete == ["pi-1-a"]


def test_pod_failure_policy_fail_index() -> None:
    policy = {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [42]}}]}
    job = per_index_job({"startTime": "2026-01-01T09:50:00Z", "active": 2}, podFailurePolicy=policy)
    pods = [indexed_pod("pi-0-a", "Failed", 0, 0, exit_code=42), indexed_pod("pi-1-a", "Running", 1, 0)]
    result = sync_job(job, pods, NOW)
    assert result.status["failedIndexes"] == "0"
    assert result.pods_to_create == []


def test_a_job_being_deleted_releases_every_finalizer_and_makes_no_pods() -> None:
    job = a_job({"startTime": "2026-01-01T09:50:00Z", "active": 2})
    job["metadata"]["deletionTimestamp"] = "2026-01-01T09:59:59Z"
    result = sync_job(job, [a_pod("a", "Running"), a_pod("b", "Succeeded")], NOW)
    assert (result.pods_to_create, result.pods_to_delete) == ([], [])
    assert result.finalizers_to_remove == ["a", "b"]
    assert result.status["succeeded"] == 1 and "failed" not in result.status


def test_long_names_leave_room_for_the_index_and_the_random_suffix() -> None:
    name = "a" * 70
    job = a_job(completionMode="Indexed", completions=12, parallelism=12)
    job["metadata"]["name"] = name
    generated = [p["metadata"]["generateName"] for p in sync_job(job, [], NOW).pods_to_create]
    assert generated[0] == "a" * 55 + "-0-" and generated[11] == "a" * 54 + "-11-"
    assert sync_job(a_job(), [], NOW).pods_to_create[0]["metadata"]["generateName"] == "pi-"
