"""The node lifecycle and taint eviction controllers' pure decisions, on a FakeClock's time."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.controllers.nodelifecycle import eviction, health, pods, taints
from kubelite.controllers.nodelifecycle.tainter import TokenBucket, ZoneTainter

CREATED = "2023-11-14T22:00:00Z"


def node(ready: str | None = "True", heartbeat: str = "2023-11-14T22:13:00Z", **labels: str) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "creationTimestamp": CREATED, "labels": labels},
        "status": {"conditions": []},
    }
    if ready is not None:
        obj["status"]["conditions"] = [
            {"type": "Ready", "status": ready, "reason": "KubeletReady", "message": "kubelet is posting ready status",
             "lastHeartbeatTime": heartbeat, "lastTransitionTime": "2023-11-14T22:10:00Z"},
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
             "message": "kubelet has sufficient memory available", "lastHeartbeatTime": heartbeat,
             "lastTransitionTime": "2023-11-14T22:10:00Z"},
        ]  # fmt: skip
    return obj


def lease(renew: str) -> dict[str, Any]:
    return {"metadata": {"name": "n1", "namespace": "kube-node-lease"}, "spec": {"renewTime": renew}}


# -- health ----------------------------------------------------------------------------------------------


def test_a_node_silent_past_the_grace_period_goes_unknown() -> None:
    clock = FakeClock()
    first = health.check_health(node(), None, None, clock.now())
    assert first.status_update is None and first.health.probe_timestamp == clock.now()
    clock.step(40)
    at_grace = health.check_health(node(), None, first.health, clock.now())
    assert at_grace.status_update is None  # exactly the grace period: not yet
    clock.step(1)
    late = health.check_health(node(), None, at_grace.health, clock.now())
    assert late.status_update is not None
    conditions = {c["type"]: c for c in late.status_update["status"]["conditions"]}
    now = health.stamp(clock.now())
    assert conditions["Ready"] == {
        "type": "Ready",
        "status": "Unknown",
        "reason": "NodeStatusUnknown",
        "message": "Kubelet stopped posting node status.",
        "lastHeartbeatTime": "2023-11-14T22:13:00Z",
        "lastTransitionTime": now,
    }
    assert conditions["MemoryPressure"]["reason"] == "NodeStatusUnknown"
    assert [c["type"] for c in late.status_update["status"]["conditions"]] == [
        "Ready",
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
    ]
    assert conditions["DiskPressure"] == {
        "type": "DiskPressure",
        "status": "Unknown",
        "reason": "NodeStatusNeverUpdated",
        "message": "Kubelet never posted node status.",
        "lastHeartbeatTime": CREATED,
        "lastTransitionTime": now,
    }
    assert (late.observed_ready["status"], late.current_ready and late.current_ready["status"]) == ("True", "Unknown")
    written = health.after_status_update(late, late.status_update, clock.now())
    clock.step(5)
    again = health.check_health(late.status_update, None, written, clock.now())
    assert again.status_update is None  # already Unknown: nothing more to write
    assert again.observed_ready["status"] == "Unknown"


def test_a_renewed_lease_or_a_new_heartbeat_keeps_the_node_alive() -> None:
    clock = FakeClock()
    seen = health.check_health(node(), lease("2023-11-14T22:13:00.000000Z"), None, clock.now()).health
    clock.step(30)
    seen = health.check_health(node(), lease("2023-11-14T22:13:30.000000Z"), seen, clock.now()).health
    assert seen.probe_timestamp == clock.now()
    clock.step(30)
    beat = node(heartbeat="2023-11-14T22:14:00Z")
    seen = health.check_health(beat, lease("2023-11-14T22:13:30.000000Z"), seen, clock.now()).health
    assert seen.probe_timestamp == clock.now()
    clock.step(41)
    late = health.check_health(beat, lease("2023-11-14T22:13:30.000000Z"), seen, clock.now())
    assert late.status_update is not None


def test_a_node_that_never_posted_status_gets_the_startup_grace_from_its_creation() -> None:
    created = FakeClock(wall_offset=1_700_000_000.0 - 1_000.0)  # now() is 2023-11-14T22:13:20Z
    bare = node(ready=None)
    bare["metadata"]["creationTimestamp"] = health.stamp(created.now())
    first = health.check_health(bare, None, None, created.now())
    assert first.grace_period == 60 and first.current_ready is None and first.status_update is None
    created.step(61)
    late = health.check_health(bare, None, first.health, created.now())
    assert late.status_update is not None
    assert [(c["type"], c["reason"]) for c in late.status_update["status"]["conditions"]] == [
        ("Ready", "NodeStatusNeverUpdated"),
        ("MemoryPressure", "NodeStatusNeverUpdated"),
        ("DiskPressure", "NodeStatusNeverUpdated"),
        ("PIDPressure", "NodeStatusNeverUpdated"),
    ]


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        (["True", "True"], (0, health.NORMAL)),
        (["Unknown", "True"], (1, health.NORMAL)),
        (["Unknown", None], (2, health.FULL_DISRUPTION)),
        (["False", "Unknown", "Unknown", "True"], (3, health.PARTIAL_DISRUPTION)),
        (["False", "Unknown", "Unknown", "True", "True", "True"], (3, health.NORMAL)),
    ],
)
def test_zone_states(statuses: list[str | None], expected: tuple[int, str]) -> None:
    assert health.zone_state(statuses) == expected


def test_zone_keys() -> None:
    assert health.zone_key(node()) == ""
    labelled = node(**{"topology.kubernetes.io/region": "eu", "topology.kubernetes.io/zone": "eu-1a"})
    assert health.zone_key(labelled) == "eu:\x00:eu-1a"


# -- taints ----------------------------------------------------------------------------------------------


def test_swapping_taints_matches_by_key_and_effect() -> None:
    current = [
        {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "timeAdded": "t0"},
        {"key": "example.com/dedicated", "value": "gpu", "effect": "NoSchedule"},
    ]
    swapped = taints.swapped(
        current, [{**taints.UNREACHABLE_NO_EXECUTE, "timeAdded": "t1"}], [taints.NOT_READY_NO_EXECUTE]
    )
    assert swapped == [
        {"key": "example.com/dedicated", "value": "gpu", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "t1"},
    ]
    assert taints.swapped(current, [], [taints.UNREACHABLE_NO_EXECUTE]) is None
    wanted = [{"key": taints.UNSCHEDULABLE, "effect": "NoSchedule"}]
    owned = [{"key": taints.NOT_READY, "effect": "NoSchedule", "timeAdded": "t0"}]
    assert taints.diff(wanted, owned) == (wanted, owned)


@pytest.mark.parametrize(
    ("toleration", "tolerated"),
    [
        ({"operator": "Exists"}, True),
        ({"key": "node.kubernetes.io/unreachable", "operator": "Exists"}, True),
        ({"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoSchedule"}, False),
        ({"key": "node.kubernetes.io/unreachable", "value": "x"}, False),
        ({"key": "node.kubernetes.io/unreachable", "operator": "Equal", "value": ""}, True),
        ({"key": "other", "operator": "Exists"}, False),
    ],
)
def test_tolerations(toleration: dict[str, Any], tolerated: bool) -> None:
    assert taints.tolerates(toleration, taints.UNREACHABLE_NO_EXECUTE) is tolerated


def test_the_shortest_toleration_of_those_used_decides() -> None:
    node_taints = [taints.UNREACHABLE_NO_EXECUTE, {"key": "example.com/x", "effect": "NoExecute"}]
    tolerations = [
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 5},
        {"key": "example.com/x", "operator": "Exists", "tolerationSeconds": 60},
    ]
    tolerated, used = taints.matching_tolerations(node_taints, tolerations)
    assert tolerated and taints.min_toleration_seconds(used) == 60  # the first matching toleration of each
    assert taints.matching_tolerations(node_taints, tolerations[:2]) == (False, [])
    assert taints.min_toleration_seconds([{"operator": "Exists"}]) is None
    assert taints.min_toleration_seconds([{"operator": "Exists", "tolerationSeconds": -3}]) == 0


# -- the taint queue -----------------------------------------------------------------------------------


def test_the_zone_queue_lets_one_node_through_every_ten_seconds() -> None:
    clock = FakeClock()
    queue = ZoneTainter(clock.monotonic())
    assert queue.add("a", clock.monotonic()) and queue.add("b", clock.monotonic())
    assert not queue.add("a", clock.monotonic())
    assert queue.take(clock.monotonic()) == "a"
    queue.finished("a")
    assert queue.take(clock.monotonic()) is None  # the burst of one is spent
    clock.step(9.9)
    assert queue.take(clock.monotonic()) is None
    clock.step(0.2)
    assert queue.take(clock.monotonic()) == "b"
    queue.finished("b")
    assert not queue.add("a", clock.monotonic())  # tainted nodes stay members until removed
    assert queue.remove("a") and queue.add("a", clock.monotonic())
    queue.swap_limiter(0, clock.monotonic())
    clock.step(100)
    assert queue.take(clock.monotonic()) is None  # no evictions at all in a full disruption


def test_token_bucket() -> None:
    bucket = TokenBucket(0.5, 0.0)
    assert bucket.try_accept(0.0) and not bucket.try_accept(1.0) and bucket.try_accept(2.0)


# -- pods ------------------------------------------------------------------------------------------------


def pod(ready: str = "True", node_name: str = "n1", tolerations: list[Any] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {"nodeName": node_name, "tolerations": tolerations or []},
        "status": {
            "conditions": [
                {"type": "Initialized", "status": "True", "lastTransitionTime": "t0"},
                {"type": "Ready", "status": ready, "lastProbeTime": None, "lastTransitionTime": "t0"},
            ]
        },
    }


def test_pods_on_a_lost_node_are_marked_not_ready_once() -> None:
    changed = pods.not_ready(pod(), "n1", "t1")
    assert changed is not None
    assert changed["status"]["conditions"][1] == {"type": "Ready", "status": "False", "lastTransitionTime": "t1"}
    assert pods.not_ready(pod("False"), "n1", "t1") is None
    assert pods.not_ready(pod(), "n2", "t1") is None


def test_the_disruption_target_patch() -> None:
    assert pods.disruption_target_patch(pod(), "t1") == {
        "metadata": {"uid": "u1"},
        "status": {
            "conditions": [
                {
                    "type": "DisruptionTarget",
                    "status": "True",
                    "reason": "DeletionByTaintManager",
                    "message": "Taint manager: deleting due to NoExecute taint",
                    "lastTransitionTime": "t1",
                }
            ]
        },
    }


# -- eviction --------------------------------------------------------------------------------------------

DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]


def test_eviction_plans() -> None:
    clock = FakeClock()
    now = clock.now()
    unreachable = [taints.UNREACHABLE_NO_EXECUTE]
    first = eviction.plan(DEFAULT_TOLERATIONS, unreachable, now, None)
    assert first == eviction.Plan(cancel=False, schedule=eviction.Eviction(now, now + 300))
    clock.step(10)
    # seen again later: the deadline counts from the first sight
    assert eviction.plan(DEFAULT_TOLERATIONS, unreachable, clock.now(), first.schedule) == eviction.KEEP
    # a taint not tolerated: at once, replacing what was scheduled
    dedicated = [*unreachable, {"key": "example.com/dedicated", "effect": "NoExecute"}]
    assert eviction.plan(DEFAULT_TOLERATIONS, dedicated, clock.now(), first.schedule) == eviction.Plan(
        cancel=True, schedule=eviction.Eviction(clock.now(), clock.now())
    )
    assert eviction.plan([{"operator": "Exists"}], unreachable, clock.now(), first.schedule) == eviction.CANCEL
    assert eviction.plan(DEFAULT_TOLERATIONS, [], clock.now(), first.schedule) == eviction.CANCEL
    fired = eviction.Eviction(now, now, fired=True)
    assert eviction.plan(DEFAULT_TOLERATIONS, unreachable, clock.now(), fired) == eviction.KEEP
