"""The simulation's annotations, the container restart replay, and the identifiers and texts it uses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kubelite.cluster.kubelet import container_runs, events, identity, simulation

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _pod(annotations: dict[str, str] | None = None, owners: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": "p", "annotations": annotations or {}, "ownerReferences": owners or []}}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1s", 1.0), ("1.5s", 1.5), ("500ms", 0.5), ("2m", 120.0), ("1m30s", 90.0), ("1h", 3600.0), ("3", 3.0),
     ("0", 0.0), ("0.25", 0.25)],
)
def test_durations(text: str, seconds: float) -> None:
    assert simulation.parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "soon", "1x", "-1", "s", "1s soon"])
def test_bad_durations(text: str) -> None:
    assert simulation.parse_duration(text) is None


def test_defaults_run_forever() -> None:
    assert simulation.behaviour_of(_pod()) == simulation.ContainerBehaviour()


def test_job_pods_run_one_second() -> None:
    job = [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True}]
    assert simulation.behaviour_of(_pod(owners=job)).run_time == timedelta(seconds=1)
    not_controller = [dict(job[0], controller=False)]
    assert simulation.behaviour_of(_pod(owners=not_controller)).run_time is None
    explicit = simulation.behaviour_of(_pod({"sim.kubelite.io/run-time": "5s"}, owners=job))
    assert explicit.run_time == timedelta(seconds=5)


def test_each_annotation() -> None:
    behaviour = simulation.behaviour_of(_pod({
        "sim.kubelite.io/run-time": "10s",
        "sim.kubelite.io/exit-code": "42",
        "sim.kubelite.io/ready-after": "2s",
        "sim.kubelite.io/readiness-fail": "true",
    }))
    assert behaviour == simulation.ContainerBehaviour(
        run_time=timedelta(seconds=10), exit_code=42, ready_after=timedelta(seconds=2), never_ready=True,
    )


def test_crash_loop_defaults_and_overrides() -> None:
    assert simulation.behaviour_of(_pod({"sim.kubelite.io/crash-loop": "true"})) == simulation.ContainerBehaviour(
        run_time=timedelta(seconds=1), exit_code=1,
    )
    custom = simulation.behaviour_of(_pod({
        "sim.kubelite.io/crash-loop": "true", "sim.kubelite.io/run-time": "3s", "sim.kubelite.io/exit-code": "2",
    }))
    assert (custom.run_time, custom.exit_code) == (timedelta(seconds=3), 2)
    assert simulation.behaviour_of(_pod({"sim.kubelite.io/crash-loop": "false"})).run_time is None


def test_unparsable_annotations_are_ignored() -> None:
    behaviour = simulation.behaviour_of(_pod({
        "sim.kubelite.io/run-time": "later", "sim.kubelite.io/exit-code": "300",
        "sim.kubelite.io/ready-after": "-5",
    }))
    assert behaviour == simulation.ContainerBehaviour()


def _play(policy: str, run: float | None, code: int, now: float, stop: float | None = None) -> container_runs.Timeline:
    return container_runs.play(
        first_start=T0, run_time=None if run is None else timedelta(seconds=run), exit_code=code,
        restart_policy=policy, now=T0 + timedelta(seconds=now),
        stop_at=None if stop is None else T0 + timedelta(seconds=stop),
    )


def _starts(timeline: container_runs.Timeline) -> list[float]:
    return [(attempt.started_at - T0).total_seconds() for attempt in timeline.attempts]


def test_backoff_doubles_to_five_minutes() -> None:
    timeline = _play("Always", 1, 1, 2000)
    assert _starts(timeline)[:9] == [0, 1, 12, 33, 74, 155, 316, 617, 918]
    assert [delay.total_seconds() for _, delay in timeline.backoffs][:8] == [10, 20, 40, 80, 160, 300, 300, 300]


def test_backoff_expires_after_a_long_run() -> None:
    # a run longer than twice the cap finds the back-off expired: restarted at once, and the next wait is 10 s
    timeline = _play("Always", 601, 1, 1900)
    assert _starts(timeline) == [0, 601, 1202, 1803]
    assert timeline.backoffs == []


def test_restart_policies() -> None:
    assert _play("Never", 1, 0, 5).done
    assert _play("OnFailure", 1, 0, 5).done
    assert not _play("OnFailure", 1, 1, 5).done
    # Always restarts a clean exit too, behind the same back-off
    always = _play("Always", 1, 0, 5)
    assert _starts(always) == [0, 1]
    assert always.restart_at == T0 + timedelta(seconds=12)


def test_kill_ends_a_run_and_prevents_restarts() -> None:
    killed = _play("Always", None, 0, 100, stop=30)
    assert killed.done and killed.current == container_runs.Attempt(
        0, T0, T0 + timedelta(seconds=30), 0, killed=True
    )
    in_backoff = _play("Always", 1, 1, 100, stop=5)
    assert in_backoff.done and in_backoff.restart_at is None and _starts(in_backoff) == [0, 1]
    assert _play("Always", None, 0, 10, stop=20).next_change == T0 + timedelta(seconds=20)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (0.25, "250ms"), (1, "1s"), (10, "10s"), (80, "1m20s"), (160, "2m40s"), (300, "5m0s"),
     (1.5, "1.5s"), (3725, "1h2m5s")],
)
def test_go_durations(seconds: float, text: str) -> None:
    assert events.go_duration(timedelta(seconds=seconds)) == text


@pytest.mark.parametrize(
    ("image", "reference"),
    [
        ("nginx", "docker.io/library/nginx:latest"),
        ("nginx:1.27", "docker.io/library/nginx:1.27"),
        ("bitnami/redis", "docker.io/bitnami/redis:latest"),
        ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"),
        ("localhost:5000/app", "localhost:5000/app:latest"),
        ("localhost/app", "localhost/app:latest"),
        ("nginx@sha256:" + "a" * 64, "docker.io/library/nginx@sha256:" + "a" * 64),
    ],
)
def test_image_references(image: str, reference: str) -> None:
    assert identity.normalize_image(image) == reference


def test_image_ids_are_stable_digests() -> None:
    assert identity.image_id("nginx") == identity.image_id("docker.io/library/nginx:latest")
    assert identity.image_id("nginx:1.27").startswith("docker.io/library/nginx@sha256:")
    assert identity.image_id("nginx:1.27") != identity.image_id("nginx:1.26")
    pinned = "nginx@sha256:" + "b" * 64
    assert identity.image_id(pinned) == "docker.io/library/nginx@sha256:" + "b" * 64
    assert identity.image_id("localhost:5000/app").startswith("localhost:5000/app@sha256:")
    assert identity.container_id("u", "c", 0) != identity.container_id("u", "c", 1)
