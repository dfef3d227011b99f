"""Taints and tolerations as the node lifecycle and taint eviction controllers read them (kube's
pkg/util/taints and v1helper's toleration matching), on plain dicts.

A taint is identified by key and effect (`MatchTaint`): a node carries at most one `unreachable:NoExecute`,
whatever its value or timeAdded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubelite.util.tolerations import tolerates

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
PID_PRESSURE = "node.kubernetes.io/pid-pressure"
NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"

Taint = dict[str, Any]

#: the NoExecute taints the node lifecycle controller keeps in step with the Ready condition
UNREACHABLE_NO_EXECUTE: Taint = {"key": UNREACHABLE, "effect": NO_EXECUTE}
NOT_READY_NO_EXECUTE: Taint = {"key": NOT_READY, "effect": NO_EXECUTE}

#: condition type -> {status: taint key}: the NoSchedule taints that mirror node conditions
CONDITION_TAINTS: dict[str, dict[str, str]] = {
    "Ready": {"False": NOT_READY, "Unknown": UNREACHABLE},
    "MemoryPressure": {"True": MEMORY_PRESSURE},
    "DiskPressure": {"True": DISK_PRESSURE},
    "NetworkUnavailable": {"True": NETWORK_UNAVAILABLE},
    "PIDPressure": {"True": PID_PRESSURE},
}
#: the keys of those taints (the ones this controller owns with effect NoSchedule)
CONDITION_TAINT_KEYS = frozenset(key for by_status in CONDITION_TAINTS.values() for key in by_status.values())


def matches(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """MatchTaint: the same key and effect."""
    return (a.get("key") or "") == (b.get("key") or "") and (a.get("effect") or "") == (b.get("effect") or "")


def node_taints(node: Mapping[str, Any]) -> list[Taint]:
    taints = (node.get("spec") or {}).get("taints")
    return [dict(t) for t in taints if isinstance(t, dict)] if isinstance(taints, list) else []


def exists(taints: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    return any(matches(t, taint) for t in taints)


def with_effect(taints: Iterable[Mapping[str, Any]], effect: str) -> list[Taint]:
    return [dict(t) for t in taints if t.get("effect") == effect]


def diff(wanted: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]]) -> tuple[list[Taint], list[Taint]]:
    """TaintSetDiff: the wanted taints missing from `current`, and the current ones not wanted."""
    add = [dict(t) for t in wanted if not exists(current, t)]
    remove = [dict(t) for t in current if not exists(wanted, t)]
    return add, remove


def swapped(
    taints: Sequence[Mapping[str, Any]], add: Sequence[Mapping[str, Any]], remove: Sequence[Mapping[str, Any]]
) -> list[Taint] | None:
    """The node's taints with `add` added (replacing one of the same key and effect) and `remove` removed
    (AddOrUpdateTaint then RemoveTaint), or None when that changes nothing."""
    result = [dict(t) for t in taints]
    changed = False
    for taint in add:
        for i, existing in enumerate(result):
            if matches(existing, taint):
                if existing != taint:
                    result[i] = dict(taint)
                    changed = True
                break
        else:
            result.append(dict(taint))
            changed = True
    kept = [t for t in result if not exists(remove, t)]
    if len(kept) != len(result):
        changed = True
    return kept if changed else None


# -- tolerations -----------------------------------------------------------------------------------------


def matching_tolerations(
    taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]
) -> tuple[bool, list[Mapping[str, Any]]]:
    """GetMatchingTolerations: whether every taint is tolerated, and the first toleration of each."""
    if not taints:
        return True, []
    used: list[Mapping[str, Any]] = []
    for taint in taints:
        found = next((t for t in tolerations if tolerates(t, taint)), None)
        if found is None:
            return False, []
        used.append(found)
    return True, used


def min_toleration_seconds(used: Sequence[Mapping[str, Any]]) -> float | None:
    """getMinTolerationTime: the shortest tolerationSeconds of the used tolerations (0 for none used, or
    one at or below zero), or None when they all tolerate forever."""
    if not used:
        return 0.0
    shortest: float | None = None
    for toleration in used:
        seconds = toleration.get("tolerationSeconds")
        if seconds is None or isinstance(seconds, bool) or not isinstance(seconds, int | float):
            continue
        if seconds <= 0:
            return 0.0
        shortest = seconds if shortest is None else min(shortest, seconds)
    return None if shortest is None else float(shortest)
