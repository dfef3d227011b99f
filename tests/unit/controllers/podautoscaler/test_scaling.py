"""Stabilization and rate limits of the autoscaler's decisions, on a FakeClock's time."""

from __future__ import annotations

from datetime import UTC, datetime

from kubelite.client.clock import FakeClock
from kubelite.controllers.podautoscaler.scaling import History, normalize


def _now(clock: FakeClock) -> datetime:
    return datetime.fromtimestamp(clock.now(), UTC)


def test_scale_down_waits_for_the_stabilization_window() -> None:
    clock, history = FakeClock(), History()
    history.record_initial(4, _now(clock))
    kept = normalize(history, behavior=None, current=4, desired=1, min_replicas=1, max_replicas=10, now=_now(clock))
    assert (kept.replicas, kept.able[0], kept.limited) == (
        4,
        "ScaleDownStabilized",
        (False, "DesiredWithinRange", "the desired count is within the acceptable range"),
    )
    clock.step(299)
    assert (
        normalize(
            history, behavior=None, current=4, desired=1, min_replicas=1, max_replicas=10, now=_now(clock)
        ).replicas
        == 4
    )
    clock.step(2)
    done = normalize(history, behavior=None, current=4, desired=1, min_replicas=1, max_replicas=10, now=_now(clock))
    assert (done.replicas, done.able[0]) == (1, "ReadyForNewScale")


def test_scale_up_is_at_most_double_or_four_without_behavior() -> None:
    clock, history = FakeClock(), History()
    up = normalize(history, behavior=None, current=3, desired=20, min_replicas=1, max_replicas=10, now=_now(clock))
    assert (up.replicas, up.limited) == (
        6,
        (True, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"),
    )
    capped = normalize(
        History(), behavior=None, current=6, desired=20, min_replicas=1, max_replicas=10, now=_now(clock)
    )
    assert (capped.replicas, capped.limited[1]) == (10, "TooManyReplicas")
    floor = normalize(History(), behavior=None, current=3, desired=0, min_replicas=2, max_replicas=10, now=_now(clock))
    assert (floor.replicas, floor.limited[1]) == (2, "TooFewReplicas")


def test_behavior_policies_limit_each_period() -> None:
    clock, history = FakeClock(), History()
    behavior = {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}
    first = normalize(
        history, behavior=behavior, current=1, desired=5, min_replicas=1, max_replicas=10, now=_now(clock)
    )
    assert (first.replicas, first.limited[1]) == (2, "ScaleUpLimit")
    history.store_scale_event(behavior, 1, 2, _now(clock))
    clock.step(30)
    # one pod added within the last 60 s: the period started at 1, so 2 is all it allows
    second = normalize(
        history, behavior=behavior, current=2, desired=5, min_replicas=1, max_replicas=10, now=_now(clock)
    )
    assert second.replicas == 2
    clock.step(31)
    assert (
        normalize(
            history, behavior=behavior, current=2, desired=5, min_replicas=1, max_replicas=10, now=_now(clock)
        ).replicas
        == 3
    )


def test_behavior_scale_down_window_and_percent() -> None:
    clock, history = FakeClock(), History()
    behavior = {
        "scaleDown": {
            "stabilizationWindowSeconds": 0,
            "policies": [{"type": "Percent", "value": 50, "periodSeconds": 15}],
        }
    }
    down = normalize(
        history, behavior=behavior, current=10, desired=1, min_replicas=1, max_replicas=10, now=_now(clock)
    )
    assert (down.replicas, down.limited) == (
        5,
        (True, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"),
    )


def test_scale_up_stabilization_window() -> None:
    clock, history = FakeClock(), History()
    behavior = {"scaleUp": {"stabilizationWindowSeconds": 60}}
    history.record_initial(2, _now(clock))
    clock.step(1)
    held = normalize(history, behavior=behavior, current=2, desired=4, min_replicas=1, max_replicas=10, now=_now(clock))
    assert (held.replicas, held.able[0]) == (2, "ScaleUpStabilized")
    clock.step(61)
    assert (
        normalize(
            history, behavior=behavior, current=2, desired=4, min_replicas=1, max_replicas=10, now=_now(clock)
        ).replicas
        == 4
    )
