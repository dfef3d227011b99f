"""From a metric's proposal to the replica count the autoscaler sets: stabilization and rate limits (kube's
normalizeDesiredReplicas and normalizeDesiredReplicasWithBehaviors), and the state they keep per autoscaler:
recent recommendations and recent scale events, on the controller's clock.

Without `spec.behavior` kube stabilizes scale-down over --horizontal-pod-autoscaler-downscale-stabilization (300
s: the highest recommendation of that window wins) and bounds scale-up to max(2 x current, 4). With it, each
direction has its stabilization window and policies (Pods or Percent per period, selectPolicy Max, Min or
Disabled), which the API would have defaulted as below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

#: --horizontal-pod-autoscaler-downscale-stabilization
DOWNSCALE_STABILIZATION = timedelta(minutes=5)

DEFAULT_SCALE_UP: dict[str, Any] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
DEFAULT_SCALE_DOWN: dict[str, Any] = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}

READY_FOR_NEW_SCALE = ("ReadyForNewScale", "recommended size matches current size")
SCALE_UP_STABILIZED = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
)
SCALE_DOWN_STABILIZED = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
)
WITHIN_RANGE = ("DesiredWithinRange", "the desired count is within the acceptable range")
SCALE_UP_LIMIT = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
SCALE_DOWN_LIMIT = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")
TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")


@dataclass(slots=True)
class ScaleEvent:
    change: int
    at: datetime


@dataclass(slots=True)
class History:
    """What one autoscaler's decisions remember (kube keeps these in the controller, keyed by the HPA)."""

    recommendations: list[tuple[int, datetime]] = field(default_factory=list)
    scale_ups: list[ScaleEvent] = field(default_factory=list)
    scale_downs: list[ScaleEvent] = field(default_factory=list)

    def record_initial(self, replicas: int, now: datetime) -> None:
        if not self.recommendations:
            self.recommendations.append((replicas, now))

    def _record(self, replicas: int, now: datetime, obsolete_before: datetime) -> None:
        for index, (_, at) in enumerate(self.recommendations):
            if at < obsolete_before:
                self.recommendations[index] = (replicas, now)
                return
        self.recommendations.append((replicas, now))

    def store_scale_event(self, behavior: dict[str, Any] | None, previous: int, new: int, now: datetime) -> None:
        if behavior is None:
            return
        if new > previous:
            events, rules, change = self.scale_ups, behavior_rules(behavior, "scaleUp"), new - previous
        else:
            events, rules, change = self.scale_downs, behavior_rules(behavior, "scaleDown"), previous - new
        longest = max((int(p.get("periodSeconds") or 0) for p in rules.get("policies") or []), default=0)
        events[:] = [e for e in events if e.at > now - timedelta(seconds=longest)]
        events.append(ScaleEvent(change, now))


def behavior_rules(behavior: dict[str, Any], direction: str) -> dict[str, Any]:
    """One direction's rules with the API's defaults filled in (kube's GenerateHPAScale{Up,Down}Rules)."""
    defaults = DEFAULT_SCALE_UP if direction == "scaleUp" else DEFAULT_SCALE_DOWN
    given = behavior.get(direction) or {}
    rules = {**defaults, **{k: v for k, v in given.items() if v is not None}}
    if not given.get("policies"):
        rules["policies"] = defaults["policies"]
    return rules


def _changed_within(period_seconds: int, events: list[ScaleEvent], now: datetime) -> int:
    cutoff = now - timedelta(seconds=period_seconds)
    return sum(e.change for e in events if e.at > cutoff)


def scale_up_limit(current: int, events: list[ScaleEvent], rules: dict[str, Any], now: datetime) -> int:
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    proposals = []
    for policy in rules.get("policies") or []:
        start = current - _changed_within(int(policy.get("periodSeconds") or 0), events, now)
        value = int(policy.get("value") or 0)
        if policy.get("type") == "Pods":
            proposals.append(start + value)
        else:
            proposals.append(math.ceil(start * (1 + value / 100)))
    if not proposals:
        return current
    return min(proposals) if select == "Min" else max(proposals)


