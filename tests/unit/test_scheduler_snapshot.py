"""The scheduler's snapshot: per-node sums kept up to date from node and pod events, and assumed pods."""

from __future__ import annotations

import pytest

from kubelite.cluster.scheduler.snapshot import Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod

MI = 1024 * 1024


def test_pods_add_up_per_node_and_leave_on_delete() -> None:
    snapshot = Snapshot.of([make_node("a"), make_node("b")], [])
    snapshot.add_pod(make_pod("p1", cpu="500m", memory="100Mi", node_name="a", host_ports=[80]))
    snapshot.add_pod(make_pod("p2", cpu="250m", node_name="a"))
    snapshot.add_pod(make_pod("pending", cpu="1"))  # no node yet: the queue's, not the snapshot's
    a = snapshot.node("a")
    assert a is not None
    assert a.requested == {"cpu": 750, "memory": 100 * MI}
    assert a.non_zero_requested == {"cpu": 750, "memory": 300 * MI}
    assert set(a.pods) == {"uid-default-p1", "uid-default-p2"}
    assert dict(a.used_ports) == {("TCP", "0.0.0.0", 80): 1}
    snapshot.remove_pod(make_pod("p1", node_name="a"))
    assert a.requested == {"cpu": 250, "memory": 0}
    assert not a.used_ports
    assert snapshot.pod("uid-default-pending") is None


def test_a_pod_update_moves_its_accounting() -> None:
    snapshot = Snapshot.of([make_node("a"), make_node("b")], [make_pod("p", cpu="1", node_name="a")])
    snapshot.update_pod(make_pod("p", cpu="2", node_name="b"))
    assert snapshot.node("a").requested["cpu"] == 0  # type: ignore[union-attr]
    assert snapshot.node("b").requested["cpu"] == 2000  # type: ignore[union-attr]
    snapshot.update_pod({**make_pod("p", cpu="2", node_name="b"), "status": {"phase": "Succeeded"}})
    assert snapshot.node("b").requested["cpu"] == 0  # type: ignore[union-attr]


def test_assume_confirm_and_forget() -> None:
    snapshot = Snapshot.of([make_node("a")], [])
    pod = make_pod("p", cpu="1")
    snapshot.assume_pod(pod, "a")
    assert snapshot.is_assumed("uid-default-p")
    assert snapshot.node("a").requested["cpu"] == 1000  # type: ignore[union-attr]
    assert pod["spec"].get("nodeName") is None  # the caller's object is not changed
    with pytest.raises(ValueError, match="already in the cache"):
        snapshot.assume_pod(pod, "a")
    # the bound pod arrives from the watch: confirmed, counted once
    snapshot.add_pod(make_pod("p", cpu="1", node_name="a"))
    assert not snapshot.is_assumed("uid-default-p")
    assert snapshot.node("a").requested["cpu"] == 1000  # type: ignore[union-attr]
    snapshot.forget_pod(pod)  # a confirmed pod is not forgotten
    assert snapshot.node("a").requested["cpu"] == 1000  # type: ignore[union-attr]

    other = make_pod("q", cpu="1")
    snapshot.assume_pod(other, "a")
    snapshot.forget_pod(other)  # the binding failed
    assert snapshot.node("a").requested["cpu"] == 1000  # type: ignore[union-attr]
    assert snapshot.pod("uid-default-q") is None


def test_nodes_come_and_go_and_keep_their_pods() -> None:
    snapshot = Snapshot()
    snapshot.add_pod(make_pod("early", cpu="1", node_name="late-node"))
    assert [n.name for n in snapshot.nodes()] == []  # a placeholder, not a node to schedule on
    snapshot.add_node(make_node("late-node", cpu="2"))
    assert [n.name for n in snapshot.nodes()] == ["late-node"]
    assert snapshot.node("late-node").requested["cpu"] == 1000  # type: ignore[union-attr]
    snapshot.update_node(make_node("late-node", cpu="8", labels={"zone": "z1"}))
    info = snapshot.node("late-node")
    assert info is not None and info.allocatable["cpu"] == 8000 and info.labels["zone"] == "z1"
    snapshot.remove_node("late-node")
    assert snapshot.nodes() == [] and snapshot.node("late-node") is None
    snapshot.remove_pod(make_pod("early", node_name="late-node"))
    snapshot.add_node(make_node("late-node"))
    assert snapshot.node("late-node").requested == {}  # type: ignore[union-attr]


def test_pods_with_affinity_are_indexed_by_node() -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    snapshot = Snapshot.of([make_node("a"), make_node("b")],
                           [make_pod("x", node_name="a", affinity=anti), make_pod("y", node_name="b")])
    assert [n.name for n in snapshot.nodes_with_pod_affinity()] == ["a"]
    assert [n.name for n in snapshot.nodes_with_required_anti_affinity()] == ["a"]
    snapshot.remove_pod(make_pod("x", node_name="a"))
    assert snapshot.nodes_with_pod_affinity() == []
