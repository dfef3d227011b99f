"""The simulated machines: one NodeConfig per node kubelite runs, addressed as a kind cluster's are.

kind puts its nodes on a docker network `172.18.0.0/16` whose gateway is `172.18.0.1`, so the nodes are
`172.18.0.2`, `172.18.0.3`, ...; the pod network is `10.244.0.0/16` cut into one `/24` per node (node IPAM's
default mask). A cluster of more than 256 nodes needs a wider pod network: the smallest block around
`10.244.0.0/16` that holds a `/24` per node (`10.244.0.0/14` for up to 1,024 nodes, `10.192.0.0/10` for 10,000),
which stays clear of the service range `10.96.0.0/12`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from kubelite.cluster.kubelet.ip_allocator import DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE, NodeCIDRAllocator
from kubelite.cluster.kubelet.node import DEFAULT_CAPACITY, NodeConfig

NODE_NETWORK = ipaddress.ip_network("172.18.0.0/16")
# the network address and the gateway come first
_FIRST_NODE_HOST = 2


def cluster_cidr_for(count: int) -> str:
    """kind's pod network, widened (keeping 10.244.0.0 inside) until it has a /24 for each of `count` nodes."""
    network = ipaddress.ip_network(DEFAULT_CLUSTER_CIDR)
    while 2 ** (DEFAULT_NODE_CIDR_MASK_SIZE - network.prefixlen) < count:
        network = network.supernet()
    return str(network)


def simulated_nodes(count: int, *, prefix: str, capacity: Mapping[str, str] | None = None) -> list[NodeConfig]:
    """`count` nodes named `<prefix>0`, `<prefix>1`, ...; `capacity` overrides the default machine's resources
    (what it does not name keeps the default: ephemeral storage and huge pages are always reported)."""
    if count < 0:
        raise ValueError(f"cannot simulate {count} nodes")
    if count > NODE_NETWORK.num_addresses - _FIRST_NODE_HOST - 1:
        raise ValueError(f"{count} nodes do not fit in the node network {NODE_NETWORK}")
    cidrs = NodeCIDRAllocator(cluster_cidr_for(count))
    size = {**DEFAULT_CAPACITY, **(capacity or {})}
    nodes = []
    for index in range(count):
        name = f"{prefix}{index}"
        nodes.append(NodeConfig(
            name=name,
            node_ip=str(NODE_NETWORK.network_address + _FIRST_NODE_HOST + index),
            pod_cidr=cidrs.allocate(name),
            capacity=dict(size),
        ))
    return nodes
