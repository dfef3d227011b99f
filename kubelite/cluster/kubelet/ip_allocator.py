"""Address allocation for simulated nodes: a pod CIDR per node out of the cluster CIDR, a pod IP per pod out of
its node's pod CIDR.

kube-controller-manager's node IPAM hands each node a `/24` (by default) of `--cluster-cidr`, and the CNI's
host-local IPAM on the node gives each pod sandbox one address of it. Here both are the lowest free slot, so a
released CIDR or address is the next one given out again, as a small cluster's churn looks in practice. A pod's
address range skips the network address, the first host address (the node's bridge, the pods' gateway, as with
kind's `10.244.0.1`) and the broadcast address: the first pod on a node gets `.2`.

Invariants: an owner holds at most one slot; a slot is held by at most one owner (`_owner_of` and `_slot_of` are
inverse maps).
"""

from __future__ import annotations

import heapq
import ipaddress

DEFAULT_CLUSTER_CIDR = "10.244.0.0/16"
DEFAULT_NODE_CIDR_MASK_SIZE = 24
# host-local keeps the network's first host address for the bridge gateway
_RESERVED_LOW_HOSTS = 1


class AllocatorFull(RuntimeError):
    """No slot is free; str() names the range."""


class _SlotAllocator:
    """The lowest free index in [0, size), per owner key, reusing released indexes first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._next_fresh = 0
        self._released: list[int] = []  # a heap of indexes below _next_fresh that are free again
        self._slot_of: dict[str, int] = {}
        self._owner_of: dict[int, str] = {}

    def take(self, owner: str) -> int | None:
        if owner in self._slot_of:
            return self._slot_of[owner]
        if self._released:
            slot = heapq.heappop(self._released)
        elif self._next_fresh < self._size:
            slot = self._next_fresh
            self._next_fresh += 1
        else:
            return None
        self._slot_of[owner] = slot
        self._owner_of[slot] = owner
        return slot

    def take_slot(self, owner: str, slot: int) -> bool:
        """Give `owner` this very slot (rebuilding allocations that exist); False when it is out of range or
        held by another owner."""
        if not 0 <= slot < self._size or self._owner_of.get(slot, owner) != owner:
            return False
        if self._slot_of.get(owner) == slot:
            return True
        self.release(owner)
        if slot >= self._next_fresh:
            # the slots skipped over stay free, for the lowest-first order of later takes
            for skipped in range(self._next_fresh, slot):
                heapq.heappush(self._released, skipped)
            self._next_fresh = slot + 1
        else:
            self._released.remove(slot)
            heapq.heapify(self._released)
        self._slot_of[owner] = slot
        self._owner_of[slot] = owner
        return True

    def release(self, owner: str) -> int | None:
        slot = self._slot_of.pop(owner, None)
        if slot is not None:
            del self._owner_of[slot]
            heapq.heappush(self._released, slot)
        return slot

    def __len__(self) -> int:
        return len(self._slot_of)


class NodeCIDRAllocator:
    """Pod CIDRs for nodes, carved from the cluster CIDR in order (`10.244.0.0/24`, `10.244.1.0/24`, ...)."""

    def __init__(
        self, cluster_cidr: str = DEFAULT_CLUSTER_CIDR, *, node_mask_size: int = DEFAULT_NODE_CIDR_MASK_SIZE
    ) -> None:
        network = ipaddress.ip_network(cluster_cidr, strict=True)
        if node_mask_size < network.prefixlen or node_mask_size > network.max_prefixlen:
            raise ValueError(
                f"node CIDR mask size {node_mask_size} must be between the cluster CIDR's prefix length "
                f"{network.prefixlen} and {network.max_prefixlen}"
            )
        self.cluster_cidr = network
        self.node_mask_size = node_mask_size
        self._slots = _SlotAllocator(2 ** (node_mask_size - network.prefixlen))

    def allocate(self, node_name: str) -> str:
        """The node's pod CIDR, the same one on every call until it is released."""
        slot = self._slots.take(node_name)
        if slot is None:
            raise AllocatorFull(f"no remaining /{self.node_mask_size} in cluster CIDR {self.cluster_cidr}")
        block = self.cluster_cidr.num_addresses >> (self.node_mask_size - self.cluster_cidr.prefixlen)
        first = self.cluster_cidr.network_address + slot * block
        return f"{first}/{self.node_mask_size}"

    def release(self, node_name: str) -> None:
        self._slots.release(node_name)


class PodIPAllocator:
    """Pod IPs out of one node's pod CIDR, one per pod UID."""

    def __init__(self, pod_cidr: str) -> None:
        self.pod_cidr = ipaddress.ip_network(pod_cidr, strict=True)
        # the usable hosts after the gateway; IPv4 also loses the broadcast address
        broadcast = 1 if self.pod_cidr.version == 4 else 0
        usable = self.pod_cidr.num_addresses - 1 - _RESERVED_LOW_HOSTS - broadcast
        self._slots = _SlotAllocator(max(usable, 0))

    @property
    def gateway(self) -> str:
        return str(self.pod_cidr.network_address + 1)

    def allocate(self, pod_uid: str) -> str:
        """The pod's IP, the same one on every call until it is released."""
        slot = self._slots.take(pod_uid)
        if slot is None:
            raise AllocatorFull(f"no IP addresses available in range set: {self.pod_cidr}")
        return str(self.pod_cidr.network_address + 1 + _RESERVED_LOW_HOSTS + slot)

    def reserve(self, pod_uid: str, ip: str) -> bool:
        """Hold `ip` for the pod, as a restarted kubelet does for the addresses its running pods already have;
        False when the address is not one this range gives out, or another pod holds it."""
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return False
        if address not in self.pod_cidr:
            return False
        slot = int(address) - int(self.pod_cidr.network_address) - 1 - _RESERVED_LOW_HOSTS
        return self._slots.take_slot(pod_uid, slot)

    def release(self, pod_uid: str) -> None:
        self._slots.release(pod_uid)

    def __len__(self) -> int:
        """How many addresses are held."""
        return len(self._slots)
