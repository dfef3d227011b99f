"""The scheduler's cache: the snapshot fed from the watch, and the lifetime of assumed pods (kube-scheduler's
internal/cache).

A pod the scheduler chose a node for is assumed at once (counted on that node), before its binding is sent. Once
the binding call returns (`finish_binding`) the pod has `ttl` seconds for its bound state to arrive through the
watch (`add_pod`, which confirms it); past that, `cleanup` expires it, freeing what it held, as kube's
cleanupAssumedPods does every second. A binding that failed is forgotten at once (`forget`). A pod whose binding
is still being sent never expires. `ttl` 0 keeps assumed pods until they are confirmed or forgotten.

Pod events for the cache are those of pods with a node (`assigned`); pods without one belong to the queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.cluster.scheduler.queue import pod_uid
from kubelite.cluster.scheduler.snapshot import Snapshot

CLEANUP_PERIOD: Final = 1.0  # cleanAssumedPeriod
#: kube-scheduler's durationToExpireAssumedPod: 0 since expiring raced with slow bindings and counted pods twice
#: (kubernetes#106361); an assumed pod waits for its bound state or a failed binding, however long
ASSUMED_TTL: Final = 0.0


def assigned(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


def terminal(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class SchedulerCache:
    def __init__(self, snapshot: Snapshot | None = None, *, ttl: float = ASSUMED_TTL) -> None:
        self.snapshot = snapshot or Snapshot()
        self.ttl = ttl
        #: assumed pods by uid: the pod, and the deadline of its confirmation (None while binding)
        self._assumed: dict[str, tuple[Mapping[str, Any], float | None]] = {}

    def is_assumed(self, uid: str) -> bool:
        return uid in self._assumed

    def knows(self, pod: Mapping[str, Any]) -> bool:
        """Whether the pod is bound or assumed already (a cycle for it would be a second one)."""
        return self.snapshot.pod(pod_uid(pod)) is not None

    # -- the scheduler's own writes ----------------------------------------------------------------------

    def assume(self, pod: Mapping[str, Any], node_name: str) -> None:
        self.snapshot.assume_pod(pod, node_name)
        self._assumed[pod_uid(pod)] = (pod, None)

    def finish_binding(self, pod: Mapping[str, Any], now: float) -> None:
        uid = pod_uid(pod)
        entry = self._assumed.get(uid)
        if entry is not None:
            self._assumed[uid] = (entry[0], now + self.ttl)

    def forget(self, pod: Mapping[str, Any]) -> None:
        if self._assumed.pop(pod_uid(pod), None) is not None:
            self.snapshot.forget_pod(pod)

    def forget_unfinished(self) -> list[Mapping[str, Any]]:
        """Forget the assumed pods whose binding was still being sent (the scheduler stopped); returns them."""
        unfinished = [pod for pod, deadline in self._assumed.values() if deadline is None]
        for pod in unfinished:
            self.forget(pod)
        return unfinished

    def cleanup(self, now: float) -> list[Mapping[str, Any]]:
        """Expire the assumed pods whose confirmation is overdue; returns them."""
        if self.ttl <= 0:
            return []
        expired = [pod for pod, deadline in self._assumed.values() if deadline is not None and deadline <= now]
        for pod in expired:
            self.forget(pod)
        return expired

    # -- the watch -------------------------------------------------------------------------------------

    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """An assigned pod seen (or changed): counted where the server says it is, confirming an assumed one."""
        self._assumed.pop(pod_uid(pod), None)
        self.snapshot.add_pod(pod)

    update_pod = add_pod

    def remove_pod(self, pod: Mapping[str, Any]) -> None:
        self._assumed.pop(pod_uid(pod), None)
        self.snapshot.remove_pod(pod)

    def add_node(self, node: Mapping[str, Any]) -> None:
        self.snapshot.add_node(node)

    update_node = add_node

    def remove_node(self, node: Mapping[str, Any]) -> None:
        self.snapshot.remove_node(node)

    def set_namespace(self, namespace: Mapping[str, Any]) -> None:
        metadata = namespace.get("metadata") or {}
        self.snapshot.namespace_labels.labels[str(metadata.get("name") or "")] = dict(metadata.get("labels") or {})

    def remove_namespace(self, namespace: Mapping[str, Any]) -> None:
        self.snapshot.namespace_labels.labels.pop(str((namespace.get("metadata") or {}).get("name") or ""), None)


_HEARTBEAT_FIELDS: Final = frozenset(("lastHeartbeatTime", "lastTransitionTime"))


def _conditions(node: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        tuple(sorted((k, str(v)) for k, v in c.items() if k not in _HEARTBEAT_FIELDS))
        for c in (node.get("status") or {}).get("conditions") or () if isinstance(c, Mapping))


def node_update_may_help(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a node's change can make a pod fit that did not (kube's nodeSchedulingPropertiesChange): it became
    schedulable, or its allocatable, labels, taints or conditions (heartbeats aside) changed. A kubelet's status
    heartbeat alone moves nothing."""
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    if bool(old_spec.get("unschedulable")) and not new_spec.get("unschedulable"):
        return True
    if (old.get("status") or {}).get("allocatable") != (new.get("status") or {}).get("allocatable"):
        return True
    if (old.get("metadata") or {}).get("labels") != (new.get("metadata") or {}).get("labels"):
        return True
    if old_spec.get("taints") != new_spec.get("taints"):
        return True
    return _conditions(old) != _conditions(new)
