"""The simulated machines: names, kind's addresses, a pod CIDR each, the default machine's resources."""

from __future__ import annotations

import ipaddress

import pytest

from kubelite.cluster.kubelet import events
from kubelite.cluster.kubelet.host import cluster_cidr_for, simulated_nodes
from kubelite.cluster.kubelet.node import NodeHealth, node_conditions
from kubelite.util.clock import FakeClock


def test_nodes_are_addressed_as_kind_does() -> None:
    nodes = simulated_nodes(3, prefix="kubelite-node-", capacity={"cpu": "4", "pods": "20"})
    assert [(n.name, n.node_ip, n.pod_cidr) for n in nodes] == [
        ("kubelite-node-0", "172.18.0.2", "10.244.0.0/24"),
        ("kubelite-node-1", "172.18.0.3", "10.244.1.0/24"),
        ("kubelite-node-2", "172.18.0.4", "10.244.2.0/24"),
    ]
    assert nodes[0].capacity == {
        "cpu": "4", "ephemeral-storage": "100Gi", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "32Gi",
        "pods": "20",
    }
    assert simulated_nodes(0, prefix="n") == []


@pytest.mark.parametrize(
    ("count", "cidr"),
    [(1, "10.244.0.0/16"), (256, "10.244.0.0/16"), (257, "10.244.0.0/15"), (1000, "10.244.0.0/14"),
     (10000, "10.192.0.0/10")],
)
def test_the_pod_network_widens_with_the_cluster(count: int, cidr: str) -> None:
    assert cluster_cidr_for(count) == cidr
    # never inside the service range
    assert not ipaddress.ip_network(cidr).overlaps(ipaddress.ip_network("10.96.0.0/12"))


def test_a_thousand_nodes_have_distinct_addresses() -> None:
    nodes = simulated_nodes(1000, prefix="n-")
    assert len({n.node_ip for n in nodes}) == len({n.pod_cidr for n in nodes}) == 1000
    assert nodes[-1].node_ip == "172.18.3.233"
    assert nodes[256].pod_cidr == "10.245.0.0/24"


def test_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot simulate -1 nodes"):
        simulated_nodes(-1, prefix="n")


def test_node_condition_events_on_registration_and_change() -> None:
    now = FakeClock().now()
    healthy = node_conditions(NodeHealth(), now)
    assert events.node_condition_events("n", [], healthy) == [
        ("NodeHasSufficientMemory", "Node n status is now: NodeHasSufficientMemory"),
        ("NodeHasNoDiskPressure", "Node n status is now: NodeHasNoDiskPressure"),
        ("NodeHasSufficientPID", "Node n status is now: NodeHasSufficientPID"),
        ("NodeReady", "Node n status is now: NodeReady"),
    ]
    assert events.node_condition_events("n", healthy, node_conditions(NodeHealth(), now, healthy)) == []
    pressed = node_conditions(NodeHealth(memory_pressure=True, ready=False), now, healthy)
    assert events.node_condition_events("n", healthy, pressed) == [
        ("NodeHasInsufficientMemory", "Node n status is now: NodeHasInsufficientMemory"),
        ("NodeNotReady", "Node n status is now: NodeNotReady"),
    ]


def test_node_event_refers_to_the_node_by_name() -> None:
    event = events.node_event("n", reason="Starting", message="Starting kubelet.", when=FakeClock().now())
    assert event["involvedObject"] == {"kind": "Node", "name": "n", "uid": "n"}
    assert event["metadata"]["namespace"] == "default"
    assert event["source"] == {"component": "kubelet", "host": "n"}
