"""Taint-based eviction decisions (kube's taint eviction controller, processPodOnNode), without I/O.

A pod on a node with NoExecute taints is deleted at once if some taint is not tolerated; if all are, after
the shortest tolerationSeconds of the tolerations used, counted from when the controller first saw the pod
so exposed (a later change of taints or tolerations keeps that deadline, as kube's does); tolerations
without tolerationSeconds keep it forever. Cancelled work is announced with an event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubelite.controllers.nodelifecycle.taints import matching_tolerations, min_toleration_seconds


@dataclass
class Eviction:
    """A pod's scheduled deletion (kube's TimedWorker): created at, due at, and whether it has run (a run
    eviction stays, so the pod is not queued twice, until cancelled)."""

    created_at: float
    fire_at: float
    fired: bool = False


@dataclass(frozen=True)
class Plan:
    #: cancel the pod's scheduled eviction (with an event, if it had one)
    cancel: bool
    #: then schedule this one (None: nothing new)
    schedule: Eviction | None = None


KEEP = Plan(cancel=False)
CANCEL = Plan(cancel=True)


def plan(
    tolerations: Sequence[Mapping[str, Any]],
    taints: Sequence[Mapping[str, Any]],
    now: float,
    scheduled: Eviction | None,
) -> Plan:
    """What to do about one pod on a node with these NoExecute taints, given its scheduled eviction."""
    if not taints:
        return CANCEL
    tolerated, used = matching_tolerations(taints, tolerations)
    if not tolerated:
        # deleted right away: whatever was scheduled (or already run) gives way to the immediate eviction
        return Plan(cancel=True, schedule=Eviction(now, now))
    seconds = min_toleration_seconds(used)
    if seconds is None:
        return CANCEL
    if scheduled is None:
        return Plan(cancel=False, schedule=Eviction(now, now + seconds))
    if scheduled.fired or scheduled.created_at < now:
        # an eviction that ran is not queued again; one counting since earlier keeps its deadline
        return KEEP
    return Plan(cancel=True, schedule=Eviction(scheduled.created_at, now + seconds))
