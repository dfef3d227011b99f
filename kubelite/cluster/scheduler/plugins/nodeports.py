"""NodePorts: a pod's host ports must be free on the node. Two uses of a port clash when protocol and port are
equal and the host IPs are equal or either is 0.0.0.0 (kube's HostPortInfo.CheckConflict)."""

from __future__ import annotations

from kubelite.cluster.scheduler.plugins.base import SKIP, CycleState, Status, _Skip, unschedulable
from kubelite.cluster.scheduler.snapshot import NodeInfo
from kubelite.cluster.scheduler.terms import WILDCARD_IP

REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts:
    name = "NodePorts"

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        return None if state.pod.ports else SKIP

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        used = node.used_ports
        if not used:
            return None
        for protocol, ip, port in state.pod.ports:
            for used_protocol, used_ip, used_port in used:
                if used_port == port and used_protocol == protocol and (
                        ip == WILDCARD_IP or used_ip in (ip, WILDCARD_IP)):
                    return unschedulable(self.name, REASON)
        return None
