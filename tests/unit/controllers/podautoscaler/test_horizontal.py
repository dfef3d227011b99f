"""The autoscaler's decision for one HPA: conditions, status and events as kube writes them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubelite.client.clock import FakeClock
from kubelite.controllers.podautoscaler.horizontal import decide, finish, scale_failure
from kubelite.controllers.podautoscaler.scaling import History

CLOCK = FakeClock()
NOW = datetime.fromtimestamp(CLOCK.now(), UTC)
UP = "cpu resource utilization (percentage of request) above target"
STAMP = NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
AGO = (NOW - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


CURRENT = {"averageValue": "160m", "averageUtilization": 160}


def _hpa(metrics: list | None = None, **spec: object) -> dict:
    return {
        "metadata": {"name": "web", "namespace": "default", "generation": 1},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, **spec,
                 **({"metrics": metrics} if metrics is not None else {})},
    }  # fmt: skip


def _scale(replicas: int, selector: str = "app=web") -> dict:
    return {"spec": {"replicas": replicas}, "status": {"replicas": replicas, "selector": selector}}


def _pod(name: str) -> dict:
    return {
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {
            "phase": "Running",
            "startTime": AGO,
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": AGO}],
        },
    }


def _metrics(name: str, cpu: str) -> dict:
    return {
        "metadata": {"name": name},
        "timestamp": STAMP,
        "window": "1s",
        "containers": [{"name": "app", "usage": {"cpu": cpu}}],
    }


def test_default_metric_scales_up_and_reports() -> None:
    hpa = _hpa()
    decision = decide(hpa, _scale(1), [_pod("a")], [_metrics("a", "160m")], History(), NOW)
    # no metrics: v2's default, 80% of CPU request: ceil(160 / 80) = 2
    assert (decision.desired, decision.rescale, decision.reason) == (
        2,
        True,
        "cpu resource utilization (percentage of request) above target",
    )
    status, events = finish(hpa, decision, None, NOW)
    assert events == [
        (
            "Normal",
            "SuccessfulRescale",
            f"New size: 2; reason: {UP}",
        )
    ]
    assert status == {
        "observedGeneration": 1,
        "lastScaleTime": STAMP,
        "currentReplicas": 1,
        "desiredReplicas": 2,
        "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": CURRENT}}],
        "conditions": [
            {"type": "AbleToScale", "status": "True", "lastTransitionTime": STAMP, "reason": "SucceededRescale",
             "message": "the HPA controller was able to update the target scale to 2"},
            {"type": "ScalingActive", "status": "True", "lastTransitionTime": STAMP, "reason": "ValidMetricFound",
             "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization "
                        "(percentage of request)"},
            {"type": "ScalingLimited", "status": "False", "lastTransitionTime": STAMP, "reason": "DesiredWithinRange",
             "message": "the desired count is within the acceptable range"},
        ],
    }  # fmt: skip


def test_failed_rescale() -> None:
    hpa = _hpa()
    decision = decide(hpa, _scale(1), [_pod("a")], [_metrics("a", "160m")], History(), NOW)
    status, events = finish(hpa, decision, "the server is down", NOW)
    assert events == [
        (
            "Warning",
            "FailedRescale",
            "New size: 2; reason: cpu resource utilization (percentage of request) above target; "
            "error: the server is down",
        )
    ]
    assert status["conditions"][0]["reason"] == "FailedUpdateScale"
    assert (
        status["conditions"][0]["message"]
        == "the HPA controller was unable to update the target scale: the server is down"
    )
    assert "lastScaleTime" not in status


def test_no_metrics_fails_the_sync() -> None:
    hpa = _hpa()
    decision = decide(hpa, _scale(2), [_pod("a"), _pod("b")], [], History(), NOW)
    detail = (
        "failed to get cpu utilization: unable to get metrics for resource cpu: "
        "no metrics returned from resource metrics API"
    )
    assert (
        decision.error
        == f"invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {detail}"
    )
    status, events = finish(hpa, decision, None, NOW)
    assert events == [
        ("Warning", "FailedGetResourceMetric", detail),
        ("Warning", "FailedComputeMetricsReplicas", decision.error),
    ]
    assert (status["currentReplicas"], status["desiredReplicas"], status["currentMetrics"]) == (2, 0, [{"type": ""}])
    active = status["conditions"][1]
    assert (active["type"], active["status"], active["reason"], active["message"]) == (
        "ScalingActive",
        "False",
        "FailedGetResourceMetric",
        f"the HPA was unable to compute the replica count: {detail}",
    )


def test_zero_replicas_disables_scaling_and_limits_apply_first() -> None:
    hpa = _hpa()
    disabled = decide(hpa, _scale(0), [], [], History(), NOW)
    assert (disabled.desired, disabled.rescale) == (0, False)
    assert disabled.conditions[-1] == (
        "ScalingActive",
        "False",
        "ScalingDisabled",
        "scaling is disabled since the replica count of the target is zero",
    )
    above = decide(hpa, _scale(7), [], [], History(), NOW)
    assert (above.desired, above.rescale, above.reason) == (
        5,
        True,
        "Current number of replicas above Spec.MaxReplicas",
    )
    below = decide(_hpa(minReplicas=3), _scale(2), [], [], History(), NOW)
    assert (below.desired, below.reason) == (3, "Current number of replicas below Spec.MinReplicas")


def test_missing_selector_and_scale_failure() -> None:
    decision = decide(_hpa(), _scale(1, selector=""), [], [], History(), NOW)
    assert decision.events == [("Warning", "SelectorRequired", "selector is required")]
    assert decision.conditions[-1] == (
        "ScalingActive",
        "False",
        "InvalidSelector",
        "the HPA target's scale is missing a selector",
    )
    old = {**_hpa(), "status": {"currentReplicas": 3, "desiredReplicas": 3}}
    status, events = finish(old, scale_failure('deployments.apps "web" not found'), None, NOW)
    assert events == [("Warning", "FailedGetScale", 'deployments.apps "web" not found')]
    assert (status["currentReplicas"], status["desiredReplicas"]) == (3, 3)
    assert status["conditions"][0]["message"] == (
        'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found'
    )


def test_a_condition_keeps_its_transition_time_while_its_status_holds() -> None:
    earlier = "2020-01-01T00:00:00Z"
    condition = {"type": "AbleToScale", "status": "True", "lastTransitionTime": earlier, "reason": "x", "message": "y"}
    hpa = {**_hpa(), "status": {"conditions": [condition]}}
    decision = decide(hpa, _scale(1), [_pod("a")], [_metrics("a", "80m")], History(), NOW)
    status, _ = finish(hpa, decision, None, NOW)
    assert status["conditions"][0] == {
        "type": "AbleToScale",
        "status": "True",
        "lastTransitionTime": earlier,
        "reason": "ReadyForNewScale",
        "message": "recommended size matches current size",
    }
