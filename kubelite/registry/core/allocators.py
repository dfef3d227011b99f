"""In-memory allocators for Service cluster IPs and node ports, rebuilt from the stored Services at start.

kubelite runs one writer per store, so an in-process set is enough to hand out each IP and port once; a
repair pass at start marks what the stored Services already use (kube's ipallocator and repair controller).
"""

from __future__ import annotations

import ipaddress
import random

from kubelite.apimachinery import errors

NODE_PORT_RANGE = range(30000, 32768)


class ClusterIPAllocator:
    def __init__(self, cidr: str) -> None:
        self.network = ipaddress.ip_network(cidr, strict=False)
        self._used: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        # network and broadcast addresses are never handed out
        self._size = min(self.network.num_addresses - 2, 1 << 20)

    @property
    def first(self) -> str:
        return str(self.network.network_address + 1)

    def contains(self, ip: str) -> bool:
        try:
            return ipaddress.ip_address(ip) in self.network
        except ValueError:
            return False

    def allocate(self, wanted: str | None = None) -> str:
        if wanted:
            address = ipaddress.ip_address(wanted)
            if address in self._used:
                raise errors.invalid(
                    "",
                    "Service",
                    "",
                    [
                        errors.Cause(
                            "FieldValueInvalid",
                            f'Invalid value: "{wanted}": failed to allocate IP {wanted}: '
                            "provided IP is already allocated",
                            "spec.clusterIPs",
                        )
                    ],
                )
            self._used.add(address)
            return wanted
        if len(self._used) >= self._size:
            raise errors.internal_error("failed to allocate a serviceIP: range is full")
        while True:
            address = self.network.network_address + random.randint(1, self._size)
            if address not in self._used:
                self._used.add(address)
                return str(address)

    def mark(self, ip: str) -> None:
        if self.contains(ip):
            self._used.add(ipaddress.ip_address(ip))

    def release(self, ip: str) -> None:
        if self.contains(ip):
            self._used.discard(ipaddress.ip_address(ip))


class NodePortAllocator:
    def __init__(self, ports: range = NODE_PORT_RANGE) -> None:
        self.ports = ports
        self._used: set[int] = set()

    def allocate(self, wanted: int | None = None) -> int:
        if wanted:
            if wanted not in self.ports:
                raise errors.invalid(
                    "",
                    "Service",
                    "",
                    [
                        errors.Cause(
                            "FieldValueInvalid",
                            f"Invalid value: {wanted}: provided port is not in the valid range. "
                            "The range of valid ports is "
                            f"{self.ports.start}-{self.ports.stop - 1}",
                            "spec.ports[0].nodePort",
                        )
                    ],
                )
            if wanted in self._used:
                raise errors.invalid(
                    "",
                    "Service",
                    "",
                    [
                        errors.Cause(
                            "FieldValueInvalid",
                            f"Invalid value: {wanted}: provided port is already allocated",
                            "spec.ports[0].nodePort",
                        )
                    ],
                )
            self._used.add(wanted)
            return wanted
        free = len(self.ports) - len(self._used)
        if free <= 0:
            raise errors.internal_error("failed to allocate a nodePort: range is full")
        while True:
            port = random.choice(self.ports)
            if port not in self._used:
                self._used.add(port)
                return port

    def mark(self, port: int) -> None:
        self._used.add(port)

    def release(self, port: int) -> None:
        self._used.discard(port)
