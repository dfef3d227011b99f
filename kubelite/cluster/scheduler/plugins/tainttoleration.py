"""TaintToleration: a node's NoSchedule and NoExecute taints keep out pods that do not tolerate them (filter);
untolerated PreferNoSchedule taints make a node less wanted (score: fewer is better, reversed to 0-100).

The reason names no taint: since kubernetes/kubernetes#134740 (in 1.35, and in 1.34's patch releases) the
scheduler no longer writes a node's taint key and value into pods' status and events, which may expose them;
before, it read "node(s) had untolerated taint {key: value}".
"""

from __future__ import annotations

from kubelite.cluster.scheduler.plugins.base import CycleState, Status, _Skip, default_normalize, unresolvable
from kubelite.cluster.scheduler.snapshot import NodeInfo
from kubelite.cluster.scheduler.terms import tolerated

REASON = "node(s) had untolerated taint(s)"

_FILTERED_EFFECTS = frozenset(("NoSchedule", "NoExecute"))


class TaintToleration:
    name = "TaintToleration"
    weight = 3

    def pre_filter(self, state: CycleState) -> Status | _Skip | None:
        return None

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        if not node.taints:
            return None
        tolerations = (state.pod.pod.get("spec") or {}).get("tolerations") or ()
        for taint in node.taints:
            if taint.effect in _FILTERED_EFFECTS and not tolerated(tolerations, taint):
                return unresolvable(self.name, REASON)
        return None

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        tolerations = (state.pod.pod.get("spec") or {}).get("tolerations") or ()
        # only tolerations that can apply to PreferNoSchedule count here, as kube's getAllTolerationPreferNoSchedule
        state.data[self.name] = [t for t in tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")]
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        if not node.taints:
            return 0
        tolerations = state.data[self.name]
        return sum(1 for taint in node.taints
                   if taint.effect == "PreferNoSchedule" and not tolerated(tolerations, taint))

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        default_normalize(scores, reverse=True)

