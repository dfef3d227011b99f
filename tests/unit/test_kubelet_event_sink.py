"""The kubelet's event writer: repeats within ten minutes fold into one Event's count; others are new Events."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from kubelite.client.errors import NotFound
from kubelite.cluster.kubelet import events
from kubelite.cluster.kubelet.event_sink import EventSink


class _Events:
    """Records what would reach the API; `expired` names Events the server no longer has."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.expired: set[str] = set()

    def namespace(self, namespace: str) -> _Events:
        return self

    async def create(self, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(("create", body["metadata"]["name"], body["count"]))
        return body

    async def patch(self, name: str, patch: dict[str, Any], **_: Any) -> dict[str, Any]:
        if name in self.expired:
            raise NotFound({"kind": "Status", "code": 404, "reason": "NotFound", "message": "gone"})
        self.calls.append(("patch", name, patch))
        return {}


class _Dynamic:
    def __init__(self, sink: _Events) -> None:
        self.sink = sink

    def resource(self, gvr: Any) -> _Events:
        return self.sink


POD = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"}}


def _back_off(second: int) -> dict[str, Any]:
    return events.pod_event(
        POD, node_name="n", reason="BackOff", message=events.back_off("app", POD), event_type=events.WARNING,
        when=datetime(2024, 1, 1, 0, 0, second, tzinfo=UTC), container_field_path="spec.containers{app}",
    )


def test_repeats_fold_into_a_count_and_others_are_new() -> None:
    recorded = _Events()

    async def scenario() -> None:
        sink = EventSink(_Dynamic(recorded))  # type: ignore[arg-type]
        sink.post(_back_off(1), 100.0)
        sink.post(_back_off(2), 110.0)
        sink.post(_back_off(3), 120.0)
        started = events.pod_event(POD, node_name="n", reason="Started", message="Started container app",
                                   when=datetime(2024, 1, 1, 0, 0, 3, tzinfo=UTC))
        sink.post(started, 120.0)
        # past the ten minutes: a new Event
        sink.post(_back_off(4), 800.0)
        await sink.flush()
        await sink.close()

    asyncio.run(scenario())
    first = _back_off(1)["metadata"]["name"]
    assert recorded.calls == [
        ("create", first, 1),
        ("patch", first, {"count": 2, "lastTimestamp": "2024-01-01T00:00:02Z"}),
        ("patch", first, {"count": 3, "lastTimestamp": "2024-01-01T00:00:03Z"}),
        ("create", events.pod_event(POD, node_name="n", reason="Started", message="Started container app",
                                    when=datetime(2024, 1, 1, 0, 0, 3, tzinfo=UTC))["metadata"]["name"], 1),
        ("create", _back_off(4)["metadata"]["name"], 1),
    ]


def test_an_expired_event_is_created_again() -> None:
    recorded = _Events()

    async def scenario() -> None:
        sink = EventSink(_Dynamic(recorded))  # type: ignore[arg-type]
        sink.post(_back_off(1), 100.0)
        await sink.flush()
        recorded.expired.add(_back_off(1)["metadata"]["name"])
        sink.post(_back_off(2), 110.0)
        await sink.flush()
        await sink.close()

    asyncio.run(scenario())
    assert recorded.calls == [("create", _back_off(1)["metadata"]["name"], 1),
                              ("create", _back_off(2)["metadata"]["name"], 1)]
