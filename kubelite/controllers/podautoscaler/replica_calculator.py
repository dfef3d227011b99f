"""kube's ReplicaCalculator for Resource metrics: from the pods a target's selector picks and their samples, the
replica count that brings the average to the target. Pure: no I/O, the time is an argument.

Pods are grouped as kube's `groupPods` does: deleted and failed pods are ignored; pending pods, and (for CPU)
pods not ready or still starting whose sample may predate readiness, are unready; pods without a sample are
missing. The ratio is computed over the ready pods; when it is within the tolerance (0.1) nothing changes.
Missing and unready pods then weigh against the move (a missing pod counts as at 100% (or the target) when
scaling down, at 0 when scaling up; an unready one at 0 when scaling up), and a move they reverse is dropped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.quantity import QuantityError, parse_quantity

TOLERANCE = 0.1
#: --horizontal-pod-autoscaler-cpu-initialization-period
CPU_INITIALIZATION_PERIOD = timedelta(minutes=5)
#: --horizontal-pod-autoscaler-initial-readiness-delay
INITIAL_READINESS_DELAY = timedelta(seconds=30)


class CalculationError(Exception):
    """Why no replica count came out (kube's error text)."""


@dataclass(frozen=True, slots=True)
class PodSample:
    """One pod's sample (kube's PodMetric): the summed usage of its containers, in milli-units."""

    timestamp: datetime
    window: timedelta
    value: int


@dataclass(frozen=True, slots=True)
class Proposal:
    replicas: int
    #: the average utilization in percent of request (Utilization targets only)
    utilization: int | None
    #: the average usage per pod in milli-units
    raw_average: int
    timestamp: datetime


def milli(raw: object) -> int:
    try:
        return parse_quantity(str(raw)).milli_value()
    except (QuantityError, ValueError):
        return 0


def parse_time(raw: object) -> datetime | None:
    if not isinstance(raw, str) or not raw:
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def _ready_condition(pod: Obj) -> Obj | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def group_pods(
    pods: list[Obj], samples: dict[str, PodSample], resource: str, now: datetime
) -> tuple[int, set[str], set[str], set[str]]:
    """(ready count, unready, missing, ignored) as kube's groupPods."""
    ready = 0
    unready: set[str] = set()
    missing: set[str] = set()
    ignored: set[str] = set()
    for pod in pods:
        name = pod["metadata"]["name"]
        phase = (pod.get("status") or {}).get("phase")
        if pod["metadata"].get("deletionTimestamp") or phase == "Failed":
            ignored.add(name)
            continue
        if phase == "Pending":
            unready.add(name)
            continue
        sample = samples.get(name)
        if sample is None:
            missing.add(name)
            continue
        if resource == "cpu":
            condition = _ready_condition(pod)
            started = parse_time((pod.get("status") or {}).get("startTime"))
            transition = parse_time((condition or {}).get("lastTransitionTime"))
            if condition is None or started is None or transition is None:
                is_unready = True
            elif started + CPU_INITIALIZATION_PERIOD > now:
                # still starting: a sample counts once a whole window of it follows the last readiness change
                is_unready = condition.get("status") == "False" or sample.timestamp < transition + sample.window
            else:
                # past start-up: only a pod that has never been ready is left out
                is_unready = condition.get("status") == "False" and started + INITIAL_READINESS_DELAY > transition
            if is_unready:
                unready.add(name)
                continue
        ready += 1
    return ready, unready, missing, ignored


def pod_requests(pods: list[Obj], resource: str) -> dict[str, int]:
    """Each pod's request of `resource` summed over its containers, in milli-units (kube's calculatePodRequests)."""
    requests: dict[str, int] = {}
    for pod in pods:
        total = 0
        for container in (pod.get("spec") or {}).get("containers") or []:
            wanted = ((container.get("resources") or {}).get("requests") or {}).get(resource)
            if wanted is None:
                raise CalculationError(
                    f"missing request for {resource} in container {container.get('name', '')} "
                    f"of Pod {pod['metadata']['name']}"
                )
            total += milli(wanted)
        requests[pod["metadata"]["name"]] = total
    return requests


def _utilization_ratio(samples: dict[str, PodSample], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    total = requested = count = 0
    for name, sample in samples.items():
        if name not in requests:
            continue
        total += sample.value
        requested += requests[name]
        count += 1
    if requested == 0:
        raise CalculationError("no metrics returned matched known pods")
    utilization = total * 100 // requested
    return utilization / target, utilization, total // count


def _latest(samples: dict[str, PodSample]) -> datetime:
    return max(sample.timestamp for sample in samples.values())


def _check_pods(pods: list[Obj]) -> None:
    if not pods:
        raise CalculationError("no pods returned by selector while calculating replica count")


def utilization_replicas(
    current: int, target: int, resource: str, pods: list[Obj], samples: dict[str, PodSample], now: datetime
) -> Proposal:
    """kube's GetResourceReplicas: the count for an averageUtilization target (percent of request)."""
    if not samples:
        raise CalculationError(
            f"unable to get metrics for resource {resource}: no metrics returned from resource metrics API"
        )
    _check_pods(pods)
    ready, unready, missing, ignored = group_pods(pods, samples, resource, now)
    kept = {n: s for n, s in samples.items() if n not in ignored and n not in unready}
    requests = pod_requests(pods, resource)
    if not kept:
        raise CalculationError("did not receive metrics for targeted pods (pods might be unready)")
    timestamp = _latest(kept)
    ratio, utilization, raw = _utilization_ratio(kept, requests, target)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if abs(1.0 - ratio) <= TOLERANCE:
            return Proposal(current, utilization, raw, timestamp)
        return Proposal(math.ceil(ratio * ready), utilization, raw, timestamp)
    filled = dict(kept)
    if missing:
        if ratio < 1.0:
            fallback = max(100, target)
            for name in missing:
                filled[name] = PodSample(timestamp, timedelta(0), requests.get(name, 0) * fallback // 100)
        elif ratio > 1.0:
            for name in missing:
                filled[name] = PodSample(timestamp, timedelta(0), 0)
    if scale_up_with_unready:
        for name in unready:
            filled[name] = PodSample(timestamp, timedelta(0), 0)
    new_ratio, _, _ = _utilization_ratio(filled, requests, target)
    return _guarded(current, ratio, new_ratio, len(filled), Proposal(current, utilization, raw, timestamp))


def average_value_replicas(
    current: int, target_milli: int, resource: str, pods: list[Obj], samples: dict[str, PodSample], now: datetime
) -> Proposal:
    """kube's GetRawResourceReplicas: the count for an averageValue target (usage per pod)."""
    if not samples:
        raise CalculationError(
            f"unable to get metrics for resource {resource}: no metrics returned from resource metrics API"
        )
    _check_pods(pods)
    ready, unready, missing, ignored = group_pods(pods, samples, resource, now)
    kept = {n: s for n, s in samples.items() if n not in ignored and n not in unready}
    if not kept:
        raise CalculationError("did not receive metrics for targeted pods (pods might be unready)")
    timestamp = _latest(kept)
    usage = sum(s.value for s in kept.values()) // len(kept)
    ratio = usage / target_milli if target_milli else math.inf
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if abs(1.0 - ratio) <= TOLERANCE:
            return Proposal(current, None, usage, timestamp)
        return Proposal(math.ceil(ratio * ready), None, usage, timestamp)
    filled = dict(kept)
    if missing:
        fill = target_milli if ratio < 1.0 else 0
        if ratio != 1.0:
            for name in missing:
                filled[name] = PodSample(timestamp, timedelta(0), fill)
    if scale_up_with_unready:
        for name in unready:
            filled[name] = PodSample(timestamp, timedelta(0), 0)
    total = sum(s.value for s in filled.values()) // len(filled)
    new_ratio = total / target_milli if target_milli else math.inf
    return _guarded(current, ratio, new_ratio, len(filled), Proposal(current, None, usage, timestamp))


def _guarded(current: int, ratio: float, new_ratio: float, count: int, unchanged: Proposal) -> Proposal:
    """The count after missing and unready pods are weighed in: none when they bring the ratio within the
    tolerance or turn the move around."""
    if abs(1.0 - new_ratio) <= TOLERANCE or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return unchanged
    replicas = math.ceil(new_ratio * count)
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return unchanged
    return Proposal(replicas, unchanged.utilization, unchanged.raw_average, unchanged.timestamp)


def samples_from_metrics(items: list[Obj], resource: str) -> dict[str, PodSample]:
    """PodMetrics items as kube's resource metrics client reads them: a pod whose containers lack the resource
    has no sample."""
    samples: dict[str, PodSample] = {}
    for item in items:
        containers = item.get("containers") or []
        if not containers or any(resource not in (c.get("usage") or {}) for c in containers):
            continue
        timestamp = parse_time(item.get("timestamp"))
        if timestamp is None:
            continue
        window = _window(item.get("window"))
        value = sum(milli(c["usage"][resource]) for c in containers)
        samples[item["metadata"]["name"]] = PodSample(timestamp, window, value)
    return samples


def _window(raw: object) -> timedelta:
    text = str(raw or "0s")
    seconds = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text):
        seconds += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return timedelta(seconds=seconds)
