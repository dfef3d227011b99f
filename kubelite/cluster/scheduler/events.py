"""events.k8s.io/v1 events, written as kube-scheduler's recorder (client-go tools/events) writes them.

kube-scheduler reports through the events.k8s.io API, not core/v1: an event carries `reportingController`,
`reportingInstance`, `action` and `note`, and repeats become a `series` rather than a `count`. Two events are the
same (isomorphic) when their action, reason, reporting controller, regarding and related objects match (the
note is not compared, as client-go's getKey leaves it out). The first is created; a repeat within six minutes of
the last one (client-go's finishTime) patches the first's `series` to {count: 2, lastObservedTime} and counts on
from there; a repeat later, or after the first was deleted on the server, is created anew.

`emit` never blocks nor fails the caller: events wait in bounded buffers (dropped with a log line when full)
that `run` writes with a few concurrent writers, as client-go writes each event on its own. The events of one
series always go to the same writer, so they are written in order.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubelite.client.clock import Clock
from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.errors import ClientError, NotFound

log = logging.getLogger(__name__)

EVENTS: Final = ("events.k8s.io", "v1", "events")
#: a series ends when it has not repeated for this long (client-go's finishTime)
FINISH_SECONDS: Final = 6 * 60.0
BUFFER: Final = 1000
WRITERS: Final = 4


def micro_time(seconds: float) -> str:
    """metav1.MicroTime's wire form for epoch seconds."""
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def isomorphic_key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two events one series (client-go's eventKey)."""
    return (event.get("action"), event.get("reason"), event.get("reportingController"),
            _frozen(event.get("regarding") or {}), _frozen(event.get("related") or {}))


@dataclass
class _Recorded:
    name: str
    namespace: str
    body: dict[str, Any]
    count: int
    last_observed: float


@dataclass(frozen=True)
class Write:
    """What `EventWriter` sends for one emitted event: a create, or a series patch of an earlier one."""

    verb: str  # "create" or "patch"
    namespace: str
    name: str
    body: dict[str, Any]


class EventSeries:
    """The pure part of the writer: which write an event needs, given the ones recorded before."""

    def __init__(self) -> None:
        self._recorded: dict[tuple[Any, ...], _Recorded] = {}
        self._last_sweep = 0.0

    def __len__(self) -> int:
        return len(self._recorded)

    def next_write(self, event: Mapping[str, Any], now: float) -> Write:
        self._sweep(now)
        key = isomorphic_key(event)
        seen = self._recorded.get(key)
        if seen is not None and now - seen.last_observed <= FINISH_SECONDS:
            seen.count += 1
            seen.last_observed = now
            series = {"count": seen.count, "lastObservedTime": micro_time(now)}
            return Write("patch", seen.namespace, seen.name, {"series": series})
        metadata = event.get("metadata") or {}
        namespace = str(metadata.get("namespace") or "default")
        body = dict(event)
        self._recorded[key] = _Recorded(str(metadata.get("name") or ""), namespace, body, 1, now)
        return Write("create", namespace, str(metadata.get("name") or ""), body)

    def recreate(self, write: Write) -> Write:
        """The event a series patch was for is gone from the server: create it again, series and all."""
        for seen in self._recorded.values():
            if seen.name == write.name and seen.namespace == write.namespace:
                body = {**seen.body, "series": write.body["series"]}
                body["metadata"] = {k: v for k, v in (seen.body.get("metadata") or {}).items()
                                    if k != "resourceVersion"}
                return Write("create", seen.namespace, seen.name, body)
        return Write("create", write.namespace, write.name, dict(write.body))

    def _sweep(self, now: float) -> None:
        """Forget the series that are over, at most once per finish period (client-go's finishSeries)."""
        if now - self._last_sweep < FINISH_SECONDS:
            return
        self._last_sweep = now
        for key in [k for k, seen in self._recorded.items() if now - seen.last_observed > FINISH_SECONDS]:
            del self._recorded[key]


class EventWriter:
    def __init__(self, client: DynamicClient, clock: Clock, *, buffer: int = BUFFER, writers: int = WRITERS) -> None:
        self.events: ResourceClient = client.resource(EVENTS)
        self.clock = clock
        self.series = EventSeries()
        self._pending: list[asyncio.Queue[tuple[dict[str, Any], float]]] = [
            asyncio.Queue(max(1, buffer // writers)) for _ in range(writers)]

    def emit(self, event: dict[str, Any]) -> None:
        pending = self._pending[hash(isomorphic_key(event)) % len(self._pending)]
        try:
            pending.put_nowait((event, self.clock.now()))
        except asyncio.QueueFull:
            log.warning("event buffer full, dropping %s event about %s: %s", event.get("reason"),
                        (event.get("regarding") or {}).get("name"), event.get("note"))

    def pending(self) -> list[dict[str, Any]]:
        """The events emitted and not yet written, taken out of the buffers (for tests)."""
        taken = []
        for pending in self._pending:
            while not pending.empty():
                taken.append(pending.get_nowait()[0])
                pending.task_done()
        return taken

    async def flush(self) -> None:
        """Wait until every event emitted so far has been written (or has failed to be)."""
        for pending in self._pending:
            await pending.join()

    async def run(self) -> None:
        await asyncio.gather(*(self._run(pending) for pending in self._pending))

    async def _run(self, pending: asyncio.Queue[tuple[dict[str, Any], float]]) -> None:
        while True:
            event, at = await pending.get()
            try:
                await self._write(self.series.next_write(event, at))
            except asyncio.CancelledError:
                raise
            except ClientError as exc:
                log.warning("could not write event %s about %s: %s", event.get("reason"),
                            (event.get("regarding") or {}).get("name"), exc)
            finally:
                pending.task_done()

    async def _write(self, write: Write) -> None:
        events = self.events.namespace(write.namespace)
        if write.verb == "patch":
            try:
                await events.patch(write.name, write.body, patch_type="strategic")
                return
            except NotFound:
                write = self.series.recreate(write)
        await events.create(write.body)
