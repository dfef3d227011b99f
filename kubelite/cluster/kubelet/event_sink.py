"""Writes a kubelet's Events (the ready-made core/v1 Events of `events`), folding repeats as client-go does.

The kubelet records through client-go's event broadcaster: `Eventf` never blocks the caller (a bounded
buffer, dropped with a log line when full) and a background writer creates each Event. Its correlator
folds an Event identical to one seen in the last ten minutes (same source, object, field path, type, reason
and message) into that one: a patch of `count` and `lastTimestamp`, which `kubectl describe` shows as
`(x4 over 2m)`; if that Event has expired meanwhile, a new one is created. The memory of recent Events is a
small LRU, so a kubelet of thousands of pods stays small.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass

from kubelite.apimachinery.meta import Obj
from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.errors import ClientError, NotFound

log = logging.getLogger(__name__)

EVENTS = ("", "v1", "events")
AGGREGATION_WINDOW = 600.0
BUFFER = 1000
MAX_REMEMBERED = 1024


@dataclass
class _Seen:
    name: str
    namespace: str
    count: int
    last: str
    last_seconds: float


def _key(event: Obj) -> tuple[str, ...]:
    involved = event.get("involvedObject") or {}
    source = event.get("source") or {}
    return (
        source.get("component", ""), source.get("host", ""), involved.get("kind", ""),
        involved.get("namespace", ""), involved.get("name", ""), involved.get("uid", ""),
        involved.get("apiVersion", ""), involved.get("fieldPath", ""), event.get("type", ""),
        event.get("reason", ""), event.get("message", ""),
    )


class EventSink:
    def __init__(self, client: DynamicClient, *, name: str = "kubelet") -> None:
        self.events: ResourceClient = client.resource(EVENTS)
        self.name = name
        self._pending: asyncio.Queue[tuple[Obj, float]] = asyncio.Queue(BUFFER)
        self._seen: OrderedDict[tuple[str, ...], _Seen] = OrderedDict()
        self._task: asyncio.Task[None] | None = None

    def post(self, event: Obj, at: float) -> None:
        """Queue `event` (which happened at `at`, epoch seconds) for writing; returns at once."""
        try:
            self._pending.put_nowait((event, at))
        except asyncio.QueueFull:
            log.warning("%s: event buffer full, dropping %s event %s: %s", self.name, event.get("type"),
                        event.get("reason"), event.get("message"))
            return
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"events of {self.name}")

    async def flush(self) -> None:
        """Wait until everything posted so far is written (or failed to be)."""
        await self._pending.join()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        # the writer ends when the buffer is empty, so an idle kubelet holds no task
        while not self._pending.empty():
            event, at = self._pending.get_nowait()
            try:
                await self._write(event, at)
            except asyncio.CancelledError:
                raise
            except ClientError as exc:
                log.warning("%s: could not write event %s: %s", self.name, event.get("reason"), exc)
            except Exception:  # a writer that dies would silence the node's events for good
                log.exception("%s: writing event %s failed", self.name, event.get("reason"))
            finally:
                self._pending.task_done()

    async def _write(self, event: Obj, at: float) -> None:
        key = _key(event)
        seen = self._seen.get(key)
        stamp = str(event.get("lastTimestamp") or event.get("firstTimestamp") or "")
        if seen is not None and at - seen.last_seconds <= AGGREGATION_WINDOW:
            seen.count += 1
            seen.last, seen.last_seconds = stamp, at
            self._seen.move_to_end(key)
            try:
                await self.events.namespace(seen.namespace).patch(
                    seen.name, {"count": seen.count, "lastTimestamp": stamp}, patch_type="strategic"
                )
                return
            except NotFound:
                pass  # expired on the server: start over
        metadata = event.get("metadata") or {}
        namespace = metadata.get("namespace") or "default"
        await self.events.namespace(namespace).create(event)
        self._seen[key] = _Seen(metadata.get("name", ""), namespace, 1, stamp, at)
        self._seen.move_to_end(key)
        while len(self._seen) > MAX_REMEMBERED:
            self._seen.popitem(last=False)
