"""The event recorder's aggregation on fake time, against a stub events client."""

from __future__ import annotations

from typing import Any

from kubelite.client.clock import FakeClock
from kubelite.client.errors import AlreadyExists, NotFound
from kubelite.client.record import EventRecorder
from tests.unit.client.support import cm, run


class StubEvents:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.missing: set[str] = set()
        #: names the server has: a create of one fails with AlreadyExists (the default stub accepts any)
        self.existing: set[str] | None = None

    def namespace(self, namespace: str | None) -> StubEvents:
        return self

    async def create(self, body: dict[str, Any], **_: Any) -> dict[str, Any]:
        if self.existing is not None:
            if body["metadata"]["name"] in self.existing:
                raise AlreadyExists({"reason": "AlreadyExists", "code": 409})
            self.existing.add(body["metadata"]["name"])
        self.calls.append(("create", body["metadata"]["name"], (body["count"], body["lastTimestamp"])))
        return body

    async def patch(self, name: str, patch: Any, **_: Any) -> dict[str, Any]:
        if name in self.missing:
            raise NotFound({"reason": "NotFound", "code": 404})
        self.calls.append(("patch", name, (patch["count"], patch["lastTimestamp"])))
        return {}


class StubClient:
    def __init__(self) -> None:
        self.events = StubEvents()

    def resource(self, gvr: Any) -> StubEvents:
        return self.events


def test_repeats_within_the_window_patch_the_count() -> None:
    clock = FakeClock(start=0.0, wall_offset=1_700_000_000.0)
    client = StubClient()

    async def body() -> None:
        recorder = EventRecorder(client, component="c", aggregation_window=600, clock=clock)  # type: ignore[arg-type]
        subject = cm("a")
        recorder.event(subject, "Warning", "Bad", "m")
        await recorder.flush()
        clock.step(60)
        recorder.event(subject, "Warning", "Bad", "m")
        await recorder.flush()
        clock.step(601)  # past the window: a new Event
        recorder.event(subject, "Warning", "Bad", "m")
        await recorder.flush()
        client.events.missing.add(client.events.calls[-1][1])  # expired on the server
        recorder.event(subject, "Warning", "Bad", "m")
        await recorder.flush()
        await recorder.close()

    run(body)
    first = f"a.{1_700_000_000 * 10**9:x}"
    third = f"a.{1_700_000_661 * 10**9:x}"
    assert client.events.calls == [
        ("create", first, (1, "2023-11-14T22:13:20Z")),
        ("patch", first, (2, "2023-11-14T22:14:20Z")),
        ("create", third, (1, "2023-11-14T22:24:21Z")),
        ("create", third, (1, "2023-11-14T22:24:21Z")),
    ]


def test_two_events_of_one_object_in_one_instant_get_names_of_their_own() -> None:
    clock = FakeClock(start=0.0, wall_offset=1_700_000_000.0)
    client = StubClient()
    client.events.existing = set()

    async def body() -> None:
        recorder = EventRecorder(client, component="c", clock=clock)  # type: ignore[arg-type]
        recorder.event(cm("a"), "Normal", "First", "m")
        recorder.event(cm("a"), "Normal", "Second", "m")
        await recorder.flush()
        await recorder.close()

    run(body)
    at = 1_700_000_000 * 10**9
    assert [name for _, name, _ in client.events.calls] == [f"a.{at:x}", f"a.{at + 1:x}"]
