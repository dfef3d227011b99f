"""A PodDisruptionBudget's status (kube's disruption controller), as a function of its pods and their owners."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kubelite.controllers.disruption.budget import budget_status

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def pod(name: str, *, ready: bool = True, owner: str | None = None, terminating: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": "web"}}
    if owner:
        meta["ownerReferences"] = [{"kind": "ReplicaSet", "name": owner, "uid": owner, "controller": True}]
    if terminating:
        meta["deletionTimestamp"] = "2026-12-01T11:59:00Z"
    return {"metadata": meta, "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def pdb(status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "namespace": "default", "generation": 3},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
        "status": status or {},
    }


def counts(status: dict[str, Any]) -> tuple[int, int, int, int]:
    return (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"], status["disruptionsAllowed"])


def test_an_integer_min_available_counts_the_selected_pods() -> None:
    got = budget_status(pdb(minAvailable=2), [pod("a"), pod("b"), pod("c", ready=False)], {}, NOW)
    assert counts(got.status) == (3, 2, 2, 0)
    assert got.status["observedGeneration"] == 3
    [condition] = got.status["conditions"]
    assert condition == {
        "type": "DisruptionAllowed",
        "status": "False",
        "observedGeneration": 3,
        "lastTransitionTime": "2026-12-01T12:00:00Z",
        "reason": "InsufficientPods",
        "message": "",
    }


def test_max_unavailable_reads_the_owners_scale_once_per_owner() -> None:
    pods = [pod("a", owner="rs1"), pod("b", owner="rs1"), pod("c", owner="rs1", terminating=True)]
    got = budget_status(pdb(maxUnavailable=1), pods, {"rs1": 3}, NOW)
    assert counts(got.status) == (3, 2, 2, 0)
    got = budget_status(pdb(maxUnavailable="50%"), pods, {"rs1": 4}, NOW)
    assert counts(got.status) == (4, 2, 2, 0)


def test_a_percentage_min_available_rounds_up() -> None:
    pods = [pod(n, owner="rs1") for n in "abcde"]
    got = budget_status(pdb(minAvailable="50%"), pods, {"rs1": 5}, NOW)
    assert counts(got.status) == (5, 3, 5, 2)
    assert got.status["conditions"][0]["reason"] == "SufficientPods"


def test_an_owner_without_a_scale_fails_safe() -> None:
    budget = pdb(maxUnavailable=1, status={"disruptionsAllowed": 4})
    got = budget_status(budget, [pod("a", owner="x")], {"x": None}, NOW)
    assert got.status["disruptionsAllowed"] == 0
    assert got.status["conditions"][0]["reason"] == "SyncFailed"
    assert got.status["conditions"][0]["message"] == 'found no controllers for pod "a"'
    assert got.events == [
        (
            "Warning",
            "CalculateExpectedPodCountFailed",
            'Failed to calculate the number of expected pods: found no controllers for pod "a"',
        )
    ]


def test_unmanaged_pods_under_max_unavailable_are_warned_about() -> None:
    got = budget_status(pdb(maxUnavailable=1), [pod("a")], {}, NOW)
    assert [reason for _, reason, _ in got.events] == ["UnmanagedPods"]


def test_no_pods_is_an_event_and_no_allowance() -> None:
    got = budget_status(pdb(minAvailable=0), [], {}, NOW)
    assert counts(got.status) == (0, 0, 0, 0)
    assert got.events == [("Normal", "NoPods", "No matching pods found")]


def test_recent_evictions_do_not_count_as_healthy_until_they_expire() -> None:
    recent = (NOW - timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    old = (NOW - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    status = {"disruptedPods": {"a": recent, "b": old, "gone": recent}}
    got = budget_status(pdb(status, minAvailable=1), [pod("a"), pod("b"), pod("c")], {}, NOW)
    assert got.status["disruptedPods"] == {"a": recent}
    assert counts(got.status) == (3, 1, 2, 1)
    assert got.recheck_after == 90.0


def test_the_transition_time_stays_while_the_condition_holds() -> None:
    condition = {"type": "DisruptionAllowed", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                 "reason": "SufficientPods", "message": ""}  # fmt: skip
    earlier = {"conditions": [condition]}
    got = budget_status(pdb(earlier, minAvailable=1), [pod("a"), pod("b")], {}, NOW)
    assert got.status["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z"
