"""Deployment syncs, step by step: creating the first ReplicaSet, rolling updates within maxSurge and
maxUnavailable to completion, Recreate, proportional scaling, pause, history cleanup, rollback, the
Available and Progressing conditions and the ScalingReplicaSet events, with kube's texts.

`Cluster` stands in for the API server and the ReplicaSet controller between syncs: it applies a plan's
writes (uids, creation times and generations as the server sets them) and, when told, makes a ReplicaSet's
pods exist and become available, so each test drives a rollout one sync at a time and asserts every step.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kubelite.apimachinery.meta import Obj, deep_copy, rfc3339
from kubelite.apimachinery.patch.json_patch import apply_json_patch
from kubelite.controllers.workloads import deployment_util as du
from kubelite.controllers.workloads.actions import Event, Plan
from kubelite.controllers.workloads.deployment import (
    RollbackError,
    collision_status,
    create_failed,
    is_own_replica_set,
    rollback_patch,
    sync_deployment,
)
from kubelite.controllers.workloads.template_hash import compute_hash

START = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
PROGRESS_DEADLINE = 600


def deployment(
    replicas: int = 3,
    *,
    image: str = "nginx:1",
    strategy: Obj | None = None,
    history: int = 10,
    paused: bool = False,
) -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 1},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
            "strategy": strategy
            or {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "revisionHistoryLimit": history,
            "progressDeadlineSeconds": PROGRESS_DEADLINE,
            "paused": paused,
        },
        "status": {},
    }


class Cluster:
    """The objects a sync reads, and the server's and ReplicaSet controller's part between syncs."""

    def __init__(self, d: Obj) -> None:
        self.d = d
        self.rss: dict[str, Obj] = {}
        self.now = START
        self.created = 0
        self.plans: list[Plan] = []

    # -- the API server ---------------------------------------------------------------------------------

    def apply(self, plan: Plan) -> None:
        for action in plan.actions:
            if action.resource == "replicasets":
                self._apply_rs(action.verb, action.name, action.obj)
            elif action.verb == "update_status":
                self.d["status"] = deep_copy(action.obj["status"])
                # the status strategy resets spec and labels, not annotations
                self.d["metadata"]["annotations"] = deep_copy(action.obj["metadata"].get("annotations") or {})

    def _apply_rs(self, verb: str, name: str, obj: Any) -> None:
        if verb == "create":
            self.created += 1
            rs = deep_copy(obj)
            rs["metadata"].update(
                uid=f"rs-uid-{self.created}", creationTimestamp=rfc3339(self.now), generation=1, resourceVersion="1"
            )
            rs["status"] = {"replicas": 0, "terminatingReplicas": 0}
            self.rss[name] = rs
        elif verb == "update":
            old = self.rss[name]
            rs = deep_copy(obj)
            bump = rs["spec"] != old["spec"]
            rs["metadata"]["generation"] = old["metadata"]["generation"] + bump
            rs["status"] = old["status"]
            self.rss[name] = rs
        elif verb == "delete":
            del self.rss[name]
        elif verb == "patch":
            pass  # claims: not exercised by these tests

    # -- the ReplicaSet controller ----------------------------------------------------------------------

    def settle(self, name: str | None = None, *, available: bool = True) -> None:
        """The ReplicaSet's pods exist (and are available or not), its status says so."""
        for rs_name, rs in self.rss.items():
            if name is not None and rs_name != name:
                continue
            want = rs["spec"]["replicas"]
            rs["status"] = {
                "replicas": want,
                "fullyLabeledReplicas": want,
                "readyReplicas": want if available else 0,
                "availableReplicas": want if available else 0,
                "terminatingReplicas": 0,
                "observedGeneration": rs["metadata"]["generation"],
            }

    def settle_all(self) -> None:
        self.settle()

    # -- syncing ----------------------------------------------------------------------------------------------

    def sync(self, seconds: float = 1) -> Plan:
        self.now += timedelta(seconds=seconds)
        plan = sync_deployment(self.d, list(self.rss.values()), [], now=self.now)
        self.plans.append(plan)
        self.apply(plan)
        return plan

    def sizes(self) -> dict[str, int]:
        return {name: rs["spec"]["replicas"] for name, rs in sorted(self.rss.items())}

    def condition(self, kind: str) -> Obj | None:
        return du.get_condition(self.d["status"], kind)


