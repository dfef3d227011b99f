"""NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes only pods that tolerate its
node.kubernetes.io/unschedulable:NoSchedule taint."""

from __future__ import annotations

from kubelite.cluster.scheduler.plugins.base import CycleState, Status, _Skip, unresolvable
from kubelite.cluster.scheduler.snapshot import NodeInfo
from kubelite.cluster.scheduler.terms import Taint, tolerated

REASON = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


class NodeUnschedulable:
    name = "NodeUnschedulable"

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        return None

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        if not node.unschedulable:
            return None
        tolerations = (state.pod.pod.get("spec") or {}).get("tolerations") or ()
        if tolerated(tolerations, UNSCHEDULABLE_TAINT):
            return None
        return unresolvable(self.name, REASON)
