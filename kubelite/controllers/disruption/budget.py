"""A PodDisruptionBudget's status from the pods it selects (kube's disruption controller, pkg/controller/disruption).

    expectedPods     how many pods there should be: with an integer minAvailable, the pods selected; with
                     maxUnavailable or a percentage, the scale of the controllers owning them (a Deployment's
                     replicas, a StatefulSet's, ...), each counted once
    desiredHealthy   how many must stay healthy: minAvailable (a percentage of expectedPods rounded up), or
                     expectedPods less maxUnavailable (a percentage rounded up)
    currentHealthy   selected pods that are Ready, not terminating, and not just evicted (`disruptedPods`)
    disruptionsAllowed  currentHealthy - desiredHealthy, never below 0 (and 0 without expected pods)

`disruptedPods` holds the pods an eviction has spent the budget on: an entry is dropped once the pod is gone
or terminating, or when it is older than two minutes (kube's DeletionTimeout: the eviction's delete did not
happen). The `DisruptionAllowed` condition says whether one more eviction may go ahead, `SyncFailed` when
the status could not be computed (then no disruption is allowed, kube's fail-safe).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from kubelite.apimachinery.meta import Obj, parse_rfc3339, rfc3339
from kubelite.controllers.workloads.controller_utils import is_pod_ready, owner_controller

#: how long an eviction's entry in disruptedPods counts before its pod is assumed not deleted after all
DELETION_TIMEOUT = timedelta(minutes=2)

class BudgetError(Exception):
    """The status cannot be computed; str() is the SyncFailed condition's message."""


@dataclass
class BudgetStatus:
    status: Obj
    #: (type, reason, message) events to record about the budget
    events: list[tuple[str, str, str]] = field(default_factory=list)
    #: seconds until an entry of disruptedPods expires, for the controller to look again
    recheck_after: float | None = None


def _scaled(value: int | str, total: int, *, what: str) -> int:
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%"):
        raise BudgetError(f"invalid value for IntOrString: invalid type: string is not a percentage ({what})")
    try:
        percent = int(text[:-1])
    except ValueError as exc:
        raise BudgetError(f"invalid value for IntOrString: invalid value {text!r}") from exc
    return math.ceil(percent * total / 100)


def expected_and_desired(pdb: Obj, pods: Sequence[Obj], scale_of: Mapping[str, int | None]) -> tuple[int, int, bool]:
    """(expectedPods, desiredHealthy, some pods are unmanaged); `scale_of` maps a controller's uid to its scale
    (None: it has none kubelite can read)."""
    spec = pdb.get("spec") or {}
    min_available = spec.get("minAvailable")
    max_unavailable = spec.get("maxUnavailable")
    if max_unavailable is None and isinstance(min_available, int):
        return len(pods), min_available, False
    if max_unavailable is None and min_available is None:
        return 0, 0, False  # nothing is expected, so nothing may be disrupted
    expected, unmanaged, seen = 0, False, set()
    for pod in pods:
        ref = owner_controller(pod)
        if ref is None:
            unmanaged = True
            continue
        uid = str(ref.get("uid") or "")
        if uid in seen:
            continue
        seen.add(uid)
        scale = scale_of.get(uid)
        if scale is None:
            raise BudgetError(f'found no controllers for pod "{pod["metadata"]["name"]}"')
        expected += scale
    if max_unavailable is not None:
        desired = max(expected - _scaled(max_unavailable, expected, what="maxUnavailable"), 0)
    else:
        assert min_available is not None  # a percentage: both unset returned above
        desired = _scaled(min_available, expected, what="minAvailable")
    return expected, desired, unmanaged


