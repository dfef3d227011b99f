"""Node health as the node lifecycle controller judges it (kube's tryUpdateNodeHealth), without I/O.

The controller keeps, per node, when it last saw a sign of life (`probe_timestamp`, on its own clock, never
the kubelet's: clocks across a cluster drift): a new heartbeat in the Ready condition, or a newer renewTime
of the node's Lease in kube-node-lease. A node silent for longer than the grace period (40 s; 60 s for a
node whose kubelet never posted a Ready condition) has its Ready, MemoryPressure, DiskPressure and
PIDPressure conditions set to Unknown: `NodeStatusUnknown`, "Kubelet stopped posting node status.", or
`NodeStatusNeverUpdated`, "Kubelet never posted node status." for one never posted. The heartbeat time of a
condition stays the kubelet's; its transition time becomes now.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, parse_rfc3339, rfc3339

#: --node-monitor-grace-period: silence after which a node's conditions go Unknown
NODE_MONITOR_GRACE_PERIOD = 40.0
#: --node-startup-grace-period: the same for a node whose kubelet never posted its Ready condition
NODE_STARTUP_GRACE_PERIOD = 60.0
#: --node-monitor-period: how often every node's health is checked
NODE_MONITOR_PERIOD = 5.0

#: the conditions the controller turns Unknown (NetworkUnavailable is the network plugin's, left alone)
WATCHED_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")


@dataclass(frozen=True)
class NodeHealth:
    """What the controller remembers of a node between checks (kube's nodeHealthData)."""

    #: when the controller last saw a sign of life, in epoch seconds on its clock
    probe_timestamp: float
    ready_transition_timestamp: float
    #: the Ready condition as last seen (None: the node had none)
    ready: dict[str, Any] | None
    #: the renewTime of the node's Lease as last seen
    lease_renew_time: datetime | None = None


@dataclass(frozen=True)
class HealthCheck:
    health: NodeHealth
    grace_period: float
    #: the Ready condition as the node had it (a made-up Unknown one when it had none)
    observed_ready: dict[str, Any]
    #: the Ready condition after this check (None when the node has none and is not yet overdue)
    current_ready: dict[str, Any] | None
    #: the node with its conditions changed, to write to nodes/status; None when nothing changed
    status_update: Obj | None


def ready_condition(node: Obj) -> dict[str, Any] | None:
    return condition(node, "Ready")


def condition(node: Obj, kind: str) -> dict[str, Any] | None:
    for cond in (node.get("status") or {}).get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def lease_renew_time(lease: Obj | None) -> datetime | None:
    if lease is None:
        return None
    text = (lease.get("spec") or {}).get("renewTime")
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _epoch(text: Any, default: float) -> float:
    if not isinstance(text, str) or not text:
        return default
    try:
        return parse_rfc3339(text).timestamp()
    except ValueError:
        return default


def stamp(now: float) -> str:
    return rfc3339(datetime.fromtimestamp(now, UTC))


def check_health(
    node: Obj,
    lease: Obj | None,
    saved: NodeHealth | None,
    now: float,
    *,
    grace_period: float = NODE_MONITOR_GRACE_PERIOD,
    startup_grace_period: float = NODE_STARTUP_GRACE_PERIOD,
) -> HealthCheck:
    """One check of one node: the health to remember, and the status to write if the node is overdue."""
    meta = node.get("metadata") or {}
    created = meta.get("creationTimestamp") or ""
    current = ready_condition(node)
    health = saved
    if current is None:
        # never posted: judged from its creation, with the longer start-up grace
        observed: dict[str, Any] = {
            "type": "Ready",
            "status": "Unknown",
            "lastHeartbeatTime": created,
            "lastTransitionTime": created,
        }
        grace = startup_grace_period
        if health is None:
            born = _epoch(created, now)
            health = NodeHealth(born, born, None)
        else:
            health = replace(health, ready=None)
    else:
        observed = copy.deepcopy(current)
        grace = grace_period
    # (a node without a Ready condition has just been remembered without one: nothing more to compare)
    saved_ready = health.ready if health is not None else None
    if health is None or (saved_ready is None and current is not None) or (saved_ready is not None and current is None):
        # first sight of the node (or of its Ready condition, or its loss): it counts as alive now
        health = NodeHealth(now, now, copy.deepcopy(current), health.lease_renew_time if health else None)
    elif saved_ready is not None and current is not None:
        if saved_ready.get("lastHeartbeatTime") != current.get("lastHeartbeatTime"):
            transitioned = saved_ready.get("lastTransitionTime") != current.get("lastTransitionTime")
            health = NodeHealth(
                now,
                now if transitioned else health.ready_transition_timestamp,
                copy.deepcopy(current),
                health.lease_renew_time,
            )
    renewed = lease_renew_time(lease)
    if renewed is not None and (health.lease_renew_time is None or health.lease_renew_time < renewed):
        # a renewed Lease is a sign of life too, even from a kubelet that never posted its status
        health = replace(health, lease_renew_time=renewed, probe_timestamp=now)

    if not now > health.probe_timestamp + grace:
        return HealthCheck(health, grace, observed, current, None)
    updated = copy.deepcopy(node)
    status = updated.setdefault("status", {})
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        conditions = status["conditions"] = []
    at = stamp(now)
    for kind in WATCHED_CONDITIONS:
        found = next((c for c in conditions if isinstance(c, dict) and c.get("type") == kind), None)
        if found is None:
            conditions.append(
                {
                    "type": kind,
                    "status": "Unknown",
                    "lastHeartbeatTime": created,
                    "lastTransitionTime": at,
                    "reason": "NodeStatusNeverUpdated",
                    "message": "Kubelet never posted node status.",
                }
            )
        elif found.get("status") != "Unknown":
            found["status"] = "Unknown"
            found["reason"] = "NodeStatusUnknown"
            found["message"] = "Kubelet stopped posting node status."
            found["lastTransitionTime"] = at
    now_ready = ready_condition(updated)
    if now_ready == observed:
        return HealthCheck(health, grace, observed, now_ready, None)
    return HealthCheck(health, grace, observed, now_ready, updated)


def after_status_update(check: HealthCheck, written: Obj, now: float) -> NodeHealth:
    """The health to remember once the Unknown conditions are written: the transition happened now."""
    return NodeHealth(
        check.health.probe_timestamp, now, copy.deepcopy(ready_condition(written)), check.health.lease_renew_time
    )


# -- zones and disruption --------------------------------------------------------------------------------

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def zone_key(node: Obj) -> str:
    """GetZoneKey: region and zone labels (the GA ones first); "" when the node has neither."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    region = next((labels[k] for k in REGION_LABELS if labels.get(k)), "")
    zone = next((labels[k] for k in ZONE_LABELS if labels.get(k)), "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


NORMAL = "Normal"
PARTIAL_DISRUPTION = "PartialDisruption"
FULL_DISRUPTION = "FullDisruption"
INITIAL = "Initial"

#: --unhealthy-zone-threshold: the share of not-Ready nodes (more than two) that makes a zone partially disrupted
UNHEALTHY_ZONE_THRESHOLD = 0.55


def zone_state(ready_statuses: list[str | None], threshold: float = UNHEALTHY_ZONE_THRESHOLD) -> tuple[int, str]:
    """ComputeZoneState: how many nodes are not Ready, and the zone's state."""
    ready = sum(1 for status in ready_statuses if status == "True")
    not_ready = len(ready_statuses) - ready
    if ready == 0 and not_ready > 0:
        return not_ready, FULL_DISRUPTION
    if not_ready > 2 and not_ready / (not_ready + ready) >= threshold:
        return not_ready, PARTIAL_DISRUPTION
    return not_ready, NORMAL