def messages(plan: Plan) -> list[str]:
    return [event.message for event in plan.events]


def new_rs_name(d: Obj, collision_count: int | None = None) -> str:
    return f"web-{compute_hash(d['spec']['template'], collision_count)}"


def rolled_out(d: Obj) -> Cluster:
    cluster = Cluster(d)
    cluster.sync()
    cluster.settle_all()
    cluster.sync()
    return cluster


def change_template(cluster: Cluster, image: str) -> str:
    cluster.d["spec"]["template"]["spec"]["containers"][0]["image"] = image
    cluster.d["metadata"]["generation"] += 1
    return new_rs_name(cluster.d)


# -- maxSurge / maxUnavailable --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "expected"),
    [
        ("25%", "25%", 10, (3, 2)),
        ("25%", "25%", 3, (1, 0)),
        ("0%", "0%", 0, (0, 1)),
        (0, "10%", 5, (0, 1)),
        ("50%", "50%", 3, (2, 1)),
        (2, 0, 4, (2, 0)),
        (None, None, 4, (0, 1)),
    ],
    ids=["quarter-of-ten", "quarter-of-three", "zeros", "unavailable-rounds-to-zero", "halves", "ints", "unset"],
)
def test_fenceposts_round_surge_up_and_unavailability_down(
    surge: int | str | None, unavailable: int | str | None, desired: int, expected: tuple[int, int]
) -> None:
    assert du.resolve_fenceposts(surge, unavailable, desired) == expected


def test_a_bad_percentage_is_an_error() -> None:
    with pytest.raises(du.IntOrPercentError):
        du.scaled_value("ten", 10, True)


# -- the first ReplicaSet -------------------------------------------------------------------------------------------


