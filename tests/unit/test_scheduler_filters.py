"""The scheduler's filter plugins, one by one: a node that fits, a node that does not and kube's reason text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kubelite.cluster.scheduler import resources
from kubelite.cluster.scheduler.plugins import (
    InterPodAffinity,
    NodeAffinity,
    NodeName,
    NodePorts,
    NodeResourcesFit,
    NodeUnschedulable,
    PodTopologySpread,
    TaintToleration,
)
from kubelite.cluster.scheduler.plugins.base import SKIP, UNRESOLVABLE, UNSCHEDULABLE, CycleState, FilterPlugin, Status
from kubelite.cluster.scheduler.snapshot import PodInfo, Snapshot
from kubelite.cluster.scheduler.testing import CONTROL_PLANE_TAINT, make_node, make_pod

Obj = dict[str, Any]


def run_filter(plugin: FilterPlugin, pod: Obj, nodes: list[Obj], placed: Sequence[Obj] = (),
               on: str | None = None) -> Status | None:
    snapshot = Snapshot.of(nodes, list(placed))
    state = CycleState(PodInfo(pod), snapshot)
    verdict = plugin.pre_filter(state)
    if verdict is SKIP:
        return None
    if isinstance(verdict, Status):
        return verdict
    node = snapshot.node(on or nodes[0]["metadata"]["name"])
    assert node is not None
    return plugin.filter(state, node)


def reasons(status: Status | None) -> tuple[str, ...] | None:
    return None if status is None else status.reasons


# -- NodeName, NodeUnschedulable -----------------------------------------------------------------------


def test_node_name_fits_only_the_named_node() -> None:
    pod = make_pod("p", node_name="a")
    assert run_filter(NodeName(), pod, [make_node("a"), make_node("b")], on="a") is None
    status = run_filter(NodeName(), pod, [make_node("a"), make_node("b")], on="b")
    assert status == Status(("node(s) didn't match the requested node name",), UNRESOLVABLE, "NodeName")


def test_node_unschedulable_rejects_cordoned_nodes_unless_tolerated() -> None:
    cordoned = make_node("a", unschedulable=True)
    status = run_filter(NodeUnschedulable(), make_pod("p"), [cordoned])
    assert status is not None and status.reasons == ("node(s) were unschedulable",) and status.code == UNRESOLVABLE
    tolerant = make_pod("p", tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                           "effect": "NoSchedule"}])
    assert run_filter(NodeUnschedulable(), tolerant, [cordoned]) is None
    assert run_filter(NodeUnschedulable(), make_pod("p"), [make_node("a")]) is None


# -- TaintToleration -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("tolerations", "fits"), [
    ([], False),
    ([{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"}], True),
    ([{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}], True),
    ([{"operator": "Exists"}], True),
    ([{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoExecute"}], False),
    ([{"key": "node-role.kubernetes.io/control-plane", "value": "x", "effect": "NoSchedule"}], False),
    ([{"key": "node-role.kubernetes.io/control-plane", "value": "", "effect": "NoSchedule"}], True),
], ids=["none", "exists-effect", "exists-any-effect", "wildcard", "other-effect", "wrong-value", "equal-empty"])
def test_taint_toleration_filter(tolerations: list[Obj], fits: bool) -> None:
    status = run_filter(TaintToleration(), make_pod("p", tolerations=tolerations),
                        [make_node("cp", taints=[CONTROL_PLANE_TAINT])])
    if fits:
        assert status is None
    else:
        assert status == Status(("node(s) had untolerated taint(s)",), UNRESOLVABLE, "TaintToleration")


def test_taint_toleration_ignores_prefer_no_schedule_when_filtering() -> None:
    node = make_node("a", taints=[{"key": "soft", "value": "x", "effect": "PreferNoSchedule"}])
    assert run_filter(TaintToleration(), make_pod("p"), [node]) is None


def test_no_execute_taint_filters_too() -> None:
    node = make_node("a", taints=[{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}])
    assert reasons(run_filter(TaintToleration(), make_pod("p"), [node])) == ("node(s) had untolerated taint(s)",)


# -- NodeAffinity --------------------------------------------------------------------------------------

AFFINITY_REASON = ("node(s) didn't match Pod's node affinity/selector",)


def required(*terms: Obj) -> Obj:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def test_node_selector() -> None:
    node = make_node("a", labels={"disk": "ssd"})
    assert run_filter(NodeAffinity(), make_pod("p", nodeSelector={"disk": "ssd"}), [node]) is None
    status = run_filter(NodeAffinity(), make_pod("p", nodeSelector={"disk": "hdd"}), [node])
    assert status is not None and status.reasons == AFFINITY_REASON and status.code == UNRESOLVABLE


@pytest.mark.parametrize(("term", "fits"), [
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1", "z2"]}]}, True),
    ({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z1"]}]}, False),
    ({"matchExpressions": [{"key": "zone", "operator": "Exists"}]}, True),
    ({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}, True),
    ({"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]}, True),
    ({"matchExpressions": [{"key": "cores", "operator": "Lt", "values": ["8"]}]}, False),
    ({"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["x"]}]}, False),
    ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]}]}, True),
    ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}, False),
    ({}, False),
], ids=["in", "notin", "exists", "doesnotexist", "gt", "lt", "gt-not-a-number", "field-in", "field-other", "empty"])
def test_required_node_affinity_terms(term: Obj, fits: bool) -> None:
    node = make_node("a", labels={"zone": "z1", "cores": "16"})
    status = run_filter(NodeAffinity(), make_pod("p", affinity=required(term)), [node])
    assert reasons(status) == (None if fits else AFFINITY_REASON)


def test_node_affinity_terms_are_ored_and_selector_anded() -> None:
    node = make_node("a", labels={"zone": "z1"})
    terms = required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z9"]}]},
                     {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]})
    assert run_filter(NodeAffinity(), make_pod("p", affinity=terms), [node]) is None
    both = make_pod("p", affinity=terms, nodeSelector={"disk": "ssd"})
    assert reasons(run_filter(NodeAffinity(), both, [node])) == AFFINITY_REASON
    assert reasons(run_filter(NodeAffinity(), make_pod("p", affinity=required()), [node])) == AFFINITY_REASON


# -- NodeResourcesFit ----------------------------------------------------------------------------------


def test_resources_fit_and_each_shortage_is_a_reason() -> None:
    node = make_node("a", cpu="2", memory="1Gi", pods="2")
    placed = [make_pod("old", cpu="1", memory="512Mi", node_name="a")]
    assert run_filter(NodeResourcesFit(), make_pod("p", cpu="1", memory="512Mi"), [node], placed) is None
    status = run_filter(NodeResourcesFit(), make_pod("p", cpu="1001m", memory="513Mi"), [node], placed)
    assert status == Status(("Insufficient cpu", "Insufficient memory"), UNSCHEDULABLE, "NodeResourcesFit")


def test_too_many_pods_comes_first_and_counts_best_effort_pods() -> None:
    node = make_node("a", cpu="1", pods="1")
    placed = [make_pod("old", node_name="a")]
    assert reasons(run_filter(NodeResourcesFit(), make_pod("p"), [node], placed)) == ("Too many pods",)
    assert reasons(run_filter(NodeResourcesFit(), make_pod("p", cpu="2"), [node], placed)) == (
        "Too many pods", "Insufficient cpu")


def test_extended_resources_and_ephemeral_storage() -> None:
    node = make_node("a", extra={"example.com/gpu": "1", "ephemeral-storage": "10Gi"})
    pod = make_pod("p", cpu="1")
    pod["spec"]["containers"][0]["resources"]["requests"].update({"example.com/gpu": "2", "ephemeral-storage": "20Gi"})
    assert reasons(run_filter(NodeResourcesFit(), pod, [node])) == (
        "Insufficient ephemeral-storage", "Insufficient example.com/gpu")


def test_requests_count_init_containers_sidecars_and_overhead() -> None:
    pod = make_pod("p", cpu="500m", memory="100Mi", overhead={"cpu": "100m"}, initContainers=[
        {"name": "setup", "resources": {"requests": {"cpu": "2", "memory": "50Mi"}}},
        {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m", "memory": "10Mi"}}},
        {"name": "late", "resources": {"requests": {"cpu": "1", "memory": "300Mi"}}},
    ])
    requests = resources.pod_requests(pod)
    # main 500m + sidecar 200m = 700m; init peaks: setup 2000m, late 1000m + sidecar 200m; max 2000m; + 100m
    assert requests["cpu"] == 2100
    # main 100Mi + sidecar 10Mi = 110Mi; init peaks: 50Mi, 310Mi; max 310Mi
    assert requests["memory"] == 310 * 1024 * 1024
    node = make_node("a", cpu="2")
    assert reasons(run_filter(NodeResourcesFit(), pod, [node])) == ("Insufficient cpu",)


def test_non_zero_requests_default_for_scoring() -> None:
    requests = resources.pod_requests(make_pod("p"), non_zero=True)
    assert requests == {"cpu": 100, "memory": 200 * 1024 * 1024}
    assert resources.pod_requests(make_pod("p")) == {}


# -- NodePorts -----------------------------------------------------------------------------------------

PORTS_REASON = ("node(s) didn't have free ports for the requested pod ports",)


def test_host_ports_conflict() -> None:
    node = make_node("a")
    placed = [make_pod("old", node_name="a", host_ports=[8080])]
    assert reasons(run_filter(NodePorts(), make_pod("p", host_ports=[8080]), [node], placed)) == PORTS_REASON
    assert run_filter(NodePorts(), make_pod("p", host_ports=[8081]), [node], placed) is None
    udp = make_pod("p")
    udp["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 8080, "protocol": "UDP"}]
    assert run_filter(NodePorts(), udp, [node], placed) is None


def test_host_ports_with_specific_ips() -> None:
    node = make_node("a")
    old = make_pod("old", node_name="a")
    old["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.1"}]
    other_ip = make_pod("p")
    other_ip["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.2"}]
    assert run_filter(NodePorts(), other_ip, [node], [old]) is None
    assert reasons(run_filter(NodePorts(), make_pod("p", host_ports=[80]), [node], [old])) == PORTS_REASON


# -- InterPodAffinity ----------------------------------------------------------------------------------


def pod_affinity(kind: str, labels: Obj, key: str = "zone") -> Obj:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": labels}, "topologyKey": key}]}}


ZONED = [make_node("a", labels={"zone": "z1"}), make_node("b", labels={"zone": "z1"}),
         make_node("c", labels={"zone": "z2"})]


def test_pod_affinity_needs_a_matching_pod_in_the_domain() -> None:
    placed = [make_pod("db", node_name="a", labels={"app": "db"})]
    pod = make_pod("web", affinity=pod_affinity("podAffinity", {"app": "db"}))
    assert run_filter(InterPodAffinity(), pod, ZONED, placed, on="b") is None
    status = run_filter(InterPodAffinity(), pod, ZONED, placed, on="c")
    assert status == Status(("node(s) didn't match pod affinity rules",), UNRESOLVABLE, "InterPodAffinity")


def test_pod_affinity_first_of_its_group_may_go_anywhere() -> None:
    pod = make_pod("web", labels={"app": "web"}, affinity=pod_affinity("podAffinity", {"app": "web"}))
    assert run_filter(InterPodAffinity(), pod, ZONED, [], on="c") is None
    stranger = make_pod("x", affinity=pod_affinity("podAffinity", {"app": "web"}))
    assert reasons(run_filter(InterPodAffinity(), stranger, ZONED, [], on="c")) == (
        "node(s) didn't match pod affinity rules",)


def test_pod_anti_affinity_keeps_away_from_matching_pods() -> None:
    placed = [make_pod("db", node_name="a", labels={"app": "db"})]
    pod = make_pod("db2", labels={"app": "db"}, affinity=pod_affinity("podAntiAffinity", {"app": "db"}))
    status = run_filter(InterPodAffinity(), pod, ZONED, placed, on="b")
    assert status == Status(("node(s) didn't match pod anti-affinity rules",), UNSCHEDULABLE, "InterPodAffinity")
    assert run_filter(InterPodAffinity(), pod, ZONED, placed, on="c") is None


def test_existing_pods_anti_affinity_repels_the_incoming_pod() -> None:
    placed = [make_pod("db", node_name="a", labels={"app": "db"},
                       affinity=pod_affinity("podAntiAffinity", {"app": "web"}, key="kubernetes.io/hostname"))]
    pod = make_pod("web", labels={"app": "web"})
    assert reasons(run_filter(InterPodAffinity(), pod, ZONED, placed, on="a")) == (
        "node(s) didn't satisfy existing pods anti-affinity rules",)
    assert run_filter(InterPodAffinity(), pod, ZONED, placed, on="b") is None


def test_affinity_terms_default_to_the_pods_namespace() -> None:
    placed = [make_pod("db", namespace="other", node_name="a", labels={"app": "db"})]
    pod = make_pod("web", affinity=pod_affinity("podAffinity", {"app": "db"}))
    assert reasons(run_filter(InterPodAffinity(), pod, ZONED, placed, on="a")) == (
        "node(s) didn't match pod affinity rules",)
    everywhere = make_pod("web", affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone", "namespaceSelector": {}}]}})
    assert run_filter(InterPodAffinity(), everywhere, ZONED, placed, on="a") is None


# -- PodTopologySpread ---------------------------------------------------------------------------------


def spread(max_skew: int = 1, key: str = "zone", when: str = "DoNotSchedule", **extra: Any) -> list[Obj]:
    return [{"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
             "labelSelector": {"matchLabels": {"app": "web"}}, **extra}]


def test_topology_spread_rejects_the_crowded_domain() -> None:
    placed = [make_pod("w1", node_name="a", labels={"app": "web"})]
    pod = make_pod("w2", labels={"app": "web"}, topologySpreadConstraints=spread())
    status = run_filter(PodTopologySpread(), pod, ZONED, placed, on="b")
    assert status == Status(("node(s) didn't match pod topology spread constraints",), UNSCHEDULABLE,
                            "PodTopologySpread")
    assert run_filter(PodTopologySpread(), pod, ZONED, placed, on="c") is None
    loose = make_pod("w2", labels={"app": "web"}, topologySpreadConstraints=spread(max_skew=2))
    assert run_filter(PodTopologySpread(), loose, ZONED, placed, on="b") is None


def test_topology_spread_missing_label_is_unresolvable() -> None:
    nodes = [*ZONED, make_node("d")]
    pod = make_pod("w", labels={"app": "web"}, topologySpreadConstraints=spread())
    status = run_filter(PodTopologySpread(), pod, nodes, on="d")
    assert status == Status(("node(s) didn't match pod topology spread constraints (missing required label)",),
                            UNRESOLVABLE, "PodTopologySpread")


def test_topology_spread_min_domains_counts_missing_domains_as_empty() -> None:
    placed = [make_pod("w1", node_name="a", labels={"app": "web"}),
              make_pod("w2", node_name="c", labels={"app": "web"})]
    pod = make_pod("w3", labels={"app": "web"}, topologySpreadConstraints=spread(minDomains=3))
    assert reasons(run_filter(PodTopologySpread(), pod, ZONED, placed, on="c")) == (
        "node(s) didn't match pod topology spread constraints",)
    plain = make_pod("w3", labels={"app": "web"}, topologySpreadConstraints=spread())
    assert run_filter(PodTopologySpread(), plain, ZONED, placed, on="c") is None


def test_topology_spread_honours_node_affinity_when_counting() -> None:
    # zone z2's only node is excluded by the pod's selector, so z2 is no domain and z1 is the minimum
    placed = [make_pod("w1", node_name="a", labels={"app": "web"})]
    pod = make_pod("w2", labels={"app": "web"}, topologySpreadConstraints=spread(),
                   nodeSelector={"zone": "z1"})
    assert run_filter(PodTopologySpread(), pod, ZONED, placed, on="b") is None
