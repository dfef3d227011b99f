"""An event recorder that writes core/v1 Events and folds repeats into one (client-go's `tools/record` with its
EventCorrelator's aggregation).

`event(obj, type, reason, message)` never blocks and never fails the caller: events go into a bounded buffer
(dropped, with a log line, when it is full) that a background task writes. The first occurrence of an event
creates an Event named `<object name>.<hex nanoseconds>` with count 1; the same event again (same source,
object, type, reason and message) within `aggregation_window` patches that Event's count and lastTimestamp
instead of creating another, which is what `kubectl describe` shows as "(x5 over 3m)". If the Event has expired
on the server meanwhile, a new one is created.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubelite.client.clock import Clock, RealClock
from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.errors import AlreadyExists, ClientError, NotFound

log = logging.getLogger(__name__)

EVENTS = ("", "v1", "events")
#: names tried for one new Event before it is given up
_NAME_ATTEMPTS = 16
NORMAL = "Normal"
WARNING = "Warning"


def _timestamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_reference(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The ObjectReference of an object (what an Event's involvedObject holds)."""
    metadata = obj.get("metadata") or {}
    reference = {
        "kind": obj.get("kind", ""),
        "namespace": metadata.get("namespace", ""),
        "name": metadata.get("name", ""),
        "uid": metadata.get("uid", ""),
        "apiVersion": obj.get("apiVersion", ""),
        "resourceVersion": metadata.get("resourceVersion", ""),
    }
    return {key: value for key, value in reference.items() if value}


@dataclass
class _Seen:
    name: str
    namespace: str
    count: int
    first: float
    last: float


class EventRecorder:
    def __init__(
        self,
        client: DynamicClient,
        *,
        component: str,
        host: str = "",
        aggregation_window: float = 600.0,
        buffer: int = 1000,
        clock: Clock | None = None,
    ) -> None:
        self.events: ResourceClient = client.resource(EVENTS)
        self.component = component
        self.host = host
        self.aggregation_window = aggregation_window
        self.clock = clock or RealClock()
        self._pending: asyncio.Queue[tuple[dict[str, Any], str, str, str, float]] = asyncio.Queue(buffer)
        #: recent events by aggregation key, least recently seen first (bounded, like client-go's LRU of 4096)
        self._seen: OrderedDict[tuple[str, ...], _Seen] = OrderedDict()
        self._max_seen = 4096
        self._task: asyncio.Task[None] | None = None

    def event(self, obj: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        """Record an event about `obj` (type Normal or Warning); returns at once."""
        if event_type not in (NORMAL, WARNING):
            raise ValueError(f"event type must be {NORMAL} or {WARNING}, not {event_type!r}")
        try:
            self._pending.put_nowait((object_reference(obj), event_type, reason, message, self.clock.now()))
        except asyncio.QueueFull:
            log.warning("event buffer full, dropping %s event %s: %s", event_type, reason, message)
            return
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"event recorder {self.component}")

    async def flush(self) -> None:
        """Wait until every event recorded so far has been written (or has failed to be)."""
        await self._pending.join()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        while True:
            item = await self._pending.get()
            try:
                await self._write(*item)
            except asyncio.CancelledError:
                raise
            except ClientError as exc:
                log.warning("could not write event %s about %s: %s", item[2], item[0].get("name"), exc)
            finally:
                self._pending.task_done()

    async def _write(
        self, reference: dict[str, Any], event_type: str, reason: str, message: str, at: float
    ) -> None:
        key = (self.component, self.host, reference.get("kind", ""), reference.get("namespace", ""),
               reference.get("name", ""), reference.get("uid", ""), reference.get("apiVersion", ""),
               event_type, reason, message)  # fmt: skip
        seen = self._seen.get(key)
        if seen is not None and at - seen.last <= self.aggregation_window:
            seen.count += 1
            seen.last = at
            self._seen.move_to_end(key)
            patch = {"count": seen.count, "lastTimestamp": _timestamp(at)}
            try:
                await self.events.namespace(seen.namespace).patch(seen.name, patch, patch_type="merge")
                return
            except NotFound:
                pass  # expired on the server: start over
        namespace = reference.get("namespace") or "default"
        name = f"{reference.get('name', 'unknown')}.{int(at * 1e9):x}"
        metadata = {"name": name, "namespace": namespace}
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": metadata,
            "involvedObject": reference,
            "reason": reason,
            "message": message,
            "type": event_type,
            "count": 1,
            "firstTimestamp": _timestamp(at),
            "lastTimestamp": _timestamp(at),
            "eventTime": None,
            "source": {"component": self.component, **({"host": self.host} if self.host else {})},
            "reportingComponent": self.component,
            "reportingInstance": self.host,
        }
        for _ in range(_NAME_ATTEMPTS):
            try:
                await self.events.namespace(namespace).create(body)
                break
            except AlreadyExists:
                # another event of the same instant (a clock that has not moved, or one too coarse): the next
                # nanosecond's name
                nanos = int(name.rsplit(".", 1)[1], 16) + 1
                name = f"{reference.get('name', 'unknown')}.{nanos:x}"
                metadata["name"] = name
        else:
            raise AlreadyExists({"message": f"no free name for an event about {reference.get('name')}", "code": 409})
        self._seen[key] = _Seen(name, namespace, 1, at, at)
        self._seen.move_to_end(key)
        while len(self._seen) > self._max_seen:
            self._seen.popitem(last=False)
