"""NodeName: a pod that already names its node fits only that node."""

from __future__ import annotations

from kubelite.cluster.scheduler.plugins.base import SKIP, CycleState, Status, _Skip, unresolvable
from kubelite.cluster.scheduler.snapshot import NodeInfo

REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = "NodeName"

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        return None if state.pod.node_name else SKIP

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        if node.name != state.pod.node_name:
            return unresolvable(self.name, REASON)
        return None
