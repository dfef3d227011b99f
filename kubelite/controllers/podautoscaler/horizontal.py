"""One autoscaler's decision (kube's reconcileAutoscaler), pure: from the HPA, its target's scale, the pods the
scale's selector picks and their PodMetrics, the count to set, the status to write and the events to record.

Only Resource metrics are computed (Utilization and AverageValue). Pods, Object, External and ContainerResource
metrics need the custom or external metrics APIs, which kubelite does not serve: they fail as kube's do when
those APIs are missing, so ScalingActive turns False with kube's reason for the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.quantity import Quantity
from kubelite.apimachinery.selectors import SelectorError, parse_label_selector
from kubelite.controllers.podautoscaler.replica_calculator import (
    CalculationError,
    Proposal,
    average_value_replicas,
    milli,
    samples_from_metrics,
    utilization_replicas,
)
from kubelite.controllers.podautoscaler.scaling import History, normalize

#: what v2 defaulting gives an HPA without metrics
DEFAULT_METRICS = [
    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}
]

_UNSUPPORTED = {
    "Pods": ("FailedGetPodsMetric", "custom metrics API", "pods.custom.metrics.k8s.io"),
    "Object": ("FailedGetObjectMetric", "custom metrics API", "custom.metrics.k8s.io"),
    "External": ("FailedGetExternalMetric", "external metrics API", "external.metrics.k8s.io"),
    "ContainerResource": ("FailedGetContainerResourceMetric", "resource metrics API", "metrics.k8s.io"),
}

Condition = tuple[str, str, str, str]
Event = tuple[str, str, str]


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def milli_quantity(value: int) -> str:
    return str(Quantity(Fraction(value, 1000), "DecimalSI"))


@dataclass(slots=True)
class Decision:
    current: int
    desired: int
    rescale: bool
    reason: str = ""
    conditions: list[Condition] = field(default_factory=list)
    metrics: list[Obj] | None = None
    events: list[Event] = field(default_factory=list)
    #: no count came out: only currentReplicas and currentMetrics are written, and the sync fails
    error: str | None = None
    #: the scale was not read: only the conditions change
    no_scale: bool = False

    def condition(self, kind: str, status: bool, reason: str, message: str) -> None:
        self.conditions.append((kind, "True" if status else "False", reason, message))

    def warn(self, reason: str, message: str) -> None:
        self.events.append(("Warning", reason, message))


def scale_failure(message: str) -> Decision:
    """The target's scale could not be read."""
    decision = Decision(0, 0, False, error=message, no_scale=True)
    decision.warn("FailedGetScale", message)
    decision.condition(
        "AbleToScale",
        False,
        "FailedGetScale",
        f"the HPA controller was unable to get the target's current scale: {message}",
    )
    return decision


def decide(
    hpa: Obj,
    scale: Obj,
    pods: list[Obj],
    pod_metrics: list[Obj] | str,
    history: History,
    now: datetime,
) -> Decision:
    """`pod_metrics` is the PodMetrics list of the selector, or why it could not be read."""
    spec = hpa.get("spec") or {}
    min_replicas = spec.get("minReplicas")
    min_replicas = 1 if min_replicas is None else int(min_replicas)
    max_replicas = int(spec.get("maxReplicas") or 0)
    current = int((scale.get("spec") or {}).get("replicas") or 0)
    decision = Decision(current, 0, True)
    decision.condition(
        "AbleToScale", True, "SucceededGetScale", "the HPA controller was able to get the target's current scale"
    )
    history.record_initial(current, now)
    if current == 0 and min_replicas != 0:
        decision.desired, decision.rescale = 0, False
        decision.condition(
            "ScalingActive",
            False,
            "ScalingDisabled",
            "scaling is disabled since the replica count of the target is zero",
        )
    elif current > max_replicas:
        decision.reason, decision.desired = "Current number of replicas above Spec.MaxReplicas", max_replicas
    elif current < min_replicas:
        decision.reason, decision.desired = "Current number of replicas below Spec.MinReplicas", min_replicas
    else:
        proposed, metric_name = _replicas_for_metrics(decision, spec, scale, pods, pod_metrics, now)
        if proposed < 0:
            return decision
        desired, rescale_metric = 0, ""
        if proposed > desired:
            desired, rescale_metric = proposed, metric_name
        if desired > current:
            decision.reason = f"{rescale_metric} above target"
        if desired < current:
            decision.reason = "All metrics below target"
        normalized = normalize(
            history,
            behavior=spec.get("behavior"),
            current=current,
            desired=desired,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            now=now,
        )
        decision.condition("AbleToScale", True, *normalized.able)
        decision.condition("ScalingLimited", *normalized.limited)
        decision.desired = normalized.replicas
        decision.rescale = decision.desired != current
    return decision


