"""The controllers' shared pod helpers: readiness and availability, the active filter, the scale-down ranking,
expectations with their TTL, slow-start batches, and the pod built from a template."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.client.clock import FakeClock
from kubelite.controllers.workloads.controller_utils import (
    ControllerExpectations,
    UIDTrackingExpectations,
    active_pods_ranked,
    filter_active_pods,
    is_pod_available,
    is_pod_ready,
    pod_from_template,
    run_slow_start,
    slow_start_batches,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def pod(
    name: str,
    *,
    node: str = "n1",
    phase: str = "Running",
    ready: bool = True,
    ready_since: datetime | None = None,
    created: datetime | None = None,
    restarts: int = 0,
    cost: int | None = None,
    deleting: bool = False,
) -> Obj:
    meta: Obj = {"name": name, "uid": f"uid-{name}", "creationTimestamp": rfc3339(created or NOW - timedelta(hours=1))}
    if cost is not None:
        meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
    if deleting:
        meta["deletionTimestamp"] = rfc3339(NOW)
    since = ready_since or NOW - timedelta(minutes=30)
    status: Obj = {
        "phase": phase,
        "conditions": [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": rfc3339(since)}],
        "containerStatuses": [{"name": "c", "restartCount": restarts}],
    }
    return {"metadata": meta, "spec": {"nodeName": node}, "status": status}


def names(pods: list[Obj]) -> list[str]:
    return [p["metadata"]["name"] for p in pods]


# -- readiness, availability, activity -----------------------------------------------------------------------


def test_available_needs_min_ready_seconds_of_readiness() -> None:
    fresh = pod("p", ready_since=NOW - timedelta(seconds=5))
    assert is_pod_ready(fresh)
    assert is_pod_available(fresh, 0, NOW)
    assert not is_pod_available(fresh, 10, NOW)
    assert is_pod_available(fresh, 10, NOW + timedelta(seconds=5))
    assert not is_pod_available(pod("q", ready=False), 0, NOW)


def test_filter_active_pods_drops_finished_and_deleting_pods() -> None:
    pods = [pod("run"), pod("done", phase="Succeeded"), pod("failed", phase="Failed"), pod("going", deleting=True)]
    assert names(filter_active_pods(pods)) == ["run"]


# -- ranking ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (pod("a", node=""), pod("b")),
        (pod("a", phase="Pending"), pod("b", phase="Unknown")),
        (pod("a", phase="Unknown"), pod("b", phase="Running")),
        (pod("a", ready=False), pod("b")),
        (pod("a", cost=-10), pod("b", cost=5)),
        (pod("a", ready_since=NOW - timedelta(seconds=10)), pod("b", ready_since=NOW - timedelta(hours=5))),
        (pod("a", restarts=7), pod("b", restarts=1)),
        (pod("a", created=NOW - timedelta(minutes=1)), pod("b", created=NOW - timedelta(days=3))),
    ],
    ids=[
        "unassigned-first",
        "pending-before-unknown",
        "unknown-before-running",
        "not-ready-first",
        "lower-deletion-cost-first",
        "ready-for-less-time-first",
        "more-restarts-first",
        "newer-first",
    ],
)
def test_ranking_deletes_first_what_kube_deletes_first(first: Obj, second: Obj) -> None:
    assert names(active_pods_ranked([second, first], [], NOW)) == ["a", "b"]
    assert names(active_pods_ranked([first, second], [], NOW)) == ["a", "b"]


def test_doubled_up_nodes_lose_a_pod_first() -> None:
    alone, crowded = pod("alone", node="n1"), pod("crowded", node="n2")
    related = [alone, crowded, pod("x", node="n2"), pod("y", node="n2")]
    assert names(active_pods_ranked([alone, crowded], related, NOW)) == ["crowded", "alone"]


def test_ages_within_one_power_of_two_tie_and_the_uid_decides() -> None:
    # LogarithmicScaleDown: 40 and 50 minutes old share the 2^41..2^42 ns bucket, so uid order decides
    b = pod("b", ready_since=NOW - timedelta(minutes=40))
    a = pod("a", ready_since=NOW - timedelta(minutes=50))
    assert names(active_pods_ranked([b, a], [], NOW)) == ["a", "b"]


# -- expectations --------------------------------------------------------------------------------------------


def test_expectations_hold_a_key_until_observed() -> None:
    clock = FakeClock()
    expectations = ControllerExpectations()
    assert expectations.satisfied("default/rs", clock.monotonic())
    expectations.expect_creations("default/rs", 2, clock.monotonic())
    assert not expectations.satisfied("default/rs", clock.monotonic())
    expectations.creation_observed("default/rs")
    assert expectations.get("default/rs") == (1, 0)
    assert not expectations.satisfied("default/rs", clock.monotonic())
    expectations.creation_observed("default/rs")
    assert expectations.satisfied("default/rs", clock.monotonic())


def test_expectations_expire_after_five_minutes() -> None:
    clock = FakeClock()
    expectations = ControllerExpectations()
    expectations.expect_deletions("default/rs", 3, clock.monotonic())
    clock.step(300)
    assert not expectations.satisfied("default/rs", clock.monotonic())
    clock.step(0.5)
    assert expectations.satisfied("default/rs", clock.monotonic())


def test_lowering_for_skipped_creations_and_deleting_the_key() -> None:
    expectations = ControllerExpectations()
    expectations.expect_creations("k", 7, 0.0)
    expectations.lower_expectations("k", 4, 0)
    expectations.raise_expectations("k", 0, 1)
    assert expectations.get("k") == (3, 1)
    expectations.delete("k")
    assert expectations.get("k") is None
    assert expectations.satisfied("k", 0.0)


# -- slow start ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "batches"),
    [(0, []), (1, [1]), (3, [1, 2]), (10, [1, 2, 4, 3]), (500, [1, 2, 4, 8, 16, 32, 64, 128, 245])],
    ids=["none", "one", "three", "ten", "burst"],
)
def test_slow_start_batches_double_up_to_what_remains(count: int, batches: list[int]) -> None:
    assert slow_start_batches(count) == batches
    assert sum(batches) == count


def test_slow_start_stops_after_the_batch_with_an_error() -> None:
    calls = 0

    async def create() -> None:
        nonlocal calls
        calls += 1
        if calls == 5:  # in the third batch (calls 4..7)
            raise RuntimeError("quota exceeded")

    successes, error = asyncio.run(run_slow_start(10, create))
    assert calls == 7
    assert successes == 6
    assert str(error) == "quota exceeded"


def test_slow_start_reports_every_success() -> None:
    async def create() -> None:
        return None

    assert asyncio.run(run_slow_start(9, create)) == (9, None)


# -- pods from a template ---------------------------------------------------------------------------------------


def test_pod_from_template_carries_labels_annotations_and_the_controller_ref() -> None:
    rs = {"metadata": {"name": "web-5d8f", "namespace": "prod", "uid": "rs-uid"}}
    template = {
        "metadata": {"labels": {"app": "web"}, "annotations": {"note": "x"}, "finalizers": ["f/x"]},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    ref = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "web-5d8f",
        "uid": "rs-uid",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    built = pod_from_template(template, rs, ref)
    assert built == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "generateName": "web-5d8f-",
            "namespace": "prod",
            "labels": {"app": "web"},
            "annotations": {"note": "x"},
            "finalizers": ["f/x"],
            "ownerReferences": [ref],
        },
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    built["spec"]["containers"][0]["image"] = "changed"
    built["metadata"]["labels"]["app"] = "changed"
    assert template["spec"]["containers"][0]["image"] == "nginx"
    assert template["metadata"]["labels"]["app"] == "web"


def test_sidecar_restarts_break_a_tie_of_regular_restarts() -> None:
    def with_sidecar(name: str, restarts: int) -> Obj:
        p = pod(name, restarts=2)
        p["spec"]["initContainers"] = [{"name": "proxy", "restartPolicy": "Always"}, {"name": "setup"}]
        p["status"]["initContainerStatuses"] = [
            {"name": "proxy", "restartCount": restarts},
            {"name": "setup", "restartCount": 50},  # not a sidecar: does not count
        ]
        return p

    calm, flapping = with_sidecar("calm", 1), with_sidecar("flapping", 9)
    assert names(active_pods_ranked([calm, flapping], [], NOW)) == ["flapping", "calm"]
    assert names(active_pods_ranked([calm, pod("busier", restarts=3)], [], NOW)) == ["busier", "calm"]


def test_uid_tracking_counts_each_expected_deletion_once() -> None:
    expectations = UIDTrackingExpectations()
    expectations.expect_deletions_of("default/rs", ["default/a", "default/b"], 0.0)
    expectations.deletion_of_observed("default/rs", "default/a")
    expectations.deletion_of_observed("default/rs", "default/a")  # the delete after the graceful update
    expectations.deletion_of_observed("default/rs", "default/stranger")
    assert expectations.get("default/rs") == (0, 1)
    expectations.deletion_of_observed("default/rs", "default/b")
    assert expectations.satisfied("default/rs", 0.0)
