from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import deep_copy
from kubelite.client.errors import ApiError
from kubelite.controllers.statefulset.control import StatefulSetControl
from tests.unit.controllers.statefulset.fakes import FakeObjects
from tests.unit.controllers.statefulset.test_identity_history import stateful_set

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class Harness:
    def __init__(self, sts: dict) -> None:
        self.objects = FakeObjects()
        sts = deep_copy(sts)
        sts["metadata"]["resourceVersion"] = "1"
        self.objects.sets[sts["metadata"]["name"]] = sts
        self.events: list[tuple[str, str, str]] = []
        self.now = NOW
        self.control = StatefulSetControl(self.objects, self._record, lambda: self.now)

    def _record(self, sts: dict, event_type: str, reason: str, message: str) -> None:
        self.events.append((event_type, reason, message))

    @property
    def sts(self) -> dict:
        return self.objects.sets["web"]

    def edit(self, **spec: Any) -> None:
        sts = deep_copy(self.sts)
        sts["spec"].update(spec)
        sts["metadata"]["generation"] += 1
        self.objects.sets["web"] = sts

    def sync(self) -> dict | None:
        self.objects.writes.clear()
        self.events.clear()
        pods = list(self.objects.pods.values())
        revisions = list(self.objects.revisions.values())
        return asyncio.run(self.control.update_stateful_set(self.sts, pods, revisions))

    def ready(self, *names: str) -> None:
        for name in names:
            pod = self.objects.pods[name]
            pod["status"] = {
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-12-31T00:00:00Z"}],
            }

    def pods(self) -> list[str]:
        return sorted(self.objects.pods)


def test_ordered_ready_creates_one_member_at_a_time() -> None:
    h = Harness(stateful_set(volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {}}]))
    status = h.sync()
    [revision] = h.objects.revisions
    assert h.objects.writes == [
        ("create", "controllerrevisions", revision),
        ("create", "persistentvolumeclaims", "data-web-0"),
        ("create", "pods", "web-0"),
        ("update_status", "statefulsets", "web"),
    ]
    assert h.events == [
        ("Normal", "SuccessfulCreate", "create Claim data-web-0 Pod web-0 in StatefulSet web success"),
        ("Normal", "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful"),
    ]
    # the pod just created is not counted until it is seen
    assert status == {
        "observedGeneration": 1,
        "replicas": 0,
        "currentRevision": revision,
        "updateRevision": revision,
        "collisionCount": 0,
        "availableReplicas": 0,
    }
    # web-0 is Pending: nothing more happens
    assert h.sync() is not None and h.objects.writes == [("update_status", "statefulsets", "web")]
    assert h.sync() is not None and h.objects.writes == []
    h.ready("web-0")
    h.sync()
    assert h.objects.writes == [
        ("create", "persistentvolumeclaims", "data-web-1"),
        ("create", "pods", "web-1"),
        ("update_status", "statefulsets", "web"),
    ]
    h.ready("web-1")
    h.sync()
    h.ready("web-2")
    status = h.sync()
    assert h.pods() == ["web-0", "web-1", "web-2"]
    assert status is not None
    assert (status["replicas"], status["readyReplicas"], status["currentReplicas"], status["updatedReplicas"]) == (
        3,
        3,
        3,
        3,
    )


def test_parallel_creates_every_member_in_one_sync() -> None:
    h = Harness(stateful_set(podManagementPolicy="Parallel"))
    h.sync()
    assert sorted(w for w in h.objects.writes if w[1] == "pods") == [
        ("create", "pods", "web-0"),
        ("create", "pods", "web-1"),
        ("create", "pods", "web-2"),
    ]


def _running(h: Harness, replicas: int) -> None:
    for _ in range(replicas + 1):
        h.sync()
        h.ready(*h.objects.pods)


def test_scale_down_removes_the_highest_ordinal_first_one_at_a_time() -> None:
    h = Harness(stateful_set())
    _running(h, 3)
    h.edit(replicas=1)
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-2")]
    assert ("Normal", "SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful") in h.events
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-1")]
    assert h.pods() == ["web-0"]


