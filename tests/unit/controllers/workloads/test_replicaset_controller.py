"""The ReplicaSet loop without a server: which changes sync which owner, what expectations hold it back,
and how one reconcile carries its decision out (slow-start creates that stop at a failure, deletions, the
adoption recheck, the status with ReplicaFailure, the events)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.errors import Forbidden, NotFound
from kubelite.controllers.workloads.replicaset_controller import (
    REPLICATION_CONTROLLER,
    ReplicaSetController,
    SyncError,
    as_encoded,
    selector_of,
)
from tests.unit.controllers.workloads.fakes import FakeRecorder, FakeResource, clients, pod, ready, replica_set, run


def build(kind: Any = None) -> tuple[ReplicaSetController, FakeResource, FakeResource, FakeRecorder]:
    controller = ReplicaSetController(clients()) if kind is None else ReplicaSetController(clients(), kind)
    owners, pods, recorder = FakeResource("owners"), FakeResource("pods"), FakeRecorder()
    controller.owner_client = owners  # type: ignore[assignment]
    controller.pod_client = pods  # type: ignore[assignment]
    controller.recorder = recorder  # type: ignore[assignment]
    return controller, owners, pods, recorder


async def queued(controller: ReplicaSetController) -> list[str]:
    queue = controller.controller.queue
    keys = [await queue.get() for _ in range(len(queue))]
    for key in keys:
        queue.done(key)
    return keys


def forbidden(message: str) -> Forbidden:
    return Forbidden({"kind": "Status", "code": 403, "reason": "Forbidden", "message": message})


# -- handlers ---------------------------------------------------------------------------------------------


def test_a_pod_syncs_its_controller_and_an_orphan_every_selecting_owner() -> None:
    async def body() -> None:
        c, *_ = build()
        a, b = replica_set("a"), replica_set("b")
        b["spec"]["selector"] = {"matchLabels": {"tier": "web"}}
        empty = replica_set("empty")
        empty["spec"]["selector"] = {}
        for rs in (a, b, empty):
            c.owners.indexer.add(rs)
        c._add_pod(pod("p1", {"app": "a"}, a))
        assert await queued(c) == ["default/a"]
        stale = replica_set("a", uid="another")
        c._add_pod(pod("p2", {"app": "a"}, stale))  # names a ReplicaSet of that name, but not this one
        assert await queued(c) == []
        c._add_pod(pod("orphan", {"app": "a", "tier": "web"}))
        assert sorted(await queued(c)) == ["default/a", "default/b"]  # never the one with an empty selector

    run(body)


def test_creations_and_deletions_are_observed_once_each() -> None:
    async def body() -> None:
        c, *_ = build()
        rs = replica_set("a")
        c.owners.indexer.add(rs)
        c.expectations.expect_creations("default/a", 2, 0.0)
        c._add_pod(pod("p1", {"app": "a"}, rs))
        assert c.expectations.get("default/a") == (1, 0)
        orphan = pod("p3", {"app": "a"})
        c._add_pod(orphan)  # nobody waits for an orphan
        assert c.expectations.get("default/a") == (1, 0)

        c.expectations.expect_deletions_of("default/a", ["default/p1"], 0.0)
        live = pod("p1", {"app": "a"}, rs)
        terminating = pod("p1", {"app": "a"}, rs, deletionTimestamp="2027-01-15T08:01:00Z", resourceVersion="6")
        c._update_pod(live, terminating)  # graceful deletion counts...
        c._delete_pod(terminating)  # ...and the final delete does not count again
        assert c.expectations.get("default/a") == (0, 0)
        c._delete_pod(pod("other", {"app": "a"}, rs))  # a deletion this controller did not ask for
        assert c.expectations.get("default/a") == (0, 0)
        c._delete_owner(rs)
        assert c.expectations.get("default/a") is None

    run(body)


def test_a_pod_turning_ready_is_looked_at_again_after_min_ready_seconds() -> None:
    async def body() -> None:
        c, *_ = build()
        rs = replica_set("a", minReadySeconds=10)
        c.owners.indexer.add(rs)
        p = pod("p1", {"app": "a"}, rs)
        c._update_pod(p, ready(p))
        assert await queued(c) == ["default/a"]
        assert c.controller.queue.waiting() == 1
        c._update_pod(p, p)  # a resync: same resourceVersion
        assert await queued(c) == []

    run(body)


def test_a_relabelled_orphan_and_a_changed_controller_sync_both_sides() -> None:
    async def body() -> None:
        c, *_ = build()
        a, b = replica_set("a"), replica_set("b")
        c.owners.indexer.add(a)
        c.owners.indexer.add(b)
        before = pod("p", {"app": "a"}, a)
        after = pod("p", {"app": "b"}, b, resourceVersion="6")
        c._update_pod(before, after)
        assert await queued(c) == ["default/a", "default/b"]
        released = pod("p", {"app": "b"}, resourceVersion="7")
        c._update_pod(after, released)
        assert await queued(c) == ["default/b"]

    run(body)


def test_a_replication_controller_is_a_replica_set_with_a_plain_selector() -> None:
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc", "namespace": "default", "uid": "uid-rc"},
        "spec": {"replicas": 1, "selector": {"app": "rc"}},
    }
    assert selector_of(rc, REPLICATION_CONTROLLER).matches({"app": "rc", "x": "y"})
    assert not selector_of(rc, REPLICATION_CONTROLLER).matches({"app": "other"})
    rc["spec"]["selector"] = {}
    assert not selector_of(rc, REPLICATION_CONTROLLER).matches({"app": "rc"})


def test_status_goes_on_the_wire_as_kube_encodes_it() -> None:
    obj = {"metadata": {"name": "a"}, "status": {"replicas": 0, "readyReplicas": 0, "terminatingReplicas": 0}}
    assert as_encoded("replicasets", obj)["status"] == {"replicas": 0, "terminatingReplicas": 0}
    assert as_encoded("deployments", obj)["status"] == {"terminatingReplicas": 0}


# -- reconcile ----------------------------------------------------------------------------------------------


def test_missing_pods_are_created_in_slow_start_batches_and_the_status_written() -> None:
    async def body() -> None:
        c, owners, pods, recorder = build()
        c.owners.indexer.add(replica_set("a", 3))
        assert await c.reconcile("default/a") is None
        assert [verb for verb, _ in pods.verbs()] == ["create"] * 3
        created = pods.calls[0][2]
        assert created["metadata"]["generateName"] == "a-"
        assert created["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert [e[2:] for e in recorder.events] == [("SuccessfulCreate", f"Created pod: a-0000{i}") for i in range(3)]
        assert c.expectations.get("default/a") == (3, 0)
        [(verb, name, written)] = owners.calls
        assert (verb, name) == ("update_status", "a")
        assert written["status"] == {"replicas": 0, "observedGeneration": 1, "terminatingReplicas": 0}

        # the informer has seen none of the new pods yet: the next sync creates nothing more
        pods.calls.clear()
        await c.reconcile("default/a")
        assert pods.calls == []

    run(body)


def test_a_failed_create_stops_the_slow_start_and_sets_replica_failure() -> None:
    async def body() -> None:
        c, owners, pods, recorder = build()
        c.owners.indexer.add(replica_set("a", 7))
        message = 'pods "a-00001" is forbidden: exceeded quota: pods'
        count = [0]

        def second_fails(verb: str, name: str | None, body: Any) -> BaseException | None:
            if verb == "create":
                count[0] += 1
                if count[0] == 2:
                    return forbidden(message)
            return None

        pods.fail = second_fails
        with pytest.raises(SyncError, match="exceeded quota"):
            await c.reconcile("default/a")
        # batches of 1 then 2: the second batch had the failure, so the batch of 4 never ran
        assert len(pods.calls) == 3
        assert sorted(e[2] for e in recorder.events) == ["FailedCreate", "SuccessfulCreate", "SuccessfulCreate"]
        assert ("a", "Warning", "FailedCreate", f"Error creating: {message}") in recorder.events
        assert c.expectations.get("default/a") == (2, 0)  # the five never made are not waited for
        status = owners.calls[-1][2]["status"]
        assert [(f["type"], f["status"], f["reason"], f["message"]) for f in status["conditions"]] == [
            ("ReplicaFailure", "True", "FailedCreate", message)
        ]

    run(body)


def test_surplus_pods_are_deleted_lowest_ranked_first() -> None:
    async def body() -> None:
        c, _, pods, recorder = build()
        rs = replica_set("a", 1)
        c.owners.indexer.add(rs)
        running = ready(pod("running", {"app": "a"}, rs))
        c.pods.indexer.add(running)
        c.pods.indexer.add(pod("pending", {"app": "a"}, rs))
        c.pods.indexer.add(pod("gone", {"app": "a"}, rs, creationTimestamp="2027-01-15T08:00:01Z"))
        pods.fail = lambda verb, name, body: NotFound({"code": 404, "reason": "NotFound"}) if name == "gone" else None
        await c.reconcile("default/a")
        assert sorted(pods.verbs()) == [("delete", "gone"), ("delete", "pending")]
        assert pods.calls[0][2] == {"preconditions": {"uid": f"uid-{pods.calls[0][1]}"}}
        assert recorder.events == [("a", "Normal", "SuccessfulDelete", "Deleted pod: pending")]
        # the pod already gone is not waited for; the other one is
        assert c.expectations.get("default/a") == (0, 1)

    run(body)


def test_orphans_are_adopted_after_rereading_the_owner() -> None:
    async def body() -> None:
        c, owners, pods, _ = build()
        rs = replica_set("a", 1)
        c.owners.indexer.add(rs)
        c.pods.indexer.add(pod("stray", {"app": "a"}))
        owners.objects["a"] = rs
        await c.reconcile("default/a")
        assert owners.calls[0][:2] == ("get", "a")
        [(verb, name, sent)] = pods.calls
        assert (verb, name, sent["patch_type"]) == ("patch", "stray", "strategic")
        assert sent["patch"]["metadata"]["uid"] == "uid-stray"
        assert sent["patch"]["metadata"]["ownerReferences"][0]["uid"] == "uid-a"

        # being deleted meanwhile: no adoption, and the sync is retried
        pods.calls.clear()
        owners.objects["a"] = {**rs, "metadata": {**rs["metadata"], "deletionTimestamp": "2027-01-15T08:02:00Z"}}
        with pytest.raises(SyncError, match="has just been deleted at 2027-01-15T08:02:00Z"):
            await c.reconcile("default/a")
        assert pods.calls == []

    run(body)


def test_a_replication_controller_status_has_no_terminating_count() -> None:
    async def body() -> None:
        c, owners, pods, recorder = build(REPLICATION_CONTROLLER)
        rc = {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "rc", "namespace": "default", "uid": "uid-rc", "generation": 1},
            "spec": {
                "replicas": 1,
                "selector": {"app": "rc"},
                "template": {"metadata": {"labels": {"app": "rc"}}, "spec": {"containers": []}},
            },
            "status": {"replicas": 0},
        }
        c.owners.indexer.add(rc)
        await c.reconcile("default/rc")
        [(_, _, created)] = pods.calls
        assert created["metadata"]["ownerReferences"][0] | {"uid": ""} == {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "name": "rc",
            "uid": "",
            "controller": True,
            "blockOwnerDeletion": True,
        }
        assert owners.calls[-1][2]["status"] == {"replicas": 0, "observedGeneration": 1}
        assert recorder.events == [("rc", "Normal", "SuccessfulCreate", "Created pod: rc-00000")]

    run(body)


def test_a_deleted_owner_forgets_its_expectations() -> None:
    async def body() -> None:
        c, owners, pods, _ = build()
        c.expectations.expect_creations("default/a", 2, 0.0)
        assert await c.reconcile("default/a") is None
        assert c.expectations.get("default/a") is None
        assert owners.calls == pods.calls == []

    run(body)
