"""One DaemonSet sync's decisions: manage, rolling update, status (daemon_controller.go, update.go)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubelite.controllers.daemonset.backoff import Backoff
from kubelite.controllers.daemonset.sync import (
    DaemonSetCounts,
    daemon_set_status,
    manage,
    pods_by_node,
    rolling_update,
    selects_everything,
    status_unchanged,
    write_counts,
)
from kubelite.controllers.workloads.actions import Event
from tests.unit.controllers.daemonset.support import HASH, OLD_HASH, daemon_set, node, pod

NOW = datetime(2026, 1, 1, 1, 0, tzinfo=UTC).timestamp()
NODES = [node("n1"), node("n2"), node("n3")]


def _group(*pods: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return pods_by_node(list(pods), False)


def test_pods_are_grouped_by_their_target_node() -> None:
    pending = pod("p2", "n2", bound=False)
    finished = pod("p3", "n3", phase="Succeeded", deleting=True)
    assert pods_by_node([pod("p1", "n1"), pending, finished], False) == {"n1": [pod("p1", "n1")], "n2": [pending]}
    assert pods_by_node([finished], True) == {"n3": [finished]}


def test_manage_creates_on_nodes_without_a_pod() -> None:
    plan = manage(daemon_set(), NODES, _group(pod("p2", "n2")), HASH, Backoff(), NOW)
    assert (plan.nodes_needing_pods, plan.pods_to_delete, plan.events) == (["n1", "n3"], [], [])


def test_manage_deletes_failed_pods_behind_a_backoff() -> None:
    ds = daemon_set()
    backoff = Backoff()
    failed = pod("bad", "n1", phase="Failed")
    plan = manage(ds, NODES[:1], _group(failed), HASH, backoff, NOW)
    assert plan.pods_to_delete == ["bad"]
    assert plan.events == [Event("Warning", "FailedDaemonPod",
                                 "Found failed daemon pod default/bad on node n1, will try to kill it")]
    assert plan.nodes_needing_pods == []  # the node has a pod (the failed one) until it is gone
    again = manage(ds, NODES[:1], _group(pod("bad2", "n1", phase="Failed")), HASH, backoff, NOW + 0.5)
    assert (again.pods_to_delete, again.events, again.requeue_after) == ([], [], 1.0)
    later = manage(ds, NODES[:1], _group(pod("bad2", "n1", phase="Failed")), HASH, backoff, NOW + 1.5)
    assert later.pods_to_delete == ["bad2"]
    assert backoff.get("ds-uid/1/n1") == 2.0


def test_manage_deletes_succeeded_pods_and_surplus_ones() -> None:
    done = pod("done", "n1", phase="Succeeded")
    plan = manage(daemon_set(), NODES[:1], _group(done), HASH, Backoff(), NOW)
    assert plan.pods_to_delete == ["done"]
    assert plan.events == [Event("Normal", "SucceededDaemonPod",
                                 "Found succeeded daemon pod default/done on node n1, will try to delete it")]
    older = pod("older", "n1", created="2026-01-01T00:00:00Z")
    newer = pod("newer", "n1", created="2026-01-01T00:05:00Z")
    pending = pod("pending", "n1", created="2025-12-31T00:00:00Z", bound=False)
    plan = manage(daemon_set(), NODES[:1], _group(newer, pending, older), HASH, Backoff(), NOW)
    assert plan.pods_to_delete == ["newer", "pending"]  # bound first, then oldest: "older" stays


def test_manage_removes_pods_from_nodes_they_may_no_longer_run_on() -> None:
    ds = daemon_set(template_spec={"nodeSelector": {"role": "edge"}, "containers": [{"name": "c", "image": "i"}]})
    terminating = pod("going", "n1", deleting=True)
    plan = manage(ds, NODES[:1], _group(pod("p1", "n1"), terminating), HASH, Backoff(), NOW)
    assert (plan.nodes_needing_pods, plan.pods_to_delete) == ([], ["p1"])
    # an untolerated NoSchedule taint leaves the pod be; NoExecute does not
    tainted = [node("n1", taints=[{"key": "k", "effect": "NoSchedule"}])]
    assert manage(daemon_set(), tainted, _group(pod("p1", "n1")), HASH, Backoff(), NOW).pods_to_delete == []
    evicting = [node("n1", taints=[{"key": "k", "effect": "NoExecute"}])]
    assert manage(daemon_set(), evicting, _group(pod("p1", "n1")), HASH, Backoff(), NOW).pods_to_delete == ["p1"]


def test_manage_removes_pending_pods_of_nodes_that_are_gone() -> None:
    by_node = _group(pod("lost", "gone", bound=False), pod("bound", "gone2"))
    plan = manage(daemon_set(), [], by_node, HASH, Backoff(), NOW)
    assert plan.pods_to_delete == ["lost"]


SURGE = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}


def test_manage_with_surge_keeps_an_old_and_a_new_pod_until_the_new_is_available() -> None:
    ds = daemon_set(strategy=SURGE)
    old = pod("old", "n1", revision=OLD_HASH, created="2026-01-01T00:00:00Z")
    new = pod("new", "n1", ready=False, created="2026-01-01T00:30:00Z")
    assert manage(ds, NODES[:1], _group(old, new), HASH, Backoff(), NOW).pods_to_delete == []
    ready_new = pod("new", "n1", created="2026-01-01T00:30:00Z")
    assert manage(ds, NODES[:1], _group(old, ready_new), HASH, Backoff(), NOW).pods_to_delete == ["old"]
    unready_old = pod("old", "n1", revision=OLD_HASH, ready=False)
    assert manage(ds, NODES[:1], _group(unready_old, new), HASH, Backoff(), NOW).pods_to_delete == ["old"]
    extra = pod("extra", "n1", created="2026-01-01T00:40:00Z")
    assert manage(ds, NODES[:1], _group(old, new, extra), HASH, Backoff(), NOW).pods_to_delete == ["extra"]


def test_a_rolling_update_deletes_old_pods_within_max_unavailable() -> None:
    ds = daemon_set()
    by_node = _group(pod("a", "n1", revision=OLD_HASH), pod("b", "n2", revision=OLD_HASH),
                     pod("c", "n3", revision=OLD_HASH))
    plan = rolling_update(ds, NODES, by_node, HASH, NOW)
    assert (plan.pods_to_delete, plan.nodes_needing_pods) == (["a"], [])
    # a node without a pod counts as unavailable: nothing more may go
    by_node = _group(pod("b", "n2", revision=OLD_HASH), pod("c", "n3", revision=OLD_HASH))
    assert rolling_update(ds, NODES, by_node, HASH, NOW).pods_to_delete == []
    # an unavailable old pod is replaced whatever the budget
    by_node = _group(pod("b", "n2", revision=OLD_HASH, ready=False), pod("c", "n3", revision=OLD_HASH))
    assert rolling_update(ds, NODES, by_node, HASH, NOW).pods_to_delete == ["b"]
    # a percentage rounds up
    wide = daemon_set(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%"}})
    by_node = _group(*(pod(n, n, revision=OLD_HASH) for n in ("n1", "n2", "n3")))
    assert rolling_update(wide, NODES, by_node, HASH, NOW).pods_to_delete == ["n1", "n2"]


def test_a_rolling_update_waits_for_new_pods_to_be_available() -> None:
    ds = daemon_set(min_ready=120)
    fresh = pod("a", "n1", ready_since="2026-01-01T00:59:00Z")
    by_node = _group(fresh, pod("b", "n2", revision=OLD_HASH), pod("c", "n3", revision=OLD_HASH))
    assert rolling_update(ds, NODES, by_node, HASH, NOW).pods_to_delete == []
    settled = pod("a", "n1", ready_since="2026-01-01T00:57:00Z")
    by_node = _group(settled, pod("b", "n2", revision=OLD_HASH), pod("c", "n3", revision=OLD_HASH))
    assert rolling_update(ds, NODES, by_node, HASH, NOW).pods_to_delete == ["b"]


def test_a_surging_rolling_update_creates_beside_old_pods() -> None:
    ds = daemon_set(strategy=SURGE)
    by_node = _group(*(pod(n, n, revision=OLD_HASH) for n in ("n1", "n2", "n3")))
    plan = rolling_update(ds, NODES, by_node, HASH, NOW)
    assert (plan.nodes_needing_pods, plan.pods_to_delete) == (["n1"], [])
    # a new pod still becoming available uses the surge budget
    waiting = _group(pod("n1", "n1", revision=OLD_HASH), pod("new1", "n1", ready=False),
                     pod("n2", "n2", revision=OLD_HASH))
    assert rolling_update(ds, NODES, waiting, HASH, NOW).nodes_needing_pods == []
    # once available, its old pod goes and the next node surges
    available = _group(pod("n1", "n1", revision=OLD_HASH), pod("new1", "n1"), pod("n2", "n2", revision=OLD_HASH))
    plan = rolling_update(ds, NODES, available, HASH, NOW)
    assert (plan.pods_to_delete, plan.nodes_needing_pods) == (["n1"], ["n2"])
    # an unavailable old pod gets its replacement beyond the budget
    broken = _group(pod("n1", "n1", revision=OLD_HASH, ready=False), pod("n2", "n2", revision=OLD_HASH))
    assert rolling_update(ds, NODES, broken, HASH, NOW).nodes_needing_pods == ["n1", "n2"]


def test_an_invalid_budget_is_an_error() -> None:
    ds = daemon_set(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "lots"}})
    with pytest.raises(ValueError, match=r"^invalid value for MaxUnavailable: "):
        rolling_update(ds, NODES, {}, HASH, NOW)


def test_the_status_counts() -> None:
    ds = daemon_set(template_spec={"nodeSelector": {"role": "edge"}, "containers": [{"name": "c", "image": "i"}]},
                    min_ready=600)
    nodes = [node("n1", labels={"role": "edge"}), node("n2", labels={"role": "edge"}),
             node("n3", labels={"role": "edge"}), node("n4")]
    by_node = _group(
        pod("a", "n1", ready_since="2026-01-01T00:00:00Z"),
        pod("b", "n2", revision=OLD_HASH, ready_since="2026-01-01T00:59:00Z"),
        pod("d", "n4"),
    )
    counts = daemon_set_status(ds, nodes, by_node, HASH, NOW)
    assert counts == DaemonSetCounts(
        desired_number_scheduled=3, current_number_scheduled=2, number_misscheduled=1, number_ready=2,
        updated_number_scheduled=1, number_available=1, number_unavailable=2,
    )
    status: dict[str, Any] = {"numberAvailable": 5}
    write_counts(status, DaemonSetCounts(2, 2, 0, 0, 0, 0, 2))
    assert status == {"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberMisscheduled": 0,
                      "numberReady": 0, "numberUnavailable": 2}
    ds["status"] = {"observedGeneration": 1, **status}
    assert status_unchanged(ds, DaemonSetCounts(2, 2, 0, 0, 0, 0, 2))
    ds["metadata"]["generation"] = 2
    assert not status_unchanged(ds, DaemonSetCounts(2, 2, 0, 0, 0, 0, 2))


def test_an_empty_selector_selects_everything() -> None:
    ds = daemon_set()
    assert not selects_everything(ds)
    ds["spec"]["selector"] = {}
    assert selects_everything(ds)
