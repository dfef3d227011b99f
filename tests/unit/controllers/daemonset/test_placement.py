"""Where daemon pods belong, and the pods the controller makes (NodeShouldRunDaemonPod and daemon/util)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.controllers.daemonset.placement import (
    NoTargetNode,
    Placement,
    add_or_update_toleration,
    create_pod_template,
    daemon_tolerations,
    node_name_affinity,
    node_should_run_daemon_pod,
    target_node_name,
    template_generation,
)
from tests.unit.controllers.daemonset.support import daemon_set, node

BASE_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
NETWORK = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}


def test_daemon_tolerations_in_kubes_order() -> None:
    assert daemon_tolerations(False) == BASE_TOLERATIONS
    assert daemon_tolerations(True) == [*BASE_TOLERATIONS, NETWORK]


def test_a_matching_toleration_is_replaced_and_others_kept() -> None:
    mine = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
    other = {"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}
    result = add_or_update_toleration([other, mine], BASE_TOLERATIONS[0])
    assert result == [other, BASE_TOLERATIONS[0]]
    assert add_or_update_toleration([other], BASE_TOLERATIONS[0]) == [other, BASE_TOLERATIONS[0]]


def _with_spec(**spec: Any) -> dict[str, Any]:
    return daemon_set(template_spec={"containers": [{"name": "c", "image": "i"}], **spec})


TAINT_NO_SCHEDULE = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": "dedicated", "value": "infra", "effect": "NoExecute"}


@pytest.mark.parametrize(
    ("the_node", "ds", "expected"),
    [
        (node("n1"), daemon_set(), Placement(True, True)),
        (node("n1"), _with_spec(nodeName="n2"), Placement(False, False)),
        (node("n1"), _with_spec(nodeName="n1"), Placement(True, True)),
        (node("n1", labels={"role": "edge"}), _with_spec(nodeSelector={"role": "edge"}), Placement(True, True)),
        (node("n1", labels={"role": "core"}), _with_spec(nodeSelector={"role": "edge"}), Placement(False, False)),
        # an untolerated NoSchedule taint keeps new pods off, but a pod there may stay
        (node("n1", taints=[TAINT_NO_SCHEDULE]), daemon_set(), Placement(False, True)),
        (node("n1", taints=[TAINT_NO_EXECUTE]), daemon_set(), Placement(False, False)),
        (node("n1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE]), daemon_set(), Placement(False, False)),
        (node("n1", taints=[{"key": "x", "effect": "PreferNoSchedule"}]), daemon_set(), Placement(True, True)),
        (
            node("n1", taints=[TAINT_NO_SCHEDULE]),
            _with_spec(tolerations=[{"key": "dedicated", "operator": "Exists"}]),
            Placement(True, True),
        ),
        (
            node("n1", taints=[TAINT_NO_EXECUTE]),
            _with_spec(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "other"}]),
            Placement(False, False),
        ),
        # the daemon tolerations: node problems and cordons do not keep daemons away
        (node("n1", taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]), daemon_set(),
         Placement(True, True)),
        (node("n1", taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]), daemon_set(),
         Placement(True, True)),
        (node("n1", taints=[{"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}]), daemon_set(),
         Placement(False, True)),
        (node("n1", taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]),
         daemon_set(), Placement(False, True)),
        (node("n1", taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]),
         _with_spec(hostNetwork=True), Placement(True, True)),
    ],
)
def test_node_should_run_daemon_pod(the_node: dict[str, Any], ds: dict[str, Any], expected: Placement) -> None:
    assert node_should_run_daemon_pod(the_node, ds) == expected


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


@pytest.mark.parametrize(
    ("affinity", "labels", "should_run"),
    [
        (_required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}), {"zone": "b"},
         True),
        (_required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}), {"zone": "b"}, False),
        # terms are ORed
        (_required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
                   {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}), {"disk": "ssd"}, True),
        (_required({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}), {}, True),
        (_required({"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}), {"zone": "a"}, False),
        (_required({"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["4"]}]}), {"cores": "8"},
         True),
        (_required({"matchExpressions": [{"key": "cores", "operator": "Lt", "values": ["4"]}]}), {"cores": "8"},
         False),
        (_required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}), {}, True),
        (_required({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}), {}, False),
        # an empty term and an empty list match nothing
        (_required({}), {}, False),
        (_required(), {}, False),
    ],
)
def test_required_node_affinity(affinity: dict[str, Any], labels: dict[str, str], should_run: bool) -> None:
    ds = _with_spec(affinity=affinity)
    assert node_should_run_daemon_pod(node("n1", labels=labels), ds).should_run is should_run


PINNED = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}


def test_the_node_name_affinity_replaces_only_the_required_terms() -> None:
    pinned = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": PINNED}}
    assert node_name_affinity(None, "n1") == pinned
    preferred = [{"weight": 1, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}]
    pod_affinity = {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]}
    affinity = {
        "podAffinity": pod_affinity,
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": preferred,
        },
    }
    assert node_name_affinity(affinity, "n1") == {
        "podAffinity": pod_affinity,
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": PINNED,
            "preferredDuringSchedulingIgnoredDuringExecution": preferred,
        },
    }
    assert affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] != PINNED  # not mutated


def test_the_target_node_is_the_bound_node_or_the_pinned_one() -> None:
    assert target_node_name({"spec": {"nodeName": "n2", "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": PINNED}}}}) == "n2"
    assert target_node_name({"spec": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": PINNED}}}}) == "n1"
    with pytest.raises(NoTargetNode, match=r"^no spec\.affinity\.nodeAffinity\.requiredDuringSchedulingIgnored"):
        target_node_name({"metadata": {"name": "p", "namespace": "ns"}, "spec": {}})
    two = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}
    with pytest.raises(NoTargetNode, match=r"^the matchFields value of 'metadata\.name' is not unique for pod ns/p$"):
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": two}}
        target_node_name({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"affinity": affinity}})


def test_the_pod_template_gets_tolerations_and_labels() -> None:
    ds = daemon_set()
    template = create_pod_template(ds["spec"]["template"], 3, "abc")
    assert template["metadata"]["labels"] == {"app": "agent", "pod-template-generation": "3",
                                              "controller-revision-hash": "abc"}
    assert template["spec"]["tolerations"] == BASE_TOLERATIONS
    assert "tolerations" not in ds["spec"]["template"]["spec"]
    assert create_pod_template(ds["spec"]["template"], None, "abc")["metadata"]["labels"] == {
        "app": "agent", "controller-revision-hash": "abc"}


def test_the_template_generation_annotation() -> None:
    ds = daemon_set()
    assert template_generation(ds) is None
    ds["metadata"]["annotations"] = {"deprecated.daemonset.template.generation": "2"}
    assert template_generation(ds) == 2
    ds["metadata"]["annotations"] = {"deprecated.daemonset.template.generation": "x"}
    assert template_generation(ds) is None
