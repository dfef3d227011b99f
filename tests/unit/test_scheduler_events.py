"""kube-scheduler's events.k8s.io/v1 events: the first of a kind is created, repeats within six minutes become
its series, later ones start over; the note is not part of what makes two events the same."""

from __future__ import annotations

from datetime import UTC, datetime

from kubelite.cluster.scheduler.binding import failed_scheduling_event, scheduled_event
from kubelite.cluster.scheduler.events import FINISH_SECONDS, EventSeries, micro_time
from kubelite.cluster.scheduler.testing import make_pod

T0 = 1_700_000_000.0


def failed(note: str, at: float = T0) -> dict[str, object]:
    pod = make_pod("web", namespace="team")
    pod["metadata"]["resourceVersion"] = "7"
    return failed_scheduling_event(pod, note, now=datetime.fromtimestamp(at, UTC), instance="default-scheduler-h")


def test_a_first_event_is_created_as_built() -> None:
    series = EventSeries()
    event = failed("0/1 nodes are available: 1 Insufficient cpu.")
    write = series.next_write(event, T0)
    assert (write.verb, write.namespace, write.name, write.body) == ("create", "team", event["metadata"]["name"],
                                                                     event)  # fmt: skip
    assert write.name.startswith("web.")


def test_repeats_become_the_first_events_series() -> None:
    series = EventSeries()
    first = series.next_write(failed("first"), T0)
    second = series.next_write(failed("second", T0 + 5), T0 + 5)
    third = series.next_write(failed("third", T0 + 9), T0 + 9)
    assert (second.verb, second.name, second.body) == (
        "patch", first.name, {"series": {"count": 2, "lastObservedTime": micro_time(T0 + 5)}})
    assert third.body == {"series": {"count": 3, "lastObservedTime": micro_time(T0 + 9)}}
    assert micro_time(T0 + 9) == "2023-11-14T22:13:29.000000Z"


def test_a_repeat_after_the_series_ended_is_a_new_event() -> None:
    series = EventSeries()
    series.next_write(failed("x"), T0)
    later = T0 + FINISH_SECONDS + 1
    again = series.next_write(failed("x", later), later)
    assert again.verb == "create"
    assert len(series) == 1


def test_events_about_another_version_of_the_pod_are_not_the_same() -> None:
    series = EventSeries()
    series.next_write(failed("x"), T0)
    pod = make_pod("web", namespace="team")
    pod["metadata"]["resourceVersion"] = "8"
    other = failed_scheduling_event(pod, "x", now=datetime.fromtimestamp(T0, UTC), instance="default-scheduler-h")
    assert series.next_write(other, T0 + 1).verb == "create"
    bound = scheduled_event(pod, "n", now=datetime.fromtimestamp(T0, UTC), instance="default-scheduler-h")
    assert series.next_write(bound, T0 + 1).verb == "create"


def test_a_series_whose_event_is_gone_is_created_again_with_its_count() -> None:
    series = EventSeries()
    first = series.next_write(failed("x"), T0)
    patch = series.next_write(failed("x", T0 + 1), T0 + 1)
    recreated = series.recreate(patch)
    assert (recreated.verb, recreated.name) == ("create", first.name)
    assert recreated.body == {**first.body, "series": {"count": 2, "lastObservedTime": micro_time(T0 + 1)}}