def scale_down_limit(current: int, events: list[ScaleEvent], rules: dict[str, Any], now: datetime) -> int:
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    proposals = []
    for policy in rules.get("policies") or []:
        start = current + _changed_within(int(policy.get("periodSeconds") or 0), events, now)
        value = int(policy.get("value") or 0)
        if policy.get("type") == "Pods":
            proposals.append(start - value)
        else:
            proposals.append(int(start * (1 - value / 100)))
    if not proposals:
        return current
    # Max lets the largest change through: the lowest bound
    return max(proposals) if select == "Min" else min(proposals)


@dataclass(frozen=True, slots=True)
class Normalized:
    replicas: int
    #: AbleToScale's reason and message (True)
    able: tuple[str, str]
    #: ScalingLimited's status, reason and message
    limited: tuple[bool, str, str]


def normalize(
    history: History,
    *,
    behavior: dict[str, Any] | None,
    current: int,
    desired: int,
    min_replicas: int,
    max_replicas: int,
    now: datetime,
    downscale_stabilization: timedelta = DOWNSCALE_STABILIZATION,
) -> Normalized:
    if behavior is None:
        return _normalize_plain(history, current, desired, min_replicas, max_replicas, now, downscale_stabilization)
    return _normalize_with_behavior(
        history, behavior, current, desired, min_replicas, max_replicas, now, downscale_stabilization
    )


def _normalize_plain(
    history: History, current: int, desired: int, low: int, high: int, now: datetime, window: timedelta
) -> Normalized:
    cutoff = now - window
    stabilized = max([desired, *(r for r, at in history.recommendations if at >= cutoff)])
    history._record(desired, now, cutoff)
    able = SCALE_DOWN_STABILIZED if stabilized != desired else READY_FOR_NEW_SCALE
    # a burst of bogus usage must not multiply the replicas: at most double (or 4) per decision
    up_limit = max(2 * current, 4)
    ceiling, over = (up_limit, SCALE_UP_LIMIT) if high > up_limit else (high, TOO_MANY)
    if stabilized < low:
        replicas, why = low, TOO_FEW
    elif stabilized > ceiling:
        replicas, why = ceiling, over
    else:
        replicas, why = stabilized, WITHIN_RANGE
    return Normalized(replicas, able, (replicas != stabilized, *why))


def _normalize_with_behavior(
    history: History,
    behavior: dict[str, Any],
    current: int,
    desired: int,
    low: int,
    high: int,
    now: datetime,
    default_window: timedelta,
) -> Normalized:
    up_rules, down_rules = behavior_rules(behavior, "scaleUp"), behavior_rules(behavior, "scaleDown")
    up_window = timedelta(seconds=int(up_rules.get("stabilizationWindowSeconds") or 0))
    down_seconds = down_rules.get("stabilizationWindowSeconds")
    down_window = default_window if down_seconds is None else timedelta(seconds=int(down_seconds))
    up_recommendation = down_recommendation = desired
    for replicas, at in history.recommendations:
        if at > now - up_window:
            up_recommendation = min(up_recommendation, replicas)
        if at > now - down_window:
            down_recommendation = max(down_recommendation, replicas)
    stabilized = min(max(current, up_recommendation), down_recommendation)
    history._record(desired, now, now - max(up_window, down_window))
    if stabilized != desired:
        able = SCALE_UP_STABILIZED if desired >= current else SCALE_DOWN_STABILIZED
    else:
        able = READY_FOR_NEW_SCALE
    replicas, why = stabilized, WITHIN_RANGE
    if stabilized > current:
        limit = max(scale_up_limit(current, history.scale_ups, up_rules, now), current)
        ceiling, over = (limit, SCALE_UP_LIMIT) if high > limit else (high, TOO_MANY)
        if stabilized > ceiling:
            replicas, why = ceiling, over
    elif stabilized < current:
        limit = min(scale_down_limit(current, history.scale_downs, down_rules, now), current)
        floor, under = (limit, SCALE_DOWN_LIMIT) if low < limit else (low, TOO_FEW)
        if stabilized < floor:
            replicas, why = floor, under
    return Normalized(replicas, able, (replicas != stabilized, *why))