def budget_status(pdb: Obj, pods: Sequence[Obj], scale_of: Mapping[str, int | None], now: datetime) -> BudgetStatus:
    meta = pdb["metadata"]
    old = dict(pdb.get("status") or {})
    events: list[tuple[str, str, str]] = []
    if not pods:
        events.append(("Normal", "NoPods", "No matching pods found"))
    try:
        expected, desired, unmanaged = expected_and_desired(pdb, pods, scale_of)
    except BudgetError as exc:
        events.append(("Warning", "CalculateExpectedPodCountFailed", f"Failed to calculate the number of expected "
                       f"pods: {exc}"))  # fmt: skip
        return BudgetStatus(failed_status(pdb, str(exc), now), events)
    if unmanaged:
        selector = (pdb.get("spec") or {}).get("selector")
        events.append((
            "Warning",
            "UnmanagedPods",
            f"Pods selected by this PodDisruptionBudget (selector: {_go_selector(selector)}) were found to be "
            "unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in "
            'undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to '
            "an integer value.",
        ))  # fmt: skip
    disrupted, recheck = _current_disruptions(old.get("disruptedPods") or {}, pods, now)
    healthy = sum(
        1
        for pod in pods
        if is_pod_ready(pod)
        and not pod["metadata"].get("deletionTimestamp")
        and pod["metadata"]["name"] not in disrupted
    )
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status: dict[str, Any] = {
        "observedGeneration": int(meta.get("generation") or 0),
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
    }
    if disrupted:
        status["disruptedPods"] = disrupted
    status["conditions"] = _with_condition(
        old.get("conditions") or [],
        "True" if allowed > 0 else "False",
        "SufficientPods" if allowed > 0 else "InsufficientPods",
        "",
        status["observedGeneration"],
        now,
    )
    return BudgetStatus(status, events, recheck)


def failed_status(pdb: Obj, message: str, now: datetime) -> Obj:
    """kube's failSafe: nothing may be disrupted while the status cannot be computed."""
    old = dict(pdb.get("status") or {})
    generation = int(pdb["metadata"].get("generation") or 0)
    status = {**old, "observedGeneration": generation, "disruptionsAllowed": 0}
    status["conditions"] = _with_condition(old.get("conditions") or [], "False", "SyncFailed", message,
                                           generation, now)  # fmt: skip
    return status


def _current_disruptions(
    recorded: Mapping[str, str], pods: Sequence[Obj], now: datetime
) -> tuple[dict[str, str], float | None]:
    by_name = {pod["metadata"]["name"]: pod for pod in pods}
    kept: dict[str, str] = {}
    recheck: float | None = None
    for name, when in recorded.items():
        pod = by_name.get(name)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            continue
        try:
            expires = parse_rfc3339(when) + DELETION_TIMEOUT
        except ValueError:
            continue
        if expires <= now:
            continue  # the eviction's delete never came: count the pod again
        kept[name] = when
        left = (expires - now).total_seconds()
        recheck = left if recheck is None else min(recheck, left)
    return kept, recheck


def _with_condition(
    conditions: list[Obj], status: str, reason: str, message: str, generation: int, now: datetime
) -> list[Obj]:
    out = [dict(c) for c in conditions if c.get("type") != "DisruptionAllowed"]
    previous = next((c for c in conditions if c.get("type") == "DisruptionAllowed"), None)
    transition = rfc3339(now)
    if previous is not None and previous.get("status") == status and previous.get("lastTransitionTime"):
        transition = previous["lastTransitionTime"]
    out.append({
        "type": "DisruptionAllowed",
        "status": status,
        "observedGeneration": generation,
        "lastTransitionTime": transition,
        "reason": reason,
        "message": message,
    })  # fmt: skip
    return out


def _go_selector(selector: Any) -> str:
    """A LabelSelector as Go's %v prints the pointer's struct (`&LabelSelector{MatchLabels:map[string]string{...}`)."""
    if not selector:
        return "nil"
    labels = selector.get("matchLabels") or {}
    pairs = ",".join(f"{k}: {v}," for k, v in sorted(labels.items()))
    rendered = "map[string]string{" + pairs + "}" if labels else "map[string]string{}"
    requirements = [
        f"LabelSelectorRequirement{{Key:{e.get('key')},Operator:{e.get('operator')},"
        f"Values:[{' '.join(e.get('values') or [])}],}}"
        for e in selector.get("matchExpressions") or []
    ]
    exprs = "[]LabelSelectorRequirement{" + ",".join(requirements) + "}"
    return f"&LabelSelector{{MatchLabels:{rendered},MatchExpressions:{exprs},}}"
