"""kube's replica calculation for Resource metrics, on fixed pods and samples (times from a FakeClock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kubelite.client.clock import FakeClock
from kubelite.controllers.podautoscaler.replica_calculator import (
    CalculationError,
    PodSample,
    average_value_replicas,
    group_pods,
    samples_from_metrics,
    utilization_replicas,
)

CLOCK = FakeClock()
NOW = datetime.fromtimestamp(CLOCK.now(), UTC)
LONG_AGO = NOW - timedelta(hours=1)


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def pod(name: str, *, cpu: str = "100m", phase: str = "Running", ready: str = "True", started: datetime = LONG_AGO,
        transition: datetime = LONG_AGO, deleting: bool = False) -> dict:  # fmt: skip
    meta: dict = {"name": name, "namespace": "default"}
    if deleting:
        meta["deletionTimestamp"] = _ts(NOW)
    return {
        "metadata": meta,
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {
            "phase": phase,
            "startTime": _ts(started),
            "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": _ts(transition)}],
        },
    }


def sample(milli: int, at: datetime = NOW) -> PodSample:
    return PodSample(at, timedelta(seconds=1), milli)


def test_scale_up_in_proportion_to_utilization() -> None:
    pods = [pod("a"), pod("b")]
    found = utilization_replicas(2, 50, "cpu", pods, {"a": sample(80), "b": sample(80)}, NOW)
    # 160% of requests over 2 pods at a 50% target: ceil(1.6 * 2) = 4
    assert (found.replicas, found.utilization, found.raw_average) == (4, 80, 80)


def test_within_tolerance_keeps_the_count() -> None:
    pods = [pod("a"), pod("b")]
    found = utilization_replicas(2, 50, "cpu", pods, {"a": sample(54), "b": sample(54)}, NOW)
    assert (found.replicas, found.utilization) == (2, 54)


def test_scale_down() -> None:
    pods = [pod(n) for n in "abcd"]
    found = utilization_replicas(4, 50, "cpu", pods, {n: sample(10) for n in "abcd"}, NOW)
    assert (found.replicas, found.utilization) == (1, 10)


def test_missing_pods_count_at_their_request_when_scaling_down() -> None:
    pods = [pod("a"), pod("b"), pod("c")]
    # a alone is at 10%, but b and c have no sample: they count at 100%, (10+100+100)/3 = 70% > 50%: no move
    found = utilization_replicas(3, 50, "cpu", pods, {"a": sample(10)}, NOW)
    assert found.replicas == 3


def test_unready_pods_count_at_zero_when_scaling_up() -> None:
    starting = NOW - timedelta(seconds=10)
    pods = [pod("a"), pod("b", ready="False", started=starting, transition=starting)]
    samples = {"a": sample(200), "b": sample(200)}
    assert group_pods(pods, samples, "cpu", NOW) == (1, {"b"}, set(), set())
    # a at 200% of its request; b counts at 0: (200+0)/2 = 100% of a 50% target -> ceil(2 * 2) = 4
    assert utilization_replicas(2, 50, "cpu", pods, samples, NOW).replicas == 4


def test_a_sample_older_than_one_window_past_readiness_is_unready() -> None:
    just_ready = NOW
    pods = [pod("a", started=NOW - timedelta(seconds=5), transition=just_ready)]
    with pytest.raises(
        CalculationError, match=r"^did not receive metrics for targeted pods \(pods might be unready\)$"
    ):
        utilization_replicas(1, 50, "cpu", pods, {"a": sample(100, at=NOW)}, NOW)


def test_deleted_and_failed_pods_are_ignored() -> None:
    pods = [pod("a"), pod("b", deleting=True), pod("c", phase="Failed"), pod("d", phase="Pending")]
    assert group_pods(pods, {"a": sample(1), "b": sample(1)}, "cpu", NOW) == (1, {"d"}, set(), {"b", "c"})


def test_errors_say_what_kube_says() -> None:
    with pytest.raises(
        CalculationError,
        match=r"^unable to get metrics for resource cpu: no metrics returned from resource metrics API$",
    ):
        utilization_replicas(1, 50, "cpu", [pod("a")], {}, NOW)
    with pytest.raises(CalculationError, match=r"^no pods returned by selector while calculating replica count$"):
        utilization_replicas(1, 50, "cpu", [], {"a": sample(1)}, NOW)
    bare = pod("a")
    del bare["spec"]["containers"][0]["resources"]
    with pytest.raises(CalculationError, match=r"^missing request for cpu in container app of Pod a$"):
        utilization_replicas(1, 50, "cpu", [bare], {"a": sample(1)}, NOW)


def test_average_value() -> None:
    pods = [pod("a"), pod("b")]
    found = average_value_replicas(2, 100, "cpu", pods, {"a": sample(300), "b": sample(100)}, NOW)
    assert (found.replicas, found.utilization, found.raw_average) == (4, None, 200)


def test_samples_from_pod_metrics_sum_containers() -> None:
    items = [
        {
            "metadata": {"name": "a"},
            "timestamp": _ts(NOW),
            "window": "1s",
            "containers": [{"name": "x", "usage": {"cpu": "250000000n"}}, {"name": "y", "usage": {"cpu": "50m"}}],
        },
        {"metadata": {"name": "b"}, "timestamp": _ts(NOW), "window": "15s", "containers": [{"name": "x", "usage": {}}]},
    ]
    assert samples_from_metrics(items, "cpu") == {"a": PodSample(NOW.replace(microsecond=0), timedelta(seconds=1), 300)}
