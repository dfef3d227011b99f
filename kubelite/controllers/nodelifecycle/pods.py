"""What the two controllers write to pods, without I/O: Ready=False on a node that is not Ready (kube's
MarkPodsNotReady), and the DisruptionTarget condition before a taint eviction."""

from __future__ import annotations

import copy
from typing import Any

from kubelite.apimachinery.meta import Obj

DISRUPTION_TARGET: dict[str, str] = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "DeletionByTaintManager",
    "message": "Taint manager: deleting due to NoExecute taint",
}

_COMPARED = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime")


def update_pod_condition(status: dict[str, Any], condition: dict[str, Any], at: str) -> bool:
    """UpdatePodCondition: set `condition` in `status` (its transition time now, unless its status stays);
    whether anything changed."""
    condition = {k: v for k, v in condition.items() if v not in (None, "")}
    condition["lastTransitionTime"] = at
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        conditions = status["conditions"] = []
    for i, old in enumerate(conditions):
        if isinstance(old, dict) and old.get("type") == condition.get("type"):
            if old.get("status") == condition.get("status"):
                if old.get("lastTransitionTime"):
                    condition["lastTransitionTime"] = old["lastTransitionTime"]
                else:
                    condition.pop("lastTransitionTime")
            unchanged = all(old.get(k) == condition.get(k) for k in _COMPARED)
            conditions[i] = condition
            return not unchanged
    conditions.append(condition)
    return True


def not_ready(pod: Obj, node_name: str, at: str) -> Obj | None:
    """The pod with its Ready condition False, or None when it is not the node's, has no Ready condition, or
    is not Ready already."""
    if (pod.get("spec") or {}).get("nodeName") != node_name:
        return None
    for cond in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            changed = copy.deepcopy(pod)
            wanted = {**cond, "status": "False"}
            if update_pod_condition(changed["status"], wanted, at):
                return changed
            return None
    return None


def disruption_target_patch(pod: Obj, at: str) -> dict[str, Any] | None:
    """The pods/status patch adding the DisruptionTarget condition (with the pod's uid as a precondition),
    or None when the pod has it already."""
    status = copy.deepcopy(pod.get("status") or {})
    if not update_pod_condition(status, dict(DISRUPTION_TARGET), at):
        return None
    condition = next(c for c in status["conditions"] if c.get("type") == "DisruptionTarget")
    return {"metadata": {"uid": (pod.get("metadata") or {}).get("uid")}, "status": {"conditions": [condition]}}
