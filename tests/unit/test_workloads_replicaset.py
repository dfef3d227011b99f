"""One ReplicaSet sync: scale up within burstReplicas, scale down by rank, adopt and release, expectations, the
status counts with minReadySeconds on the clock, the ReplicaFailure condition, and kube's event texts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.controllers.workloads.actions import STRATEGIC_MERGE_PATCH, Action, Event
from kubelite.controllers.workloads.replicaset import (
    create_failed_event,
    created_event,
    delete_failed_event,
    replica_set_status,
    status_update,
    sync_replica_set,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
RS_REF = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "name": "web",
    "uid": "rs-uid",
    "controller": True,
    "blockOwnerDeletion": True,
}


def replica_set(replicas: int = 3, *, min_ready: int = 0, generation: int = 1, status: Obj | None = None) -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web", "namespace": "default", "uid": "rs-uid", "generation": generation},
        "spec": {
            "replicas": replicas,
            "minReadySeconds": min_ready,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web", "tier": "front"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
        "status": status or {},
    }


def pod(
    name: str,
    *,
    owned: bool = True,
    labels: dict[str, str] | None = None,
    ready_since: datetime | None = None,
    node: str = "n1",
    phase: str = "Running",
    deleting: bool = False,
    owner_uid: str = "rs-uid",
) -> Obj:
    meta: Obj = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "labels": labels if labels is not None else {"app": "web", "tier": "front"},
        "creationTimestamp": rfc3339(NOW - timedelta(hours=1)),
    }
    if owned:
        meta["ownerReferences"] = [{**RS_REF, "uid": owner_uid}]
    if deleting:
        meta["deletionTimestamp"] = rfc3339(NOW)
    conditions = []
    if ready_since is not None:
        conditions = [{"type": "Ready", "status": "True", "lastTransitionTime": rfc3339(ready_since)}]
    return {"metadata": meta, "spec": {"nodeName": node}, "status": {"phase": phase, "conditions": conditions}}


def ready(name: str, **kwargs: object) -> Obj:
    return pod(name, ready_since=NOW - timedelta(minutes=10), **kwargs)  # type: ignore[arg-type]


def test_scale_up_creates_the_missing_pods_from_the_template() -> None:
    result = sync_replica_set(replica_set(3), [ready("web-a")], now=NOW)
    assert result.expect_creations == 2
    assert result.create_count == 2
    assert result.create[0] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "generateName": "web-",
            "namespace": "default",
            "labels": {"app": "web", "tier": "front"},
            "ownerReferences": [RS_REF],
        },
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    assert result.delete == []
    assert result.status == {
        "replicas": 1,
        "fullyLabeledReplicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "terminatingReplicas": 0,
        "observedGeneration": 1,
    }


def test_scale_up_is_capped_at_burst_replicas() -> None:
    result = sync_replica_set(replica_set(1200), [], now=NOW)
    assert result.expect_creations == 500
    assert result.create_count == 500
    assert sync_replica_set(replica_set(10), [], now=NOW, burst_replicas=4).create_count == 4


def test_nothing_is_written_while_expectations_are_pending() -> None:
    result = sync_replica_set(replica_set(3), [], now=NOW, needs_sync=False)
    assert result.create == [] and result.delete == [] and result.expect_creations == 0
    assert result.status is not None and result.status["replicas"] == 0


def test_a_replica_set_being_deleted_does_not_manage_replicas() -> None:
    rs = replica_set(3)
    rs["metadata"]["deletionTimestamp"] = rfc3339(NOW)
    result = sync_replica_set(rs, [], now=NOW)
    assert result.create == []


def test_scale_down_deletes_the_lowest_ranked_pods_with_events() -> None:
    pods = [
        ready("web-old"),
        pod("web-unready"),
        ready("web-fresh", node="n2"),
        pod("web-pending", phase="Pending", node=""),
    ]
    result = sync_replica_set(replica_set(2), pods, now=NOW)
    assert [a.name for a in result.delete] == ["web-pending", "web-unready"]
    assert result.delete[0] == Action("delete", "pods", "default", "web-pending", preconditions_uid="uid-web-pending")
    assert result.expect_deletions == ["default/web-pending", "default/web-unready"]
    assert result.delete_events == [
        Event("Normal", "SuccessfulDelete", "Deleted pod: web-pending"),
        Event("Normal", "SuccessfulDelete", "Deleted pod: web-unready"),
    ]
    assert result.create == []


def test_scale_to_zero_deletes_every_pod_without_ranking() -> None:
    pods = [ready("web-b"), ready("web-a")]
    result = sync_replica_set(replica_set(0), pods, now=NOW)
    assert [a.name for a in result.delete] == ["web-b", "web-a"]


def test_orphans_that_match_are_adopted_and_counted() -> None:
    orphan = ready("stray", owned=False)
    other = ready("theirs", owner_uid="other-uid")
    unmatched = ready("other-app", owned=False, labels={"app": "db"})
    result = sync_replica_set(replica_set(2), [ready("web-a"), orphan, other, unmatched], now=NOW)
    assert result.adopt == [
        Action(
            "patch",
            "pods",
            "default",
            "stray",
            {"metadata": {"ownerReferences": [RS_REF], "uid": "uid-stray"}},
            STRATEGIC_MERGE_PATCH,
        )
    ]
    assert [p["metadata"]["name"] for p in result.claimed] == ["web-a", "stray"]
    assert result.create == [] and result.delete == []


def test_owned_pods_that_no_longer_match_are_released() -> None:
    relabelled = ready("web-x", labels={"app": "debug"})
    result = sync_replica_set(replica_set(1), [ready("web-a"), relabelled], now=NOW)
    assert result.release == [
        Action(
            "patch",
            "pods",
            "default",
            "web-x",
            {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": "rs-uid"}], "uid": "uid-web-x"}},
            STRATEGIC_MERGE_PATCH,
        )
    ]
    assert result.create == [] and result.delete == []


def test_deleting_orphans_are_not_adopted_and_terminating_pods_are_counted() -> None:
    pods = [ready("web-a"), ready("stray", owned=False, deleting=True), ready("web-going", deleting=True)]
    result = sync_replica_set(replica_set(1), pods, now=NOW)
    assert result.adopt == []
    assert result.status is not None
    assert result.status["replicas"] == 1
    assert result.status["terminatingReplicas"] == 1


def test_status_counts_fully_labeled_ready_and_available_on_the_clock() -> None:
    pods = [
        pod("web-a", ready_since=NOW - timedelta(seconds=5)),
        pod("web-b", ready_since=NOW - timedelta(seconds=30)),
        pod("web-c", labels={"app": "web"}),
    ]
    rs = replica_set(3, min_ready=10)
    result = sync_replica_set(rs, pods, now=NOW)
    assert result.status == {
        "replicas": 3,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 1,
        "terminatingReplicas": 0,
        "observedGeneration": 1,
    }
    assert result.requeue_after is None  # not every replica is ready yet
    all_ready = [pod(f"web-{i}", ready_since=NOW - timedelta(seconds=5)) for i in "abc"]
    assert sync_replica_set(rs, all_ready, now=NOW).requeue_after == 10.0
    later = sync_replica_set(rs, all_ready, now=NOW + timedelta(seconds=5))
    assert later.status is not None and later.status["availableReplicas"] == 3


def test_an_unchanged_status_is_not_written() -> None:
    status = {
        "replicas": 1,
        "fullyLabeledReplicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "terminatingReplicas": 0,
        "observedGeneration": 1,
    }
    assert sync_replica_set(replica_set(1, status=status), [ready("web-a")], now=NOW).status is None
    # a new generation is observed even when the counts agree
    result = sync_replica_set(replica_set(1, generation=2, status=status), [ready("web-a")], now=NOW)
    assert result.status is not None and result.status["observedGeneration"] == 2


def test_replica_failure_is_set_on_a_failed_create_and_removed_after() -> None:
    rs = replica_set(3)
    failed = replica_set_status(rs, [ready("web-a")], [], 'pods "web-" is forbidden: exceeded quota', NOW)
    assert failed["conditions"] == [
        {
            "type": "ReplicaFailure",
            "status": "True",
            "lastTransitionTime": rfc3339(NOW),
            "reason": "FailedCreate",
            "message": 'pods "web-" is forbidden: exceeded quota',
        }
    ]
    rs["status"] = failed
    # while the failure lasts the condition stays as first recorded
    again = replica_set_status(rs, [ready("web-a")], [], "other", NOW + timedelta(minutes=1))
    assert again["conditions"] == failed["conditions"]
    healed = replica_set_status(rs, [ready("web-a")], [], None, NOW)
    assert "conditions" not in healed
    over = replica_set_status(replica_set(0), [ready("web-a")], [], "delete failed", NOW)
    assert over["conditions"][0]["reason"] == "FailedDelete"


def test_event_texts() -> None:
    assert created_event("web-7x2kq") == Event("Normal", "SuccessfulCreate", "Created pod: web-7x2kq")
    assert create_failed_event("quota") == Event("Warning", "FailedCreate", "Error creating: quota")
    assert delete_failed_event("gone") == Event("Warning", "FailedDelete", "Error deleting: gone")


def test_status_update_puts_the_whole_object_with_the_new_status() -> None:
    rs = replica_set(1)
    action = status_update(rs, {"replicas": 1})
    assert action.verb == "update_status" and action.resource == "replicasets" and action.name == "web"
    assert action.obj["status"] == {"replicas": 1}
    assert rs["status"] == {}
