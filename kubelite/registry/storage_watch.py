"""A client's watch over a storage without a watch cache: what the cacher's `watch_stream` does, from storage.

A watch that starts from the current state lists it first (a consistent read) and sends it as ADDED events,
then follows storage's watch from the list's revision; a watch from a resourceVersion follows storage's
watch from there. A selector is applied as kube's watchers apply it (entering is ADDED, leaving is DELETED).
An error storage raises mid-stream (a compaction that overtook a replay) is sent as an ERROR event, as kube
sends one, and ends the watch. Bookmarks are not sent (a client may not rely on them); there is no direct
path to the client's socket, so `attach` only remembers the connection to abort it when the watch is cut off.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.registry.storage_errors import interpret_watch_error
from kubelite.storage import errors as storage_errors
from kubelite.storage.interface import (
    EventType,
    ListOptions,
    Storage,
    StreamWriter,
    Watcher,
    WatchEvent,
    WatchRequest,
)
from kubelite.storage.selection import selector_view


class StorageWatch:
    """A `StreamWatcher` over storage's `Watcher`, with the initial state in front."""

    def __init__(self, watcher: Watcher, request: WatchRequest, initial: list[WatchEvent]) -> None:
        self._watcher = watcher
        self._request = request
        self._initial = initial
        self._writer: StreamWriter | None = None
        #: one iteration for the watch's life, however many loops read it
        self._iteration = self._events()

    @classmethod
    async def start(cls, storage: Storage, request: WatchRequest) -> StorageWatch:
        rv = request.resource_version
        initial_events = request.send_initial_events if request.send_initial_events is not None else not rv
        initial: list[WatchEvent] = []
        start = rv or 0
        if initial_events:
            listed = await storage.get_list(request.prefix, ListOptions(predicate=request.predicate))
            keys = listed.keys or [_key_of(request.prefix, obj) for obj in listed.items]
            initial = [
                WatchEvent(EventType.ADDED, key, obj, listed.revision)
                for key, obj in zip(keys, listed.items, strict=True)
            ]
            if request.send_initial_events and request.allow_bookmarks:
                initial.append(WatchEvent(EventType.BOOKMARK, "", {"initialEventsEnd": True}, listed.revision))
            start = listed.revision
        elif not rv:
            start = await storage.current_revision()
        return cls(storage.watch(request.prefix, start), request, initial)

    def owes(self, key: str) -> bool:
        return self._watcher.owes(key)

    def attach(self, writer: StreamWriter) -> None:
        self._writer = writer

    def request_bookmark(self) -> None:
        """No bookmarks without a watch cache."""

    def stop(self) -> None:
        self._watcher.stop()

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._iteration

    async def _events(self) -> AsyncIterator[WatchEvent]:
        initial, self._initial = self._initial, []
        for event in initial:
            yield event
        predicate = self._request.predicate
        try:
            async for event in self._watcher:
                if event.type is EventType.BOOKMARK:
                    continue
                seen = selector_view(event, predicate) if predicate is not None else event
                if seen is not None:
                    yield seen
        except storage_errors.StorageError as exc:
            status = interpret_watch_error(exc)
            if not isinstance(status, StatusError):
                raise
            yield WatchEvent(EventType.ERROR, "", status.to_status(), 0)


def _key_of(prefix: str, obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace")
    return f"{prefix}{namespace}/{meta['name']}" if namespace else f"{prefix}{meta['name']}"
