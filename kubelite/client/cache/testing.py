"""A fake API for reflectors and informers (client-go's `tools/cache/testing/fake_controller_source.go`), with
fault injection: an in-memory collection with resourceVersions, a bounded event history that can be compacted,
paginated lists, watches (with bookmarks and WatchList) that can be dropped, and queued failures.

It ships in the package, not in the tests, so that anyone building on the informers can test their handlers
against the same fake.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.keys import meta_namespace_key
from kubelite.client.cache.listwatch import ListOptions
from kubelite.client.errors import BadRequest, Expired
from kubelite.client.watch import (
    ADDED,
    BOOKMARK,
    DELETED,
    ERROR,
    INITIAL_EVENTS_END_ANNOTATION,
    MODIFIED,
    EventType,
    WatchEvent,
)


def expired_status(message: str = "too old resource version") -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Expired",
        "code": 410,
    }


class FakeWatch:
    """A watch fed by the fake; iteration ends when it is closed by either side."""

    _END = object()

    def __init__(self, options: ListOptions) -> None:
        self.options = options
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False

    def push(self, event: WatchEvent) -> None:
        if not self.closed:
            self._queue.put_nowait(event)

    def end(self) -> None:
        """The server side closes the stream (after what was pushed)."""
        if not self.closed:
            self._queue.put_nowait(self._END)

    async def close(self) -> None:
        self.closed = True
        self._queue.put_nowait(self._END)

    def __aiter__(self) -> FakeWatch:
        return self

    async def __anext__(self) -> WatchEvent:
        item = await self._queue.get()
        if item is self._END:
            self.closed = True
            raise StopAsyncIteration
        return item


@dataclass
class Call:
    verb: str
    options: ListOptions


class FakeListerWatcher:
    """An in-memory resource. Mutate it with add/modify/delete; break it with the fail_*/drop/compact methods."""

    def __init__(
        self,
        *,
        kind: str = "ConfigMap",
        api_version: str = "v1",
        supports_watch_list: bool = True,
        history: int = 1000,
    ) -> None:
        self.kind = kind
        self.api_version = api_version
        self.supports_watch_list = supports_watch_list
        self.history_limit = history
        self.revision = 1
        self.objects: dict[str, Obj] = {}
        #: (revision, event) newest last; events at or below `compacted` are gone
        self.history: list[tuple[int, WatchEvent]] = []
        self.compacted = 0
        self.watches: list[FakeWatch] = []
        self.calls: list[Call] = []
        self._list_failures: list[BaseException] = []
        self._watch_failures: list[BaseException] = []

    # -- the collection -------------------------------------------------------------------------------------

    def _record(self, event_type: EventType, obj: Obj) -> Obj:
        self.revision += 1
        stored = copy.deepcopy(obj)
        stored.setdefault("apiVersion", self.api_version)
        stored.setdefault("kind", self.kind)
        stored.setdefault("metadata", {})["resourceVersion"] = str(self.revision)
        event = WatchEvent(event_type, stored)
        self.history.append((self.revision, event))
        if len(self.history) > self.history_limit:
            dropped, _ = self.history.pop(0)
            self.compacted = max(self.compacted, dropped)
        for watch in list(self.watches):
            if watch.closed:
                self.watches.remove(watch)
            else:
                watch.push(event)
        return stored

    def add(self, obj: Obj) -> Obj:
        stored = self._record(ADDED, obj)
        self.objects[meta_namespace_key(stored)] = stored
        return stored

    def modify(self, obj: Obj) -> Obj:
        stored = self._record(MODIFIED, obj)
        self.objects[meta_namespace_key(stored)] = stored
        return stored

    def delete(self, obj: Obj) -> Obj:
        key = meta_namespace_key(obj)
        current = self.objects.pop(key)
        return self._record(DELETED, current)

    def compact(self) -> None:
        """Forget all history: a watch or exact list from any older resourceVersion gets 410 Expired."""
        self.compacted = self.revision
        self.history.clear()

    # -- faults ---------------------------------------------------------------------------------------------

    def fail_next_list(self, error: BaseException) -> None:
        self._list_failures.append(error)

    def fail_next_watch(self, error: BaseException) -> None:
        self._watch_failures.append(error)

    def drop_watches(self) -> None:
        """End every open watch stream, as a broken connection or a server restart would."""
        for watch in self.watches:
            watch.end()
        self.watches.clear()

    def send_bookmark(self) -> None:
        for watch in self.watches:
            if watch.options.allow_watch_bookmarks:
                watch.push(self._bookmark())

    def send_error(self, status: dict[str, Any]) -> None:
        """An ERROR event on every open watch (the server then closes them)."""
        for watch in self.watches:
            watch.push(WatchEvent(ERROR, status))
            watch.end()
        self.watches.clear()

    def _bookmark(self, *, initial_events_end: bool = False) -> WatchEvent:
        metadata: dict[str, Any] = {"resourceVersion": str(self.revision)}
        if initial_events_end:
            metadata["annotations"] = {INITIAL_EVENTS_END_ANNOTATION: "true"}
        return WatchEvent(BOOKMARK, {"apiVersion": self.api_version, "kind": self.kind, "metadata": metadata})

    # -- ListerWatcher --------------------------------------------------------------------------------------

    async def list(self, options: ListOptions) -> dict[str, Any]:
        self.calls.append(Call("list", options))
        await asyncio.sleep(0)
        if self._list_failures:
            raise self._list_failures.pop(0)
        rv = options.resource_version
        if options.continue_token:
            start = int(options.continue_token.split(":")[0])
            snapshot = int(options.continue_token.split(":")[1])
            if snapshot <= self.compacted:
                raise Expired(expired_status("The provided continue parameter is too old"))
        else:
            start = 0
            snapshot = self.revision
            if options.resource_version_match == "Exact" and rv and int(rv) <= self.compacted:
                raise Expired(expired_status())
        items = sorted(self.objects.values(), key=meta_namespace_key)
        page = items[start : start + options.limit] if options.limit else items[start:]
        metadata: dict[str, Any] = {"resourceVersion": str(snapshot)}
        if options.limit and start + options.limit < len(items):
            metadata["continue"] = f"{start + options.limit}:{snapshot}"
        # servers omit apiVersion and kind inside lists
        bare = [{k: v for k, v in obj.items() if k not in ("apiVersion", "kind")} for obj in page]
        return {
            "apiVersion": self.api_version,
            "kind": f"{self.kind}List",
            "metadata": metadata,
            "items": bare,
        }

    async def watch(self, options: ListOptions) -> FakeWatch:
        self.calls.append(Call("watch", options))
        await asyncio.sleep(0)
        if self._watch_failures:
            raise self._watch_failures.pop(0)
        if options.send_initial_events is not None and not self.supports_watch_list:
            raise BadRequest(
                {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "BadRequest", "code": 400,
                 "message": "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"}
            )  # fmt: skip
        watch = FakeWatch(options)
        since = int(options.resource_version or 0)
        if options.send_initial_events:
            for obj in sorted(self.objects.values(), key=meta_namespace_key):
                watch.push(WatchEvent(ADDED, obj))
            watch.push(self._bookmark(initial_events_end=True))
            self.watches.append(watch)
            return watch
        if since and since < self.compacted:
            watch.push(WatchEvent(ERROR, expired_status()))
            watch.end()
            return watch
        if since:
            for revision, event in self.history:
                if revision > since:
                    watch.push(event)
        # a watch without a resourceVersion starts now (sendInitialEvents unset: no replay of the state)
        watch.options = ListOptions(
            resource_version=str(since or self.revision),
            allow_watch_bookmarks=options.allow_watch_bookmarks,
        )
        self.watches.append(watch)
        return watch

    def count(self, verb: str) -> int:
        return sum(1 for call in self.calls if call.verb == verb)


__all__ = ["Call", "FakeListerWatcher", "FakeWatch", "expired_status"]