def test_a_new_deployment_creates_its_replica_set() -> None:
    d = deployment(3)
    cluster = Cluster(d)
    plan = cluster.sync()
    name = new_rs_name(d)
    assert plan.verbs() == [
        ("create", "replicasets", name),
        ("update_status", "deployments", "web"),
        ("update_status", "deployments", "web"),
    ]
    hash_value = name.removeprefix("web-")
    created = plan.actions[0].obj
    assert created["metadata"] == {
        "name": name,
        "namespace": "default",
        "labels": {"app": "web", "pod-template-hash": hash_value},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "web",
                "uid": "d-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "annotations": {
            "deployment.kubernetes.io/revision": "1",
            "deployment.kubernetes.io/desired-replicas": "3",
            "deployment.kubernetes.io/max-replicas": "4",
        },
    }
    assert created["spec"]["replicas"] == 3
    assert created["spec"]["selector"] == {"matchLabels": {"app": "web", "pod-template-hash": hash_value}}
    assert created["spec"]["template"]["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_value}
    assert messages(plan) == [f"Scaled up replica set {name} from 0 to 3"]
    assert plan.events[0] == Event("Normal", "ScalingReplicaSet", f"Scaled up replica set {name} from 0 to 3")
    assert cluster.d["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    stamp = rfc3339(cluster.now)
    assert cluster.d["status"] == {
        "observedGeneration": 1,
        "replicas": 0,
        "updatedReplicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "unavailableReplicas": 3,
        # the ReplicaSet just created reports no terminatingReplicas yet, so neither does the sum
        "conditions": [
            {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": stamp,
                "lastTransitionTime": stamp,
                "reason": "NewReplicaSetCreated",
                "message": f'Created new replica set "{name}"',
            },
            {
                "type": "Available",
                "status": "False",
                "lastUpdateTime": stamp,
                "lastTransitionTime": stamp,
                "reason": "MinimumReplicasUnavailable",
                "message": "Deployment does not have minimum availability.",
            },
        ],
    }


def test_the_deployment_completes_once_its_pods_are_available() -> None:
    cluster = Cluster(deployment(3))
    cluster.sync()
    created_at = cluster.condition("Progressing")["lastTransitionTime"]  # type: ignore[index]
    cluster.settle_all()
    plan = cluster.sync()
    name = new_rs_name(cluster.d)
    assert plan.verbs() == [("update_status", "deployments", "web")]
    assert plan.events == []
    stamp = rfc3339(cluster.now)
    assert cluster.condition("Available") == {
        "type": "Available",
        "status": "True",
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": "MinimumReplicasAvailable",
        "message": "Deployment has minimum availability.",
    }
    assert cluster.condition("Progressing") == {
        "type": "Progressing",
        "status": "True",
        "lastUpdateTime": stamp,
        "lastTransitionTime": created_at,
        "reason": "NewReplicaSetAvailable",
        "message": f'ReplicaSet "{name}" has successfully progressed.',
    }
    assert [c["type"] for c in cluster.d["status"]["conditions"]] == ["Available", "Progressing"]
    assert cluster.d["status"]["availableReplicas"] == 3
    # steady state: nothing to write, nothing to requeue
    again = cluster.sync()
    assert again.actions == [] and again.events == [] and again.requeue_after is None


def test_a_selector_that_selects_everything_is_refused() -> None:
    d = deployment(1)
    d["spec"]["selector"] = {}
    plan = sync_deployment(d, [], now=START)
    assert plan.events == [
        Event("Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
    ]
    assert plan.verbs() == [("update_status", "deployments", "web")]
    assert plan.actions[0].obj["status"] == {"observedGeneration": 1}


# -- rolling updates ------------------------------------------------------------------------------------------------


def test_rolling_update_one_at_a_time_with_surge_one_and_no_unavailability() -> None:
    cluster = rolled_out(deployment(3))  # 25% of 3: surge 1, unavailable 0
    old = new_rs_name(cluster.d)
    new = change_template(cluster, "nginx:2")
    steps = []
    for _ in range(8):
        plan = cluster.sync()
        steps.append(messages(plan))
        cluster.settle_all()
    assert steps == [
        [f"Scaled up replica set {new} from 0 to 1"],
        [f"Scaled down replica set {old} from 3 to 2"],
        [f"Scaled up replica set {new} from 1 to 2"],
        [f"Scaled down replica set {old} from 2 to 1"],
        [f"Scaled up replica set {new} from 2 to 3"],
        [f"Scaled down replica set {old} from 1 to 0"],
        [],
        [],
    ]
    assert cluster.sizes() == {old: 0, new: 3}
    assert cluster.rss[new]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert cluster.d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert cluster.condition("Progressing")["reason"] == "NewReplicaSetAvailable"  # type: ignore[index]
    assert cluster.d["status"]["updatedReplicas"] == 3 and cluster.d["status"]["observedGeneration"] == 2


def test_rolling_update_of_ten_waits_for_availability_at_each_step() -> None:
    cluster = rolled_out(deployment(10))  # 25% of 10: surge 3, unavailable 2
    old = new_rs_name(cluster.d)
    new = change_template(cluster, "nginx:2")

    plan = cluster.sync()  # the new RS takes the surge, the old one gives up what may be unavailable
    assert messages(plan) == [f"Scaled up replica set {new} from 0 to 3", f"Scaled down replica set {old} from 10 to 8"]
    # the status is computed over the ReplicaSets as the sync read them: no updated replica yet
    progressing = cluster.condition("Progressing")
    assert progressing is not None and progressing["reason"] == "NewReplicaSetCreated"
    assert progressing["message"] == f'Created new replica set "{new}"'
    cluster.settle(new, available=False)
    cluster.settle(old)

    assert messages(cluster.sync()) == [f"Scaled up replica set {new} from 3 to 5"]
    progressing = cluster.condition("Progressing")
    assert progressing is not None and progressing["reason"] == "ReplicaSetUpdated"
    assert progressing["message"] == f'ReplicaSet "{new}" is progressing.'
    cluster.settle(new, available=False)
    # 13 pods, 8 of them available: nothing more may go until new pods are available
    stuck = cluster.sync()
    assert stuck.events == []
    assert cluster.sizes() == {old: 8, new: 5}

    cluster.settle(new)
    assert messages(cluster.sync()) == [f"Scaled down replica set {old} from 8 to 3"]
    cluster.settle_all()
    assert messages(cluster.sync()) == [f"Scaled up replica set {new} from 5 to 10"]
    cluster.settle_all()
    assert messages(cluster.sync()) == [f"Scaled down replica set {old} from 3 to 0"]
    cluster.settle_all()
    cluster.sync()
    assert cluster.sizes() == {old: 0, new: 10}
    assert cluster.condition("Progressing")["message"] == f'ReplicaSet "{new}" has successfully progressed.'  # type: ignore[index]
    assert cluster.condition("Available")["status"] == "True"  # type: ignore[index]


def test_unhealthy_old_replicas_are_cleaned_up_first() -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}
    cluster = rolled_out(deployment(4, strategy=strategy))
    first = new_rs_name(cluster.d)
    second = change_template(cluster, "nginx:2")
    cluster.sync()  # second: 0 -> 1, first: 4 -> 3
    cluster.settle(second, available=False)
    cluster.settle(first)
    third = change_template(cluster, "nginx:3")
    plan = cluster.sync()
    # the third RS surges; the second's unavailable pod is removed before any available old pod
    assert messages(plan) == [
        f"Scaled up replica set {third} from 0 to 1",
        f"Scaled down replica set {second} from 1 to 0",
    ]
    assert cluster.sizes() == {first: 3, second: 0, third: 1}


def test_max_surge_zero_scales_down_before_up() -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    cluster = rolled_out(deployment(2, strategy=strategy))
    old = new_rs_name(cluster.d)
    new = change_template(cluster, "nginx:2")
    plan = cluster.sync()
    assert cluster.sizes() == {old: 1, new: 0}
    assert messages(plan) == [f"Scaled down replica set {old} from 2 to 1"]
    assert plan.actions[0].obj["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "2"
    cluster.settle_all()
    assert messages(cluster.sync()) == [f"Scaled up replica set {new} from 0 to 1"]


# -- Recreate -------------------------------------------------------------------------------------------------------


def test_recreate_removes_every_old_pod_before_the_new_replica_set() -> None:
    cluster = rolled_out(deployment(3, strategy={"type": "Recreate"}))
    old = new_rs_name(cluster.d)
    assert cluster.rss[old]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "3"
    new = change_template(cluster, "nginx:2")
    plan = cluster.sync()
    assert messages(plan) == [f"Scaled down replica set {old} from 3 to 0"]
    assert new not in cluster.rss
    # the old pods are still there (status.replicas 3): no new ReplicaSet yet
    waiting = cluster.sync()
    assert waiting.actions == [] and waiting.events == []
    assert new not in cluster.rss
    cluster.settle(old)
    plan = cluster.sync()
    assert plan.verbs()[0] == ("create", "replicasets", new)
    assert messages(plan) == [f"Scaled up replica set {new} from 0 to 3"]
    cluster.settle_all()
    cluster.sync()
    assert cluster.sizes() == {old: 0, new: 3}
    assert cluster.condition("Progressing")["reason"] == "NewReplicaSetAvailable"  # type: ignore[index]


# -- scaling --------------------------------------------------------------------------------------------------------


def test_scaling_a_settled_deployment_scales_its_one_replica_set() -> None:
    cluster = rolled_out(deployment(3))
    name = new_rs_name(cluster.d)
    cluster.d["spec"]["replicas"] = 5
    cluster.d["metadata"]["generation"] += 1
    plan = cluster.sync()
    assert messages(plan) == [f"Scaled up replica set {name} from 3 to 5"]
    annotations = plan.actions[0].obj["metadata"]["annotations"]
    assert annotations["deployment.kubernetes.io/desired-replicas"] == "5"
    assert annotations["deployment.kubernetes.io/max-replicas"] == "7"  # ceil(25% of 5) = 2


def test_scaling_mid_rollout_is_proportional() -> None:
    cluster = rolled_out(deployment(10))
    old = new_rs_name(cluster.d)
    new = change_template(cluster, "nginx:2")
    cluster.sync()
    cluster.settle(new, available=False)
    cluster.settle(old)
    cluster.sync()  # new 3 -> 5
    cluster.settle(new, available=False)
    assert cluster.sizes() == {old: 8, new: 5}
    cluster.d["spec"]["replicas"] = 15
    cluster.d["metadata"]["generation"] += 1
    plan = cluster.sync()
    # 19 allowed (15 + ceil(3.75)), 13 there: 6 more, split by size: 8*19/13 -> 12, 5*19/13 -> 7
    assert messages(plan) == [f"Scaled up replica set {old} from 8 to 12", f"Scaled up replica set {new} from 5 to 7"]
    assert cluster.sizes() == {old: 12, new: 7}


# -- pause ----------------------------------------------------------------------------------------------------------


def test_a_paused_deployment_does_not_roll_out_and_says_so() -> None:
    cluster = rolled_out(deployment(3))
    old = new_rs_name(cluster.d)
    cluster.d["spec"]["paused"] = True
    change_template(cluster, "nginx:2")
    plan = cluster.sync()
    assert plan.events == []
    assert cluster.sizes() == {old: 3}
    assert cluster.condition("Progressing") == {
        "type": "Progressing",
        "status": "Unknown",
        "lastUpdateTime": rfc3339(cluster.now),
        "lastTransitionTime": rfc3339(cluster.now),
        "reason": "DeploymentPaused",
        "message": "Deployment is paused",
    }
    cluster.d["spec"]["paused"] = False
    plan = cluster.sync()
    assert plan.verbs()[0] == ("update_status", "deployments", "web")
    assert plan.actions[0].obj["status"]["conditions"][-1]["reason"] == "DeploymentResumed"
    assert plan.actions[0].obj["status"]["conditions"][-1]["message"] == "Deployment is resumed"
    assert plan.verbs()[1][0] == "create"


# -- history --------------------------------------------------------------------------------------------------------


def test_old_revisions_beyond_the_history_limit_are_deleted_oldest_first() -> None:
    cluster = rolled_out(deployment(1, history=2))
    names = [new_rs_name(cluster.d)]
    for version in range(2, 6):
        names.append(change_template(cluster, f"nginx:{version}"))
        for _ in range(4):
            cluster.sync()
            cluster.settle_all()
    deleted = [a.name for plan in cluster.plans for a in plan.actions if a.verb == "delete"]
    assert deleted == [names[0], names[1]]
    assert sorted(cluster.rss) == sorted(names[2:])
    revisions = {n: rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] for n, rs in cluster.rss.items()}
    assert revisions == {names[2]: "3", names[3]: "4", names[4]: "5"}


def test_history_cleanup_skips_replica_sets_that_still_have_pods() -> None:
    cluster = rolled_out(deployment(1, history=0))
    first = new_rs_name(cluster.d)
    second = change_template(cluster, "nginx:2")
    for _ in range(4):
        cluster.sync()
        cluster.settle(second)  # the first RS's status keeps reporting its pod
    assert first in cluster.rss
    cluster.settle_all()
    cluster.sync()  # writes the complete status; cleanup reads the status a sync starts from
    assert first in cluster.rss
    plan = cluster.sync()
    assert plan.verbs() == [("delete", "replicasets", first)]
    assert first not in cluster.rss and second in cluster.rss


# -- rollback -------------------------------------------------------------------------------------------------------


def test_rollout_undo_patches_the_template_and_the_old_replica_set_comes_back() -> None:
    cluster = rolled_out(deployment(2, strategy={"type": "Recreate"}))
    first = new_rs_name(cluster.d)
    second = change_template(cluster, "nginx:2")
    for _ in range(4):
        cluster.sync()
        cluster.settle_all()
    assert cluster.sizes() == {first: 0, second: 2}

    patch = rollback_patch(cluster.d, list(cluster.rss.values()))
    assert patch is not None
    assert patch[0]["path"] == "/spec/template"
    assert patch[0]["value"]["metadata"]["labels"] == {"app": "web"}
    assert patch[0]["value"]["spec"]["containers"][0]["image"] == "nginx:1"
    assert patch[1] == {
        "op": "replace",
        "path": "/metadata/annotations",
        "value": {"deployment.kubernetes.io/revision": "2"},
    }
    cluster.d = apply_json_patch(cluster.d, patch)
    cluster.d["metadata"]["generation"] += 1
    plan = cluster.sync()
    assert plan.verbs()[0] == ("update", "replicasets", first)
    annotations = cluster.rss[first]["metadata"]["annotations"]
    assert annotations["deployment.kubernetes.io/revision"] == "3"
    assert annotations["deployment.kubernetes.io/revision-history"] == "1"
    for _ in range(4):
        cluster.sync()
        cluster.settle_all()
    assert cluster.sizes() == {first: 2, second: 0}
    assert cluster.d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert len(cluster.rss) == 2  # no third ReplicaSet
    # the template already is revision 3's: kubectl skips
    assert rollback_patch(cluster.d, list(cluster.rss.values()), 3) is None


def test_rollback_errors_say_what_kubectl_says() -> None:
    cluster = rolled_out(deployment(1))
    with pytest.raises(RollbackError, match=r'^no rollout history found for deployment "web"$'):
        rollback_patch(cluster.d, list(cluster.rss.values()))
    with pytest.raises(RollbackError, match=r"^unable to find specified revision 7 in history$"):
        rollback_patch(cluster.d, list(cluster.rss.values()), 7)
    cluster.d["spec"]["paused"] = True
    with pytest.raises(RollbackError, match=r"^you cannot rollback a paused deployment"):
        rollback_patch(cluster.d, list(cluster.rss.values()))


# -- progress deadline ----------------------------------------------------------------------------------------------


def test_a_rollout_without_progress_times_out_after_the_deadline() -> None:
    cluster = rolled_out(deployment(3))
    new = change_template(cluster, "nginx:broken")
    cluster.sync()
    cluster.settle(new, available=False)
    cluster.sync()
    cluster.settle(new, available=False)
    quiet = cluster.sync(seconds=10)
    assert quiet.actions == []
    updated = du.get_condition(cluster.d["status"], "Progressing")
    assert updated is not None
    elapsed = (cluster.now - datetime.fromisoformat(updated["lastUpdateTime"].replace("Z", "+00:00"))).total_seconds()
    assert quiet.requeue_after == PROGRESS_DEADLINE - elapsed
    plan = cluster.sync(seconds=PROGRESS_DEADLINE)
    assert plan.verbs() == [("update_status", "deployments", "web")]
    assert cluster.condition("Progressing") == {
        "type": "Progressing",
        "status": "False",
        "lastUpdateTime": rfc3339(cluster.now),
        "lastTransitionTime": rfc3339(cluster.now),
        "reason": "ProgressDeadlineExceeded",
        "message": f'ReplicaSet "{new}" has timed out progressing.',
    }
    assert cluster.sync().requeue_after is None


def test_replica_failure_moves_from_the_replica_set_to_the_deployment() -> None:
    cluster = Cluster(deployment(2))
    cluster.sync()
    name = new_rs_name(cluster.d)
    failure = {
        "type": "ReplicaFailure",
        "status": "True",
        "lastTransitionTime": rfc3339(cluster.now),
        "reason": "FailedCreate",
        "message": 'pods "web-" is forbidden: exceeded quota',
    }
    cluster.rss[name]["status"]["conditions"] = [failure]
    cluster.sync()
    assert cluster.condition("ReplicaFailure") == {
        "type": "ReplicaFailure",
        "status": "True",
        "lastUpdateTime": failure["lastTransitionTime"],
        "lastTransitionTime": failure["lastTransitionTime"],
        "reason": "FailedCreate",
        "message": 'pods "web-" is forbidden: exceeded quota',
    }
    cluster.rss[name]["status"].pop("conditions")
    cluster.sync()
    assert cluster.condition("ReplicaFailure") is None


# -- creation conflicts and failures --------------------------------------------------------------------------------


def test_a_hash_collision_bumps_collision_count_and_renames() -> None:
    d = deployment(1)
    name = new_rs_name(d)
    stranger = {
        "metadata": {"name": name, "namespace": "default", "uid": "x", "ownerReferences": []},
        "spec": {"template": {"metadata": {"labels": {"app": "other"}}}},
    }
    assert not is_own_replica_set(d, stranger)
    bumped = collision_status(d)
    assert bumped["status"]["collisionCount"] == 1
    plan = sync_deployment(bumped, [], now=START)
    assert plan.actions[0].name == new_rs_name(d, 1) != name
    own = deep_copy(plan.actions[0].obj)
    own["metadata"]["ownerReferences"][0]["uid"] = "d-uid"
    assert is_own_replica_set(bumped, own)


def test_a_failed_create_is_reported_on_the_progressing_condition() -> None:
    d = deployment(1)
    updated, event = create_failed(d, "web-abc", "quota exceeded", START)
    assert event == Event(
        "Warning", "ReplicaSetCreateError", 'Failed to create new replica set "web-abc": quota exceeded'
    )
    assert updated is not None
    assert du.get_condition(updated["status"], "Progressing") == {
        "type": "Progressing",
        "status": "False",
        "lastUpdateTime": rfc3339(START),
        "lastTransitionTime": rfc3339(START),
        "reason": "ReplicaSetCreateError",
        "message": 'Failed to create new replica set "web-abc": quota exceeded',
    }


# -- claiming and deletion ----------------------------------------------------------------------------------------


def test_matching_orphan_replica_sets_are_adopted_and_others_released() -> None:
    d = deployment(1)
    name = new_rs_name(d)
    orphan = {
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": "rs-1",
            "labels": {"app": "web"},
            "creationTimestamp": rfc3339(START),
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": d["spec"]["template"]["spec"]},
        },
        "status": {"replicas": 1, "availableReplicas": 1, "readyReplicas": 1},
    }
    owned_ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-uid", "controller": True}
    strayed = {
        "metadata": {"name": "web-old", "namespace": "default", "uid": "rs-2", "labels": {"app": "db"}},
        "spec": {"replicas": 0, "template": {"metadata": {"labels": {"app": "db"}}}},
    }
    strayed["metadata"]["ownerReferences"] = [owned_ref]
    plan = sync_deployment(d, [orphan, strayed], now=START)
    adopt, release = plan.actions[0], plan.actions[1]
    assert (adopt.verb, adopt.resource, adopt.name) == ("patch", "replicasets", name)
    assert adopt.obj == {"metadata": {"ownerReferences": [{**owned_ref, "blockOwnerDeletion": True}], "uid": "rs-1"}}
    assert (release.verb, release.name) == ("patch", "web-old")
    assert release.obj == {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": "d-uid"}], "uid": "rs-2"}}
    # the adopted ReplicaSet is the new one: no second ReplicaSet is created
    assert ("create", "replicasets", name) not in plan.verbs()


def test_a_deployment_being_deleted_only_updates_its_status() -> None:
    cluster = rolled_out(deployment(2))
    cluster.d["metadata"]["deletionTimestamp"] = rfc3339(cluster.now)
    change_template(cluster, "nginx:2")
    plan = cluster.sync()
    assert all(action.resource == "deployments" for action in plan.actions)
    assert plan.events == []