def test_scale_down_waits_for_an_unready_member() -> None:
    h = Harness(stateful_set())
    _running(h, 3)
    h.objects.pods["web-0"]["status"]["conditions"][0]["status"] = "False"
    h.edit(replicas=1)
    h.sync()
    # web-0 is not ready: OrderedReady waits on it before anything else
    assert [w for w in h.objects.writes if w[1] == "pods"] == []


def test_rolling_update_with_a_partition_updates_from_the_top_down_to_it() -> None:
    h = Harness(stateful_set())
    _running(h, 3)
    old = h.sts["status"]["currentRevision"]
    template = deep_copy(h.sts["spec"]["template"])
    template["spec"]["containers"][0]["image"] = "v2"
    h.edit(template=template, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}})
    status = h.sync()
    new = next(name for name in h.objects.revisions if name != old)
    assert h.objects.writes[0] == ("create", "controllerrevisions", new)
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-2")]
    assert status is not None
    assert (status["currentRevision"], status["updateRevision"], status["currentReplicas"]) == (old, new, 2)
    assert h.objects.revisions[new]["revision"] == 2
    h.sync()  # web-2 comes back at the new revision
    assert h.objects.pods["web-2"]["metadata"]["labels"]["controller-revision-hash"] == new
    assert h.objects.pods["web-2"]["spec"]["containers"][0]["image"] == "v2"
    h.ready("web-2")
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-1")]
    h.sync()
    h.ready("web-1")
    status = h.sync()
    # web-0 stays below the partition, at the old revision: the update is not complete
    assert h.objects.pods["web-0"]["metadata"]["labels"]["controller-revision-hash"] == old
    assert status is not None
    assert (status["currentRevision"], status["updatedReplicas"], status["currentReplicas"]) == (old, 2, 1)
    h.edit(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-0")]
    h.sync()
    h.ready("web-0")
    status = h.sync()
    assert status is not None
    assert (status["currentRevision"], status["updateRevision"], status["currentReplicas"]) == (new, new, 3)


def test_max_unavailable_takes_several_members_down_at_once() -> None:
    h = Harness(stateful_set(podManagementPolicy="Parallel"))
    _running(h, 3)
    template = deep_copy(h.sts["spec"]["template"])
    template["metadata"]["labels"]["v"] = "2"
    h.edit(
        template=template,
        updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 2}},
    )
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-2"), ("delete", "pods", "web-1")]


def test_on_delete_leaves_members_until_they_are_deleted() -> None:
    h = Harness(stateful_set(updateStrategy={"type": "OnDelete"}))
    _running(h, 3)
    template = deep_copy(h.sts["spec"]["template"])
    template["spec"]["containers"][0]["image"] = "v2"
    h.edit(template=template)
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == []
    del h.objects.pods["web-1"]
    status = h.sync()
    assert status is not None
    assert h.objects.pods["web-1"]["metadata"]["labels"]["controller-revision-hash"] == status["updateRevision"]


def test_a_rollback_renumbers_the_old_revision() -> None:
    h = Harness(stateful_set())
    _running(h, 3)
    first = h.sts["status"]["currentRevision"]
    original = deep_copy(h.sts["spec"]["template"])
    changed = deep_copy(original)
    changed["spec"]["containers"][0]["image"] = "v2"
    h.edit(template=changed)
    h.sync()
    h.edit(template=original)
    status = h.sync()
    assert ("update", "controllerrevisions", first) in h.objects.writes
    assert h.objects.revisions[first]["revision"] == 3
    assert status is not None and status["updateRevision"] == first


def test_history_is_truncated_to_the_limit() -> None:
    h = Harness(stateful_set(revisionHistoryLimit=0, updateStrategy={"type": "OnDelete"}))
    _running(h, 3)
    first = h.sts["status"]["currentRevision"]
    for image in ("v2", "v3"):
        template = deep_copy(h.sts["spec"]["template"])
        template["spec"]["containers"][0]["image"] = image
        h.edit(template=template)
        h.sync()
    # the first revision is current (every pod still runs it), the v2 one is no one's: it goes
    assert sorted(r["revision"] for r in h.objects.revisions.values()) == [1, 3]
    assert first in h.objects.revisions


