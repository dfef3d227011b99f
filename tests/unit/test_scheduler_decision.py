"""The decision: filtering every node, scoring the feasible ones, picking the best, and kube's FailedScheduling
text when none fits."""

from __future__ import annotations

from collections import Counter

import pytest

from kubelite.cluster.scheduler.schedule import Scheduler, num_feasible_nodes_to_find, schedule
from kubelite.cluster.scheduler.snapshot import Snapshot
from kubelite.cluster.scheduler.testing import CONTROL_PLANE_TAINT, make_node, make_pod


def cluster() -> Snapshot:
    return Snapshot.of([make_node("worker", cpu="1"), make_node("cp1", taints=[CONTROL_PLANE_TAINT]),
                        make_node("cp2", taints=[CONTROL_PLANE_TAINT])], [])


def test_the_failed_scheduling_message_with_several_reasons() -> None:
    decision = schedule(make_pod("p", cpu="2"), cluster())
    assert not decision.scheduled
    assert decision.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    assert decision.evaluated == 3 and decision.feasible == 0
    assert decision.rejected_by == {"NodeResourcesFit", "TaintToleration"}


def test_reasons_sort_as_strings_and_a_node_can_give_several() -> None:
    nodes = [make_node(f"n{i}", cpu="1", memory="1Gi") for i in range(10)] + [make_node("x", cpu="8", memory="1Gi")]
    decision = schedule(make_pod("p", cpu="2", memory="2Gi"), Snapshot.of(nodes, []))
    # "10 ..." sorts before "11 ..." and "1 ..." would sort before both: plain string order, as Go's sort.Strings
    assert decision.message.startswith("0/11 nodes are available: 10 Insufficient cpu, 11 Insufficient memory. ")


def test_preemption_verdicts() -> None:
    snapshot = Snapshot.of([make_node("a", cpu="1")], [make_pod("low", cpu="1", node_name="a", priority=0)])
    never = make_pod("p", cpu="1", priority=10, preemptionPolicy="Never")
    assert schedule(never, snapshot).message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.")
    # evicting the lower-priority pod would make room: kube would preempt, and its message has no verdict
    eager = schedule(make_pod("p", cpu="1", priority=10), snapshot)
    assert eager.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert eager.preemption_might_help
    # even without the lower-priority pod the node is too small: the reason it still fails for
    big = schedule(make_pod("p", cpu="2", priority=10), snapshot)
    assert big.message == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                           "preemption: 0/1 nodes are available: 1 Insufficient cpu.")


def test_no_nodes() -> None:
    decision = schedule(make_pod("p"), Snapshot())
    assert decision.message == "no nodes available to schedule pods"


def test_the_best_node_wins() -> None:
    snapshot = Snapshot.of([make_node("small", cpu="2"), make_node("big", cpu="16"), make_node("mid", cpu="4")], [])
    decision = schedule(make_pod("p", cpu="1"), snapshot)
    assert decision.node_name == "big"
    assert decision.feasible == 3
    assert set(decision.scores) == {"small", "big", "mid"}
    assert decision.scores["big"] == max(decision.scores.values())


def test_a_single_feasible_node_is_taken_without_scoring() -> None:
    decision = schedule(make_pod("p", cpu="1"), cluster())
    assert decision.node_name == "worker"
    assert decision.scores == {}
    assert decision.statuses["cp1"].reasons == ("node(s) had untolerated taint(s)",)


def test_ties_are_broken_at_random_and_the_seed_repeats_it() -> None:
    nodes = [make_node(f"n{i}") for i in range(5)]
    snapshot = Snapshot.of(nodes, [])
    picks = Counter(Scheduler(seed=seed).schedule(make_pod("p"), snapshot).node_name for seed in range(200))
    assert set(picks) == {f"n{i}" for i in range(5)}
    assert min(picks.values()) > 15  # roughly uniform: 40 expected each
    first = [Scheduler(seed=7).schedule(make_pod("p"), snapshot).node_name for _ in range(3)]
    assert len(set(first)) == 1


def test_assumed_pods_steer_the_next_decision() -> None:
    snapshot = Snapshot.of([make_node("a", cpu="2"), make_node("b", cpu="2")], [])
    scheduler = Scheduler(seed=1)
    placed = []
    for index in range(4):
        pod = make_pod(f"p{index}", cpu="1")
        decision = scheduler.schedule(pod, snapshot)
        assert decision.node_name is not None
        snapshot.assume_pod(pod, decision.node_name)
        placed.append(decision.node_name)
    assert Counter(placed) == {"a": 2, "b": 2}
    decision = scheduler.schedule(make_pod("p4", cpu="1"), snapshot)
    assert decision.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")


@pytest.mark.parametrize(("nodes", "wanted"), [(50, 50), (99, 99), (100, 100), (1000, 420), (5000, 500),
                                               (10_000, 500), (200, 100)])
def test_percentage_of_nodes_to_score(nodes: int, wanted: int) -> None:
    assert num_feasible_nodes_to_find(nodes) == wanted


def test_the_walk_stops_early_and_resumes_where_it_stopped() -> None:
    snapshot = Snapshot.of([make_node(f"n{i:04}") for i in range(1000)], [])
    scheduler = Scheduler(seed=0)
    decision = scheduler.schedule(make_pod("p"), snapshot)
    assert decision.feasible == 420 and decision.evaluated == 420
    assert scheduler.next_start_node_index == 420
    assert int(decision.node_name[1:]) < 420  # type: ignore[index]
    second = scheduler.schedule(make_pod("q"), snapshot)
    assert 420 <= int(second.node_name[1:]) < 840  # type: ignore[index]
    assert scheduler.next_start_node_index == 840


def test_failed_filters_count_as_evaluated_nodes() -> None:
    nodes = [make_node(f"t{i:03}", taints=[CONTROL_PLANE_TAINT]) for i in range(100)]
    nodes += [make_node(f"n{i:03}") for i in range(100)]
    scheduler = Scheduler(seed=0)
    decision = scheduler.schedule(make_pod("p"), Snapshot.of(nodes, []))
    assert decision.feasible == 100 and decision.evaluated == 200


def daemon_pod(name: str, *nodes: str, cpu: str = "1") -> dict[str, object]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(nodes)}]}
    return make_pod(name, cpu=cpu, affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}})


def test_a_pod_pinned_by_name_is_filtered_only_on_its_node() -> None:
    snapshot = Snapshot.of([make_node("a", cpu="1"), make_node("b"), make_node("c")], [])
    assert schedule(daemon_pod("ds-b", "b"), snapshot).node_name == "b"
    decision = schedule(daemon_pod("ds-a", "a", cpu="2"), snapshot)
    assert decision.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    assert decision.evaluated == 1


def test_name_terms_that_cannot_all_hold_conflict() -> None:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]},
                            {"key": "metadata.name", "operator": "In", "values": ["b"]}]}
    pod = make_pod("p", affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}})
    decision = schedule(pod, Snapshot.of([make_node("a"), make_node("b")], []))
    assert decision.message == (
        "0/2 nodes are available: pod affinity terms conflict. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
