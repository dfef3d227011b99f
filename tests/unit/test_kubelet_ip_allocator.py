"""Node pod CIDRs and pod IPs: lowest free first, freed addresses reused."""

from __future__ import annotations

import pytest

from kubelite.cluster.kubelet.ip_allocator import AllocatorFull, NodeCIDRAllocator, PodIPAllocator


def test_node_cidrs_in_order_and_reused() -> None:
    cidrs = NodeCIDRAllocator("10.244.0.0/16")
    assert [cidrs.allocate(f"node-{n}") for n in range(3)] == ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]
    assert cidrs.allocate("node-1") == "10.244.1.0/24"
    cidrs.release("node-1")
    assert cidrs.allocate("node-9") == "10.244.1.0/24"
    assert cidrs.allocate("node-10") == "10.244.3.0/24"


def test_node_cidrs_run_out() -> None:
    cidrs = NodeCIDRAllocator("10.0.0.0/23", node_mask_size=24)
    cidrs.allocate("a")
    cidrs.allocate("b")
    with pytest.raises(AllocatorFull, match=r"no remaining /24 in cluster CIDR 10.0.0.0/23"):
        cidrs.allocate("c")


def test_bad_mask_is_refused() -> None:
    with pytest.raises(ValueError, match="between the cluster CIDR's prefix length 16 and 32"):
        NodeCIDRAllocator("10.244.0.0/16", node_mask_size=8)


def test_pod_ips_skip_gateway_and_reuse_freed() -> None:
    ips = PodIPAllocator("10.244.1.0/24")
    assert ips.gateway == "10.244.1.1"
    assert [ips.allocate(uid) for uid in ("a", "b", "c")] == ["10.244.1.2", "10.244.1.3", "10.244.1.4"]
    assert ips.allocate("b") == "10.244.1.3"
    ips.release("b")
    ips.release("a")
    assert len(ips) == 1
    assert ips.allocate("d") == "10.244.1.2"
    assert ips.allocate("e") == "10.244.1.3"
    assert ips.allocate("f") == "10.244.1.5"
    ips.release("unknown")


def test_pod_ips_run_out_before_broadcast() -> None:
    ips = PodIPAllocator("10.0.0.0/29")
    assert [ips.allocate(str(n)) for n in range(5)] == [f"10.0.0.{n}" for n in range(2, 7)]
    with pytest.raises(AllocatorFull, match=r"no IP addresses available in range set: 10.0.0.0/29"):
        ips.allocate("5")


def test_reserved_addresses_are_kept_and_skipped() -> None:
    ips = PodIPAllocator("10.244.1.0/24")
    assert ips.reserve("old-a", "10.244.1.4")
    assert ips.reserve("old-b", "10.244.1.2")
    assert ips.reserve("old-b", "10.244.1.2")
    assert not ips.reserve("other", "10.244.1.4")
    assert [ips.allocate(uid) for uid in ("n1", "n2", "n3")] == ["10.244.1.3", "10.244.1.5", "10.244.1.6"]
    ips.release("old-a")
    assert ips.allocate("n4") == "10.244.1.4"
    assert len(ips) == 5


def test_reserve_refuses_what_the_range_never_gives() -> None:
    ips = PodIPAllocator("10.244.1.0/24")
    for address in ("10.244.2.7", "10.244.1.0", "10.244.1.1", "10.244.1.255", "not-an-ip", ""):
        assert not ips.reserve("a", address), address
    assert len(ips) == 0
    assert ips.reserve("a", "10.244.1.254")
    assert ips.allocate("b") == "10.244.1.2"
