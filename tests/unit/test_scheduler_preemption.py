"""DefaultPreemption's decisions: victims per node, reprieves, disruption budgets, and the choice of node."""

from __future__ import annotations

from typing import Any

from kubelite.cluster.scheduler.preemption import Candidate, eligible, pick_one, select_victims
from kubelite.cluster.scheduler.schedule import Scheduler, schedule
from kubelite.cluster.scheduler.snapshot import PodInfo, Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod


def started(pod: dict[str, Any], at: str) -> dict[str, Any]:
    pod["status"] = {"phase": "Running", "startTime": at}
    return pod


def pdb(name: str, labels: dict[str, str], allowed: int, disrupted: dict[str, str] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"selector": {"matchLabels": labels}},
            "status": {"disruptionsAllowed": allowed, "disruptedPods": disrupted or {}}}  # fmt: skip


def victims(decision_candidate: Candidate | None) -> list[str]:
    assert decision_candidate is not None
    return [info.name for info in decision_candidate.victims]


def test_the_fewest_lower_priority_pods_are_evicted_the_most_important_kept() -> None:
    pods = [
        started(make_pod("low-old", cpu="1", node_name="a", priority=1), "2026-01-01T00:00:00Z"),
        started(make_pod("low-new", cpu="1", node_name="a", priority=1), "2026-01-02T00:00:00Z"),
        started(make_pod("lowest", cpu="1", node_name="a", priority=0), "2026-01-01T00:00:00Z"),
        started(make_pod("peer", cpu="1", node_name="a", priority=10), "2026-01-01T00:00:00Z"),
    ]
    snapshot = Snapshot.of([make_node("a", cpu="4")], pods)
    decision = schedule(make_pod("p", cpu="2", priority=10), snapshot)
    assert decision.message == "0/1 nodes are available: 1 Insufficient cpu."
    # reprieved in order of importance: low-old (priority 1, earlier) stays, low-new and lowest go
    assert victims(decision.preemption) == ["low-new", "lowest"]
    assert decision.preemption is not None and decision.preemption.node_name == "a"


def test_pods_a_budget_protects_are_reprieved_first() -> None:
    pods = [make_pod("guarded", cpu="1", node_name="a", priority=0, labels={"app": "db"}),
            make_pod("free", cpu="1", node_name="a", priority=0, labels={"app": "web"})]
    snapshot = Snapshot.of([make_node("a", cpu="2")], pods)
    pod = PodInfo(make_pod("p", cpu="1", priority=5))
    node = snapshot.node("a")
    assert node is not None

    def fits(trial: Any) -> bool:
        return trial.requested.get("cpu", 0) + 1000 <= 2000

    candidate = select_victims(pod, node, fits, [pdb("db", {"app": "db"}, 0)])
    assert candidate is not None and victims(candidate) == ["free"] and candidate.pdb_violations == 0
    # a pod already counted in disruptedPods does not spend the budget again
    both = select_victims(PodInfo(make_pod("p", cpu="2", priority=5)), node,
                          lambda trial: trial.requested.get("cpu", 0) + 2000 <= 2000,
                          [pdb("db", {"app": "db"}, 0, {"guarded": "2026-01-01T00:00:00Z"})])
    assert both is not None and both.pdb_violations == 0 and sorted(victims(both)) == ["free", "guarded"]
    violating = select_victims(PodInfo(make_pod("p", cpu="2", priority=5)), node,
                               lambda trial: trial.requested.get("cpu", 0) + 2000 <= 2000,
                               [pdb("db", {"app": "db"}, 0)])
    assert violating is not None and violating.pdb_violations == 1


def test_no_lower_priority_pods_no_candidate() -> None:
    snapshot = Snapshot.of([make_node("a", cpu="1")], [make_pod("peer", cpu="1", node_name="a", priority=5)])
    decision = schedule(make_pod("p", cpu="1", priority=5), snapshot)
    assert decision.preemption is None
    assert decision.message.endswith("1 No preemption victims found for incoming pod.")


def test_the_node_chosen_has_the_fewest_violations_then_the_lowest_victims() -> None:
    low, mid = PodInfo(make_pod("low", priority=1)), PodInfo(make_pod("mid", priority=5))

    def picked(*candidates: Candidate) -> str | None:
        chosen = pick_one(candidates)
        return chosen.node_name if chosen is not None else None

    assert picked(Candidate("a", (mid,), 1), Candidate("b", (mid,), 0)) == "b"
    assert picked(Candidate("a", (mid,), 0), Candidate("b", (low,), 0)) == "b"
    two_low = (low, PodInfo(make_pod("low2", priority=1)))
    assert picked(Candidate("a", two_low, 0), Candidate("b", (low,), 0)) == "b"
    early = PodInfo(started(make_pod("e", priority=1), "2026-01-01T00:00:00Z"))
    late = PodInfo(started(make_pod("l", priority=1), "2026-02-01T00:00:00Z"))
    # the victims that started last are the cheapest to lose
    assert picked(Candidate("a", (early,), 0), Candidate("b", (late,), 0)) == "b"
    assert picked() is None


def test_a_pod_whose_victims_are_still_leaving_does_not_preempt_again() -> None:
    leaving = make_pod("victim", cpu="1", node_name="a", priority=0)
    leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    snapshot = Snapshot.of([make_node("a", cpu="1")], [leaving])
    waiting = make_pod("p", cpu="1", priority=10)
    waiting["status"]["nominatedNodeName"] = "a"
    assert not eligible(PodInfo(waiting), snapshot.node)
    decision = schedule(waiting, snapshot)
    assert decision.preemption is None
    assert decision.message == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                                "preemption: not eligible due to a terminating pod on the nominated node.")


def test_a_nominated_pod_holds_its_room_against_pods_of_no_higher_priority() -> None:
    snapshot = Snapshot.of([make_node("a", cpu="2"), make_node("b", cpu="1")], [])
    nominated = {"a": [PodInfo(make_pod("preemptor", cpu="2", priority=10))]}
    assert schedule(make_pod("low", cpu="1", priority=1), snapshot).node_name == "a"
    decision = Scheduler().schedule(make_pod("low", cpu="1", priority=1), snapshot, nominated=nominated)
    assert decision.node_name == "b"
    # a pod of higher priority than the nominated one ignores the nomination
    high = Scheduler().schedule(make_pod("high", cpu="2", priority=20), snapshot, nominated=nominated)
    assert high.node_name == "a"