def _replicas_for_metrics(
    decision: Decision, spec: Obj, scale: Obj, pods: list[Obj], pod_metrics: list[Obj] | str, now: datetime
) -> tuple[int, str]:
    metric_specs = spec.get("metrics") or DEFAULT_METRICS
    selector_text = (scale.get("status") or {}).get("selector") or ""
    if not selector_text:
        decision.warn("SelectorRequired", "selector is required")
        decision.condition("ScalingActive", False, "InvalidSelector", "the HPA target's scale is missing a selector")
        decision.error = "selector is required"
        return -1, ""
    try:
        parse_label_selector(selector_text)
    except (SelectorError, ValueError) as exc:
        message = f"couldn't convert selector into a corresponding internal selector object: {exc}"
        decision.warn("InvalidSelector", message)
        decision.condition("ScalingActive", False, "InvalidSelector", message)
        decision.error = message
        return -1, ""
    statuses: list[Obj] = []
    replicas, metric, invalid = 0, "", 0
    first_error, first_condition = "", ("", "", "", "")
    for metric_spec in metric_specs:
        status: Obj = {"type": ""}
        try:
            proposal, name, status = _replicas_for_metric(decision.current, metric_spec, pods, pod_metrics, now)
        except _MetricError as exc:
            decision.warn(exc.reason, exc.detail)
            if invalid == 0:
                first_error = exc.message
                first_condition = (
                    "ScalingActive",
                    "False",
                    exc.reason,
                    f"the HPA was unable to compute the replica count: {exc.detail}",
                )
            invalid += 1
            statuses.append(status)
            continue
        statuses.append(status)
        if replicas == 0 or proposal > replicas:
            replicas, metric = proposal, name
    decision.metrics = statuses
    if invalid:
        first_error = f"invalid metrics ({invalid} invalid out of {len(metric_specs)}), first error is: {first_error}"
    if invalid >= len(metric_specs) or (invalid > 0 and replicas < decision.current):
        decision.conditions.append(first_condition)
        decision.error = first_error
        decision.events.append(("Warning", "FailedComputeMetricsReplicas", first_error))
        return -1, ""
    decision.condition(
        "ScalingActive",
        True,
        "ValidMetricFound",
        f"the HPA was able to successfully calculate a replica count from {metric}",
    )
    return replicas, metric


class _MetricError(Exception):
    def __init__(self, reason: str, detail: str, message: str) -> None:
        super().__init__(message)
        #: the condition's reason and the event's, the event's text, and the sync error's
        self.reason, self.detail, self.message = reason, detail, message


def _replicas_for_metric(
    current: int, metric_spec: Obj, pods: list[Obj], pod_metrics: list[Obj] | str, now: datetime
) -> tuple[int, str, Obj]:
    kind = str(metric_spec.get("type") or "")
    if kind != "Resource":
        if kind in _UNSUPPORTED:
            reason, api, resource = _UNSUPPORTED[kind]
            name = _metric_name(metric_spec, kind)
            detail = (
                f"unable to get metric {name}: unable to fetch metrics from {api}: "
                f"the server could not find the requested resource (get {resource})"
            )
            raise _MetricError(reason, detail, f"failed to get {kind.lower()} metric value: {detail}")
        detail = f'unknown metric source type "{kind}"'
        raise _MetricError("InvalidMetricSourceType", detail, detail)
    source = metric_spec.get("resource") or {}
    resource = str(source.get("name") or "")
    target = source.get("target") or {}
    try:
        proposal, name, current_value = _resource_proposal(current, resource, target, pods, pod_metrics, now)
    except CalculationError as exc:
        raise _MetricError(
            "FailedGetResourceMetric", str(exc), f"failed to get {resource} resource metric value: {exc}"
        ) from exc
    return proposal.replicas, name, {"type": "Resource", "resource": {"name": resource, "current": current_value}}


def _metric_name(metric_spec: Obj, kind: str) -> str:
    source = metric_spec.get(kind[0].lower() + kind[1:]) or {}
    return str((source.get("metric") or {}).get("name") or source.get("name") or "")


