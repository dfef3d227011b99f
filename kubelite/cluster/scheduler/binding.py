"""What the scheduler writes back, as objects ready to send: the Binding for `pods/binding`, the events, and the
PodScheduled condition of a pod it could not place. No API call is made here.

kube-scheduler binds with a v1 Binding naming the pod (with its uid, so a recreated pod of the same name is not
bound by mistake) and the target Node (DefaultBinder); the apiserver then sets nodeName and the PodScheduled=True
condition itself. It records events through the events.k8s.io/v1 API as "default-scheduler" (instance
"default-scheduler-<host>"): `Scheduled`
(Normal, action Binding, "Successfully assigned <ns>/<pod> to <node>") and `FailedScheduling` (Warning, action
Scheduling, the FitError message). For a pod it cannot place it patches the pod's status with
PodScheduled=False, reason Unschedulable and the same message (kube's updatePod, a strategic merge patch keyed
on the condition type).

Preemption writes, as kube's DefaultPreemption: each victim gets DisruptionTarget=True (reason
PreemptionByScheduler) through pods/status before it is deleted, and a `Preempted` event (action Preempting,
"Preempted by pod <uid> on node <node>", related to the preemptor); the preemptor's status names the node in
`nominatedNodeName`; lower-priority pods nominated to that node lose their nomination.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from kubelite.apimachinery.meta import rfc3339

SCHEDULER_NAME: Final = "default-scheduler"
SCHEDULED: Final = "Scheduled"
FAILED_SCHEDULING: Final = "FailedScheduling"
UNSCHEDULABLE: Final = "Unschedulable"
SCHEDULER_ERROR: Final = "SchedulerError"
PREEMPTED: Final = "Preempted"
PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"
NOTE_LENGTH_LIMIT: Final = 1024  # events.k8s.io's limit on `note`


def reporting_instance(host: str | None = None) -> str:
    """The events recorder's reportingInstance: the controller's name and the host it runs on."""
    return f"{SCHEDULER_NAME}-{host or socket.gethostname()}"


def truncate_note(message: str) -> str:
    """kube-scheduler's truncateMessage: a FitError longer than an event note may be is cut, marked " ..."."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    return message[:NOTE_LENGTH_LIMIT - 4] + " ..."


def _metadata(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("metadata") or {}


def binding(pod: Mapping[str, Any], node_name: str) -> dict[str, Any]:
    """The body of POST /api/v1/namespaces/<ns>/pods/<name>/binding."""
    metadata = _metadata(pod)
    meta: dict[str, Any] = {"name": metadata.get("name"), "namespace": metadata.get("namespace")}
    if metadata.get("uid"):
        meta["uid"] = metadata["uid"]
    return {"apiVersion": "v1", "kind": "Binding", "metadata": meta, "target": {"kind": "Node", "name": node_name}}


def _micro_time(when: datetime) -> str:
    """metav1.MicroTime's wire form: RFC 3339 with microseconds."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _reference(pod: Mapping[str, Any]) -> dict[str, Any]:
    metadata = _metadata(pod)
    reference: dict[str, Any] = {"kind": "Pod", "namespace": metadata.get("namespace"), "name": metadata.get("name"),
                                 "apiVersion": "v1"}
    if metadata.get("uid"):
        reference["uid"] = metadata["uid"]
    if metadata.get("resourceVersion"):
        reference["resourceVersion"] = metadata["resourceVersion"]
    return reference


def _event(pod: Mapping[str, Any], *, event_type: str, reason: str, action: str, note: str, now: datetime,
           instance: str, related: Mapping[str, Any] | None = None) -> dict[str, Any]:
    metadata = _metadata(pod)
    regarding = _reference(pod)
    nanos = int(now.timestamp()) * 1_000_000_000 + now.microsecond * 1000
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        # the events recorder names an event after its object and the time in hex nanoseconds
        "metadata": {"name": f"{metadata.get('name')}.{nanos:x}", "namespace": metadata.get("namespace")},
        "eventTime": _micro_time(now),
        "reportingController": SCHEDULER_NAME,
        "reportingInstance": instance,
        "action": action,
        "reason": reason,
        "regarding": regarding,
        "note": note,
        "type": event_type,
        **({"related": _reference(related)} if related is not None else {}),
    }


def scheduled_event(pod: Mapping[str, Any], node_name: str, *, now: datetime,
                    instance: str | None = None) -> dict[str, Any]:
    metadata = _metadata(pod)
    note = f"Successfully assigned {metadata.get('namespace')}/{metadata.get('name')} to {node_name}"
    return _event(pod, event_type="Normal", reason=SCHEDULED, action="Binding", note=note, now=now,
                  instance=instance or reporting_instance())


def failed_scheduling_event(pod: Mapping[str, Any], message: str, *, now: datetime,
                            instance: str | None = None) -> dict[str, Any]:
    """The event's note is the message cut to the note limit; the PodScheduled condition keeps it whole."""
    return _event(pod, event_type="Warning", reason=FAILED_SCHEDULING, action="Scheduling",
                  note=truncate_note(message), now=now, instance=instance or reporting_instance())


def unschedulable_condition(message: str, *, now: datetime, reason: str = UNSCHEDULABLE) -> dict[str, Any]:
    """PodScheduled=False; `reason` is Unschedulable for a FitError, SchedulerError for anything else."""
    return {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
            "lastTransitionTime": rfc3339(now), "reason": reason, "message": message}


def pod_condition_patch(pod: Mapping[str, Any], condition: Mapping[str, Any]) -> dict[str, Any] | None:
    """The strategic merge patch for pods/status that sets `condition`, or None when the pod already has it
    (same status, reason and message: kube then sends nothing). An unchanged status keeps the old
    lastTransitionTime, as podutil.UpdatePodCondition does."""
    conditions = (pod.get("status") or {}).get("conditions") or ()
    current = next((c for c in conditions if c.get("type") == condition["type"]), None)
    wanted = dict(condition)
    if current is not None:
        if all(current.get(k) == wanted.get(k) for k in ("status", "reason", "message")):
            return None
        if current.get("status") == wanted.get("status") and current.get("lastTransitionTime"):
            wanted["lastTransitionTime"] = current["lastTransitionTime"]
    return {"status": {"conditions": [wanted]}}


def preempted_event(victim: Mapping[str, Any], preemptor: Mapping[str, Any], node_name: str, *, now: datetime,
                    instance: str | None = None) -> dict[str, Any]:
    note = f"Preempted by pod {_metadata(preemptor).get('uid')} on node {node_name}"
    return _event(victim, event_type="Normal", reason=PREEMPTED, action="Preempting", note=note, now=now,
                  instance=instance or reporting_instance(), related=preemptor)


def disruption_target_condition(scheduler_name: str, *, now: datetime) -> dict[str, Any]:
    return {"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
            "lastTransitionTime": rfc3339(now), "reason": PREEMPTION_BY_SCHEDULER,
            "message": f"{scheduler_name}: preempting to accommodate a higher priority pod"}


def nomination_patch(patch: dict[str, Any] | None, node_name: str | None) -> dict[str, Any]:
    """`patch` (a pods/status patch or None) that also sets, or with None clears, status.nominatedNodeName."""
    merged: dict[str, Any] = dict(patch or {})
    merged["status"] = {**(merged.get("status") or {}), "nominatedNodeName": node_name}
    return merged