def test_a_failed_member_is_deleted_and_recreated() -> None:
    h = Harness(stateful_set(replicas=1))
    _running(h, 1)
    h.objects.pods["web-0"]["status"] = {"phase": "Failed"}
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("delete", "pods", "web-0")]
    h.sync()
    assert [w for w in h.objects.writes if w[1] == "pods"] == [("create", "pods", "web-0")]


def test_claims_get_the_owners_the_retention_policy_asks() -> None:
    policy = {"whenDeleted": "Delete", "whenScaled": "Delete"}
    h = Harness(
        stateful_set(
            replicas=2,
            persistentVolumeClaimRetentionPolicy=policy,
            volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {}}],
        )
    )
    _running(h, 2)
    refs = h.objects.claims["data-web-1"]["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"]) for r in refs] == [("StatefulSet", "web")]
    h.edit(replicas=1)
    h.sync()
    # before the condemned member goes, its claim passes to it (the garbage collector deletes it after)
    refs = h.objects.claims["data-web-1"]["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"]) for r in refs] == [("Pod", "web-1")]
    assert ("delete", "pods", "web-1") in h.objects.writes


def test_the_start_ordinal_names_the_members() -> None:
    h = Harness(stateful_set(replicas=2, ordinals={"start": 5}, podManagementPolicy="Parallel"))
    h.sync()
    assert h.pods() == ["web-5", "web-6"]


def test_a_failed_create_is_a_warning_and_the_sync_error() -> None:
    h = Harness(stateful_set(replicas=1))
    status = {"kind": "Status", "code": 403, "reason": "Forbidden", "message": 'pods "web-0" is forbidden: no'}
    h.objects.fail[("create", "pods", "web-0")] = ApiError.from_status(status)
    try:
        h.sync()
    except ApiError as exc:
        assert str(exc) == 'pods "web-0" is forbidden: no'
    else:
        raise AssertionError("the sync did not fail")
    assert h.events == [
        ("Warning", "FailedCreate", 'create Pod web-0 in StatefulSet web failed error: pods "web-0" is forbidden: no')
    ]
    # the status is written all the same
    assert h.objects.writes[-1] == ("update_status", "statefulsets", "web")


def test_min_ready_seconds_holds_the_next_member_until_the_last_is_available() -> None:
    h = Harness(stateful_set(replicas=2, minReadySeconds=10))
    h.sync()
    h.ready("web-0")
    h.objects.pods["web-0"]["status"]["conditions"][0]["lastTransitionTime"] = "2026-01-01T00:00:00Z"
    h.now = datetime(2026, 1, 1, 0, 0, 9, tzinfo=UTC)
    status = h.sync()
    assert h.pods() == ["web-0"]
    assert status is not None and (status["readyReplicas"], status["availableReplicas"]) == (1, 0)
    h.now = datetime(2026, 1, 1, 0, 0, 10, tzinfo=UTC)
    status = h.sync()
    assert h.pods() == ["web-0", "web-1"]
    assert status is not None and status["availableReplicas"] == 1


def test_a_name_taken_by_other_data_counts_a_collision() -> None:
    from kubelite.controllers.statefulset import history

    h = Harness(stateful_set(replicas=1))
    wanted = history.new_revision(h.sts, 1, 0)
    squatter = deep_copy(wanted)
    squatter["data"] = {"spec": {"template": {"$patch": "replace", "metadata": {"labels": {"other": "x"}}}}}
    squatter["metadata"]["ownerReferences"] = []
    h.objects.revisions[wanted["metadata"]["name"]] = squatter
    status = h.sync()
    second = history.new_revision(h.sts, 1, 1)["metadata"]["name"]
    assert ("create", "controllerrevisions", second) in h.objects.writes
    assert status is not None and (status["updateRevision"], status["collisionCount"]) == (second, 1)
