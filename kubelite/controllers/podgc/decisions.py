"""What the pod garbage collector deletes, decided from listed pods and nodes (no I/O).

kube's PodGC runs four sweeps every 20 s: terminated pods beyond the threshold (evicted first, then oldest
first, names breaking ties), terminating pods on a not-ready node tainted `node.kubernetes.io/out-of-service`,
pods bound to a node that is gone (after a 40 s quarantine and a fresh GET of the node) and terminating pods
no scheduler ever bound. Each pod it removes is first moved to phase Failed (a pod of a vanished node would
otherwise stay Running forever) and then deleted with a grace period of 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, rfc3339

#: kube-controller-manager's --terminated-pod-gc-threshold default
DEFAULT_TERMINATED_POD_THRESHOLD = 12500
#: gcCheckPeriod: how often the sweeps run
GC_CHECK_PERIOD = 20.0
#: quarantineTime: how long a node missing from the informer may still show up before its pods go
QUARANTINE_TIME = 40.0

OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service"
#: the condition an orphaned pod gets before its deletion
ORPHANED_CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "DeletionByPodGC",
    "message": "PodGC: node no longer exists",
}


def _phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def node_name_of(pod: Mapping[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def is_terminated(pod: Mapping[str, Any]) -> bool:
    """Any phase but Pending, Running and Unknown (an empty phase counts as terminated, as in kube)."""
    return _phase(pod) not in ("Pending", "Running", "Unknown")


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return _meta(pod).get("deletionTimestamp") is not None


def is_evicted(pod: Mapping[str, Any]) -> bool:
    """The kubelet's eviction manager leaves a Failed pod with reason Evicted."""
    return _phase(pod) == "Failed" and (pod.get("status") or {}).get("reason") == "Evicted"


def deletion_order(pod: Mapping[str, Any]) -> tuple[bool, str, str]:
    """byEvictionAndCreationTimestamp: evicted pods first, then by creationTimestamp, then by name.

    RFC 3339 timestamps in UTC ("Z") sort as strings in time order."""
    meta = _meta(pod)
    return (not is_evicted(pod), str(meta.get("creationTimestamp") or ""), str(meta.get("name") or ""))


def terminated_to_delete(pods: Iterable[Obj], threshold: int) -> list[Obj]:
    """The terminated pods beyond `threshold`, in the order they go; a threshold of 0 or less disables it."""
    if threshold <= 0:
        return []
    terminated = [pod for pod in pods if is_terminated(pod)]
    excess = len(terminated) - threshold
    if excess <= 0:
        return []
    return sorted(terminated, key=deletion_order)[:excess]


def node_ready(node: Mapping[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def out_of_service(node: Mapping[str, Any]) -> bool:
    taints = (node.get("spec") or {}).get("taints") or ()
    return any(taint.get("key") == OUT_OF_SERVICE_TAINT for taint in taints)


def terminating_out_of_service(pods: Iterable[Obj], nodes: Mapping[str, Obj]) -> list[Obj]:
    """Terminating pods whose node is known, not Ready and tainted out-of-service: the node's kubelet will not
    finish them, so they are force-deleted."""
    found = []
    for pod in pods:
        if not is_terminating(pod):
            continue
        node = nodes.get(node_name_of(pod))
        if node is not None and not node_ready(node) and out_of_service(node):
            found.append(pod)
    return sorted(found, key=deletion_order)


def unscheduled_terminating(pods: Iterable[Obj]) -> list[Obj]:
    """Terminating pods never bound to a node: no kubelet will ever finish their deletion."""
    return [pod for pod in pods if is_terminating(pod) and not node_name_of(pod)]


def missing_nodes(pods: Iterable[Obj], nodes: Iterable[str]) -> set[str]:
    """The nodes pods are bound to that the node informer does not hold."""
    known = set(nodes)
    return {name for pod in pods if (name := node_name_of(pod)) and name not in known}


def orphaned(pods: Iterable[Obj], deleted_nodes: set[str]) -> list[Obj]:
    return [pod for pod in pods if node_name_of(pod) in deleted_nodes]


class Quarantine:
    """The delaying queue of node names kube's PodGC keeps: a missing node is checked once `QUARANTINE_TIME`
    has passed since it was first seen missing (adding a waiting name again keeps its earlier time)."""

    def __init__(self, period: float = QUARANTINE_TIME) -> None:
        self.period = period
        self._ready_at: dict[str, float] = {}

    def add(self, names: Iterable[str], now: float) -> None:
        for name in names:
            self._ready_at.setdefault(name, now + self.period)

    def take_due(self, now: float) -> list[str]:
        """The names whose quarantine is over, removed from the queue (they come back if still missing)."""
        due = sorted(name for name, at in self._ready_at.items() if at <= now)
        for name in due:
            del self._ready_at[name]
        return due

    def __len__(self) -> int:
        return len(self._ready_at)


def failed_status_patch(pod: Mapping[str, Any], condition: Mapping[str, Any] | None, now: datetime) -> Obj | None:
    """The pods/status strategic merge patch that marks `pod` Failed (with `condition` set, as
    podutil.UpdatePodCondition sets it), carrying the pod's uid so a pod recreated under the name is left
    alone; None for a pod already Succeeded or Failed (it is only deleted)."""
    if _phase(pod) in ("Succeeded", "Failed"):
        return None
    status: Obj = {"phase": "Failed"}
    if condition is not None:
        conditions = list((pod.get("status") or {}).get("conditions") or ())
        current = next((c for c in conditions if c.get("type") == condition["type"]), None)
        wanted: Obj = {**condition, "lastTransitionTime": rfc3339(now)}
        if current is not None and current.get("status") == wanted["status"] and current.get("lastTransitionTime"):
            wanted["lastTransitionTime"] = current["lastTransitionTime"]
        if current is None or any(current.get(k) != v for k, v in wanted.items()):
            order = [c.get("type") for c in conditions]
            if current is None:
                order.append(condition["type"])
            status["$setElementOrder/conditions"] = [{"type": t} for t in order]
            status["conditions"] = [wanted]
    return {"metadata": {"uid": _meta(pod).get("uid")}, "status": status}
