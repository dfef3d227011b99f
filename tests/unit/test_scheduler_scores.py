"""The scheduler's score plugins: raw scores, kube's normalization onto 0-100, and the default weights."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubelite.cluster.scheduler.plugins import (
    InterPodAffinity,
    NodeAffinity,
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    PodTopologySpread,
    TaintToleration,
    default_scores,
)
from kubelite.cluster.scheduler.plugins.base import SKIP, CycleState, ScorePlugin
from kubelite.cluster.scheduler.snapshot import PodInfo, Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod

Obj = dict[str, Any]


def run_score(plugin: ScorePlugin, pod: Obj, nodes: list[Obj], placed: Sequence[Obj] = ()) -> list[int] | None:
    """Normalized scores of every node, in order; None when the plugin skips the pod."""
    snapshot = Snapshot.of(nodes, list(placed))
    state = CycleState(PodInfo(pod), snapshot)
    infos = snapshot.nodes()
    if plugin.pre_score(state, infos) is SKIP:
        return None
    scores = [plugin.score(state, node) for node in infos]
    plugin.normalize(state, scores)
    return scores


def test_default_weights_are_kubes() -> None:
    assert {p.name: p.weight for p in default_scores()} == {
        "TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
        "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1}


def test_least_allocated_prefers_the_emptier_node() -> None:
    nodes = [make_node("a", cpu="4", memory="8Gi"), make_node("b", cpu="4", memory="8Gi")]
    placed = [make_pod("old", cpu="1", memory="2Gi", node_name="a")]
    # a: cpu (4000-2000)/4000 = 50, memory (8-4)/8 = 50; b: 75 and 75
    assert run_score(NodeResourcesFit(), make_pod("p", cpu="1", memory="2Gi"), nodes, placed) == [50, 75]


def test_least_allocated_counts_best_effort_pods_as_100m_and_200mi() -> None:
    nodes = [make_node("a", cpu="1", memory="1000Mi")]
    placed = [make_pod("old", node_name="a")]
    # cpu (1000-200)*100/1000 = 80, memory (1000-400)*100/1000 = 60, mean 70
    assert run_score(NodeResourcesFit(), make_pod("p"), nodes, placed) == [70]


def test_least_allocated_overcommitted_resource_scores_zero() -> None:
    nodes = [make_node("a", cpu="1", memory="8Gi")]
    # cpu over capacity scores 0; memory (8192-1024)*100/8192 = 87 (integer); (0 + 87) / 2 = 43
    assert run_score(NodeResourcesFit(), make_pod("p", cpu="2", memory="1Gi"), nodes) == [43]


def test_balanced_allocation() -> None:
    nodes = [make_node("a", cpu="4", memory="8Gi"), make_node("b", cpu="4", memory="8Gi")]
    placed = [make_pod("old", cpu="1", memory="4Gi", node_name="b")]
    pod = make_pod("p", cpu="2", memory="2Gi")
    # a: cpu 0.5, memory 0.25, deviation 0.125 -> 87; b: cpu 0.75, memory 0.75 -> 100
    assert run_score(NodeResourcesBalancedAllocation(), pod, nodes, placed) == [87, 100]
    assert run_score(NodeResourcesBalancedAllocation(), make_pod("be"), nodes, placed) is None


def test_node_affinity_preferred_terms_scale_to_100() -> None:
    nodes = [make_node("a", labels={"zone": "z1", "disk": "ssd"}), make_node("b", labels={"zone": "z1"}),
             make_node("c", labels={"zone": "z2"})]
    preferred = [
        {"weight": 10, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}},
        {"weight": 5, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}},
    ]
    pod = make_pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}})
    # raw 15, 10, 0 -> 100, 10*100//15 = 66, 0
    assert run_score(NodeAffinity(), pod, nodes) == [100, 66, 0]
    assert run_score(NodeAffinity(), make_pod("q"), nodes) is None


def test_taint_toleration_score_is_reversed() -> None:
    soft = {"effect": "PreferNoSchedule", "value": ""}
    nodes = [make_node("a", taints=[{"key": "k1", **soft}, {"key": "k2", **soft}]),
             make_node("b", taints=[{"key": "k1", **soft}]), make_node("c")]
    assert run_score(TaintToleration(), make_pod("p"), nodes) == [0, 50, 100]
    tolerant = make_pod("p", tolerations=[{"key": "k2", "operator": "Exists", "effect": "PreferNoSchedule"}])
    assert run_score(TaintToleration(), tolerant, nodes) == [0, 0, 100]
    assert run_score(TaintToleration(), make_pod("p"), [make_node("x"), make_node("y")]) == [100, 100]


ZONED = [make_node("a", labels={"zone": "z1"}), make_node("b", labels={"zone": "z1"}),
         make_node("c", labels={"zone": "z2"})]


def test_inter_pod_affinity_preferred_terms() -> None:
    placed = [make_pod("db", node_name="a", labels={"app": "db"}), make_pod("web", node_name="b",
                                                                           labels={"app": "web"})]
    affinity = {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}}]},
    }
    # raw: a 10, b 10 - 5 = 5, c 0 -> min-max scaled
    assert run_score(InterPodAffinity(), make_pod("p", affinity=affinity), ZONED, placed) == [100, 50, 0]
    assert run_score(InterPodAffinity(), make_pod("p"), ZONED, placed) is None


def test_inter_pod_affinity_counts_placed_pods_terms_towards_the_incoming_pod() -> None:
    # the placed pod's required affinity to app=web counts with weight 1 in its zone
    placed = [make_pod("cache", node_name="c", labels={"app": "cache"}, affinity={"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}]}})]
    assert run_score(InterPodAffinity(), make_pod("w", labels={"app": "web"}), ZONED, placed) == [0, 0, 100]


def test_topology_spread_schedule_anyway_prefers_the_emptier_domain() -> None:
    placed = [make_pod("w1", node_name="a", labels={"app": "web"}),
              make_pod("w2", node_name="a", labels={"app": "web"})]
    constraint = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                   "labelSelector": {"matchLabels": {"app": "web"}}}]
    pod = make_pod("w3", labels={"app": "web"}, topologySpreadConstraints=constraint)
    # counts z1 = 2, z2 = 0, weight ln(2 + 2): raw round(2 * 1.386) = 3, 3, 0; reversed
    assert run_score(PodTopologySpread(), pod, ZONED, placed) == [0, 0, 100]
    unlabelled = [*ZONED, make_node("d")]
    assert run_score(PodTopologySpread(), pod, unlabelled, placed) == [0, 0, 100, 0]
    assert run_score(PodTopologySpread(), make_pod("x"), ZONED, placed) is None
