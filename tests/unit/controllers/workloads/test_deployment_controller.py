"""The Deployment loop without a server: which ReplicaSet and pod changes sync which Deployment, and how a
plan is carried out (in order, each write building on the resourceVersion the one before it left, events once
their writes went through, and kube's answers to a failed creation of the new ReplicaSet)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.errors import AlreadyExists, Forbidden
from kubelite.controllers.workloads.deployment_controller import DeploymentController
from kubelite.controllers.workloads.replicaset_controller import SyncError
from kubelite.controllers.workloads.template_hash import compute_hash
from tests.unit.controllers.workloads.fakes import FakeRecorder, FakeResource, clients, pod, replica_set, run


def build() -> tuple[DeploymentController, dict[str, FakeResource], FakeRecorder]:
    controller = DeploymentController(clients())
    fakes = {name: FakeResource(name) for name in ("deployments", "replicasets", "pods")}
    controller.clients_by_resource = fakes  # type: ignore[assignment]
    recorder = FakeRecorder()
    controller.recorder = recorder  # type: ignore[assignment]
    return controller, fakes, recorder


def deployment(name: str = "web", replicas: int = 3, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "7",
            "generation": 1,
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            **spec,
        },
    }


def owned_by(obj: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    obj["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": owner["kind"],
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    return obj


async def queued(controller: DeploymentController) -> list[str]:
    queue = controller.controller.queue
    keys = [await queue.get() for _ in range(len(queue))]
    for key in keys:
        queue.done(key)
    return keys


def test_replica_sets_sync_their_deployment_and_orphans_every_selecting_one() -> None:
    async def body() -> None:
        c, *_ = build()
        web, api = deployment("web"), deployment("api")
        api["spec"]["selector"] = {"matchLabels": {"tier": "front"}}
        c.deployments.indexer.add(web)
        c.deployments.indexer.add(api)
        rs = owned_by(replica_set("web-1"), web)
        c._add_rs(rs)
        assert await queued(c) == ["default/web"]
        orphan = replica_set("stray")
        orphan["metadata"]["labels"] = {"app": "web", "tier": "front"}
        c._add_rs(orphan)
        assert sorted(await queued(c)) == ["default/api", "default/web"]
        c._update_rs(orphan, orphan)  # a resync
        assert await queued(c) == []

    run(body)


def test_a_recreate_deployment_syncs_when_its_last_old_pod_goes() -> None:
    async def body() -> None:
        c, *_ = build()
        d = deployment("web", strategy={"type": "Recreate"})
        c.deployments.indexer.add(d)
        rs = owned_by(replica_set("web-1"), d)
        c.replica_sets.indexer.add(rs)
        first, second = pod("p1", {"app": "web"}, rs), pod("p2", {"app": "web"}, rs)
        c.pods.indexer.add(second)
        c._delete_pod(first)
        assert await queued(c) == []  # p2 still runs
        c.pods.indexer.delete(second)
        c._delete_pod(second)
        assert await queued(c) == ["default/web"]

    run(body)


def test_a_new_deployment_gets_its_replica_set_and_status_in_one_pass() -> None:
    async def body() -> None:
        c, fakes, recorder = build()
        d = deployment()
        c.deployments.indexer.add(d)
        assert await c.reconcile("default/web") is None
        rs_name = f"web-{compute_hash(d['spec']['template'], None)}"
        assert fakes["replicasets"].verbs() == [("create", rs_name)]
        assert fakes["deployments"].verbs() == [("update_status", "web"), ("update_status", "web")]
        first, second = (body for _, _, body in fakes["deployments"].calls)
        # the second status write builds on the first's resourceVersion, not on the cache's
        assert first["metadata"]["resourceVersion"] == "7"
        assert second["metadata"]["resourceVersion"] == "100"
        assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
        assert "readyReplicas" not in second["status"]  # zero counts are not on the wire
        assert recorder.events == [
            ("web", "Normal", "ScalingReplicaSet", f"Scaled up replica set {rs_name} from 0 to 3")
        ]

    run(body)


def test_events_follow_only_the_writes_that_went_through() -> None:
    async def body() -> None:
        c, fakes, recorder = build()
        d = deployment(replicas=5)
        c.deployments.indexer.add(d)
        rs = owned_by(replica_set("web-1", 3), d)
        rs["metadata"]["labels"] = {"app": "web"}
        rs["spec"]["template"] = d["spec"]["template"]
        rs["metadata"]["annotations"] = {
            "deployment.kubernetes.io/revision": "1",
            "deployment.kubernetes.io/desired-replicas": "3",
            "deployment.kubernetes.io/max-replicas": "4",
        }
        c.replica_sets.indexer.add(rs)
        conflict = Forbidden({"code": 403, "reason": "Forbidden", "message": "no"})
        # the status written after the scaling fails
        fakes["deployments"].fail = lambda verb, name, body: conflict if fakes["replicasets"].calls else None
        with pytest.raises(Forbidden):
            await c.reconcile("default/web")
        assert fakes["replicasets"].verbs() == [("update", "web-1")]
        assert fakes["deployments"].verbs() == [("update_status", "web"), ("update_status", "web")]
        assert recorder.events == [("web", "Normal", "ScalingReplicaSet", "Scaled up replica set web-1 from 3 to 5")]

        recorder.events.clear()
        fakes["replicasets"].fail = lambda verb, name, body: conflict
        with pytest.raises(Forbidden):
            await c.reconcile("default/web")
        assert recorder.events == []

    run(body)


def test_a_hash_collision_bumps_the_collision_count() -> None:
    async def body() -> None:
        c, fakes, recorder = build()
        d = deployment()
        c.deployments.indexer.add(d)
        rs_name = f"web-{compute_hash(d['spec']['template'], None)}"
        squatter = replica_set(rs_name)  # someone else's, of the same name
        c.replica_sets.indexer.add(squatter)
        exists = AlreadyExists({"code": 409, "reason": "AlreadyExists", "message": "exists"})
        fakes["replicasets"].fail = lambda verb, name, body: exists if verb == "create" else None
        with pytest.raises(SyncError, match="already exists"):
            await c.reconcile("default/web")
        [(verb, _, written)] = fakes["deployments"].calls
        assert verb == "update_status" and written["status"]["collisionCount"] == 1
        assert recorder.events == []

    run(body)


def test_a_failed_creation_marks_the_deployment_not_progressing() -> None:
    async def body() -> None:
        c, fakes, recorder = build()
        d = deployment()
        c.deployments.indexer.add(d)
        rs_name = f"web-{compute_hash(d['spec']['template'], None)}"
        denied = Forbidden({"code": 403, "reason": "Forbidden", "message": "quota exceeded"})
        fakes["replicasets"].fail = lambda verb, name, body: denied if verb == "create" else None
        with pytest.raises(Forbidden):
            await c.reconcile("default/web")
        message = f'Failed to create new replica set "{rs_name}": quota exceeded'
        assert recorder.events == [("web", "Warning", "ReplicaSetCreateError", message)]
        [(_, _, written)] = fakes["deployments"].calls
        [progressing] = [x for x in written["status"]["conditions"] if x["type"] == "Progressing"]
        assert (progressing["status"], progressing["reason"], progressing["message"]) == (
            "False",
            "ReplicaSetCreateError",
            message,
        )

    run(body)