def _resource_proposal(
    current: int, resource: str, target: Obj, pods: list[Obj], pod_metrics: list[Obj] | str, now: datetime
) -> tuple[Proposal, str, Obj]:
    if target.get("averageValue") is not None:
        samples = _samples(resource, pod_metrics, "usage")
        try:
            proposal = average_value_replicas(current, milli(target["averageValue"]), resource, pods, samples, now)
        except CalculationError as exc:
            raise CalculationError(f"failed to get {resource} usage: {exc}") from exc
        return proposal, f"{resource} resource", {"averageValue": milli_quantity(proposal.raw_average)}
    if target.get("averageUtilization") is None:
        raise CalculationError(
            "invalid resource metric source: neither an average utilization target nor an average value (usage) "
            "target was set"
        )
    samples = _samples(resource, pod_metrics, "utilization")
    try:
        proposal = utilization_replicas(current, int(target["averageUtilization"]), resource, pods, samples, now)
    except CalculationError as exc:
        raise CalculationError(f"failed to get {resource} utilization: {exc}") from exc
    return (
        proposal,
        f"{resource} resource utilization (percentage of request)",
        {"averageValue": milli_quantity(proposal.raw_average), "averageUtilization": proposal.utilization},
    )


def _samples(resource: str, pod_metrics: list[Obj] | str, what: str) -> Any:
    if isinstance(pod_metrics, str):
        raise CalculationError(
            f"failed to get {resource} {what}: unable to get metrics for resource {resource}: {pod_metrics}"
        )
    return samples_from_metrics(pod_metrics, resource)


def finish(hpa: Obj, decision: Decision, rescale_error: str | None, now: datetime) -> tuple[Obj, list[Event]]:
    """The status to write and the events to record once the scale was (or failed to be) updated."""
    events = list(decision.events)
    conditions = list(decision.conditions)
    desired, rescaled = decision.desired, decision.rescale
    if decision.error is None and decision.rescale:
        if rescale_error is not None:
            events.append(
                ("Warning", "FailedRescale", f"New size: {desired}; reason: {decision.reason}; error: {rescale_error}")
            )
            conditions.append(
                (
                    "AbleToScale",
                    "False",
                    "FailedUpdateScale",
                    f"the HPA controller was unable to update the target scale: {rescale_error}",
                )
            )
            rescaled = False
            desired = decision.current
        else:
            conditions.append(
                (
                    "AbleToScale",
                    "True",
                    "SucceededRescale",
                    f"the HPA controller was able to update the target scale to {desired}",
                )
            )
            events.append(("Normal", "SuccessfulRescale", f"New size: {desired}; reason: {decision.reason}"))
    elif decision.error is None:
        desired = decision.current
    old = hpa.get("status") or {}
    if decision.no_scale:
        kept = dict(old)
        kept["conditions"] = _merge_conditions(old.get("conditions") or [], conditions, now)
        return kept, events
    status: Obj = {}
    if hpa.get("metadata", {}).get("generation") is not None:
        status["observedGeneration"] = hpa["metadata"]["generation"]
    last_scale = (
        format_time(now) if rescaled and decision.error is None and rescale_error is None else old.get("lastScaleTime")
    )
    if last_scale:
        status["lastScaleTime"] = last_scale
    status["currentReplicas"] = decision.current
    if decision.error is None:
        status["desiredReplicas"] = desired
    else:
        status["desiredReplicas"] = old.get("desiredReplicas", 0)
    if decision.metrics:
        status["currentMetrics"] = decision.metrics
    merged = _merge_conditions(old.get("conditions") or [], conditions, now)
    if merged:
        status["conditions"] = merged
    return status, events


def _merge_conditions(old: list[Obj], updates: list[Condition], now: datetime) -> list[Obj]:
    """kube's setCondition, applied in order: a condition keeps its lastTransitionTime while its status holds."""
    merged = [dict(c) for c in old]
    for kind, status, reason, message in updates:
        existing = next((c for c in merged if c.get("type") == kind), None)
        if existing is None:
            merged.append(
                {
                    "type": kind,
                    "status": status,
                    "lastTransitionTime": format_time(now),
                    "reason": reason,
                    "message": message,
                }
            )
            continue
        if existing.get("status") != status:
            existing["lastTransitionTime"] = format_time(now)
        existing.update(status=status, reason=reason, message=message)
    return merged
