"""Informers over the registry, without HTTP: kubelite.client's reflectors and caches fed by a `Store` directly.

`StoreListerWatcher` is the client's ListerWatcher for one registry store: `list` is the store's list (pages,
resourceVersion and selectors as the HTTP handler would pass them) and `watch` is the store's watch, its events
reshaped into the client's `WatchEvent` (a bookmark, which the store sends as a bare revision, becomes an object
carrying only `metadata.resourceVersion`, as on the wire). A failure `Status` from the store becomes the client's
`ApiError` of that Status, so a 410 is `Expired` and the reflector relists exactly as it would against a server.

`RegistryInformerFactory` keeps one `SharedIndexInformer` per (group, resource), so in-process controllers share
a cache per resource the way controllers of kube-controller-manager share theirs.

The informers hold the watch cache's own objects (`apimachinery.cached.CompactObject`s, shared and read-only):
a controller reads their metadata and the scalars of spec and status as they are, and anything nested through
`cached.expanded`; it copies (`cached.plain`) before it changes one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.selectors import FieldSelector, LabelSelector, parse_field_selector, parse_label_selector
from kubelite.client.cache.factory import GenericInformer
from kubelite.client.cache.listers import Lister
from kubelite.client.cache.listwatch import ListOptions
from kubelite.client.cache.shared_informer import SharedIndexInformer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock, RealClock
from kubelite.client.errors import ApiError
from kubelite.client.watch import INITIAL_EVENTS_END_ANNOTATION, WatchEvent
from kubelite.client.watch import EventType as ClientEventType
from kubelite.registry.builtin import Registry
from kubelite.registry.options import ListParams
from kubelite.registry.store import Store
from kubelite.storage.interface import EventType, Watcher
from kubelite.storage.interface import WatchEvent as StorageEvent

#: the store's event types as the client's (the same words: the wire's)
_CLIENT_EVENT_TYPES: dict[EventType, ClientEventType] = {
    EventType.ADDED: "ADDED",
    EventType.MODIFIED: "MODIFIED",
    EventType.DELETED: "DELETED",
    EventType.BOOKMARK: "BOOKMARK",
    EventType.ERROR: "ERROR",
}


def api_error(exc: StatusError) -> ApiError:
    """The client's error for a registry failure: the same Status, so the same class as over HTTP."""
    return ApiError.from_status(exc.to_status(), code=exc.code)


class StoreWatch:
    """One store watch as the client's `Watch`. Ends when the store ends it (a watcher that fell behind), when
    `close()` is called, or after the `timeoutSeconds` the reflector asked for, as a server's watch would.

    The timeout is one timer per watch that stops the store's watcher, not a timeout around each event:
    `asyncio.wait_for` (Python 3.11) loses a cancellation that arrives as an event is ready, leaving an
    informer that cannot be stopped, and it costs a task per event. The store hands a backlog over without
    suspending (an initial list of 100,000 pods is ready at once), so every `YIELD_EVERY` events the loop
    gets a turn."""

    YIELD_EVERY = 256

    def __init__(self, watcher: Watcher, store: Store, *, timeout: float | None = None) -> None:
        self._watcher = watcher
        # a Watcher is iterable, not necessarily its own iterator (the cache's is; a converting store's is not)
        self._events = aiter(watcher)
        self._store = store
        loop = asyncio.get_running_loop()
        self._timer = None if timeout is None else loop.call_later(timeout, watcher.stop)
        self._count = 0
        self.closed = False

    def __aiter__(self) -> StoreWatch:
        return self

    async def __anext__(self) -> WatchEvent:
        if self.closed:
            raise StopAsyncIteration
        self._count += 1
        if self._count % self.YIELD_EVERY == 0:
            await asyncio.sleep(0)
        try:
            event = await anext(self._events)
        except StopAsyncIteration:
            await self.close()
            raise
        return self._convert(event)

    def _convert(self, event: StorageEvent) -> WatchEvent:
        if event.type is EventType.BOOKMARK:
            return WatchEvent("BOOKMARK", self._bookmark(event))
        return WatchEvent(_CLIENT_EVENT_TYPES[event.type], event.obj)

    def _bookmark(self, event: StorageEvent) -> dict[str, Any]:
        metadata: dict[str, Any] = {"resourceVersion": str(event.revision)}
        if event.obj.get("initialEventsEnd"):
            metadata["annotations"] = {INITIAL_EVENTS_END_ANNOTATION: "true"}
        spec = self._store.spec
        return {"apiVersion": spec.api_version, "kind": spec.kind, "metadata": metadata}

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._watcher.stop()


class StoreListerWatcher:
    """The client's ListerWatcher over one registry store: all namespaces, or one, with fixed selectors."""

    def __init__(
        self,
        store: Store | Callable[[], Store],
        *,
        namespace: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> None:
        # a callable is asked on every list and watch: a custom resource's Store is rebuilt when its CRD changes
        self._store = store
        self.namespace = namespace
        # parsed once: a bad selector is the caller's mistake, reported at construction
        self.label_selector: LabelSelector | None = (
            parse_label_selector(label_selector) if label_selector else None
        )
        self.field_selector: FieldSelector | None = (
            parse_field_selector(field_selector) if field_selector else None
        )

    @property
    def store(self) -> Store:
        return self._store() if callable(self._store) else self._store

    def _params(self, options: ListOptions) -> ListParams:
        return ListParams(
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            resource_version=options.resource_version,
            resource_version_match=options.resource_version_match,
            limit=options.limit or 0,
            continue_token=options.continue_token,
            allow_watch_bookmarks=options.allow_watch_bookmarks,
            send_initial_events=options.send_initial_events,
            timeout_seconds=options.timeout_seconds,
        )

    async def list(self, options: ListOptions) -> dict[str, Any]:
        store = self.store  # once: a custom resource's may be replaced while the list runs
        try:
            result = await store.list(self.namespace, self._params(options))
        except StatusError as exc:
            raise api_error(exc) from exc
        spec = store.spec
        # the items are the watch cache's own objects: never let a consumer complete them in place
        result["items"] = [
            item
            if "apiVersion" in item and "kind" in item
            else {"apiVersion": spec.api_version, "kind": spec.kind, **item}
            for item in result["items"]
        ]
        return result

    async def watch(self, options: ListOptions) -> StoreWatch:
        store = self.store
        try:
            watcher = await store.watch(self.namespace, self._params(options))
        except StatusError as exc:
            raise api_error(exc) from exc
        timeout = float(options.timeout_seconds) if options.timeout_seconds else None
        return StoreWatch(watcher, store, timeout=timeout)


class RegistryInformerFactory:
    """One shared informer (and lister) per (group, resource) of a registry. `start()` runs those not yet
    running, `wait_for_cache_sync()` waits for them, `shutdown()` stops them all."""

    def __init__(
        self,
        registry: Registry,
        *,
        default_resync: float = 0.0,
        use_watch_list: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.registry = registry
        self.default_resync = default_resync
        self.use_watch_list = use_watch_list
        self.clock = clock or RealClock()
        self._informers: dict[tuple[str, str], GenericInformer] = {}
        self._started: set[tuple[str, str]] = set()

    def for_resource(self, group: str, resource: str) -> GenericInformer:
        key = (group, resource)
        existing = self._informers.get(key)
        if existing is not None:
            return existing
        registry = self.registry
        informer = SharedIndexInformer(
            StoreListerWatcher(lambda: registry.store(group, resource)),
            name=f"{resource}.{group}" if group else resource,
            resync_period=self.default_resync,
            use_watch_list=self.use_watch_list,
            clock=self.clock,
        )
        generic = GenericInformer(informer, Lister(informer.indexer, resource=resource, group=group))
        self._informers[key] = generic
        return generic

    async def remove(self, group: str, resource: str) -> None:
        """Stop and forget the informer of a resource that is no longer served (a deleted CRD's)."""
        generic = self._informers.pop((group, resource), None)
        self._started.discard((group, resource))
        if generic is not None:
            await generic.informer.stop()

    def resources(self) -> list[tuple[str, str]]:
        """The (group, resource) of every informer asked for so far."""
        return list(self._informers)

    def start(self) -> None:
        for key, generic in self._informers.items():
            if key not in self._started:
                self._started.add(key)
                generic.informer.start()

    async def wait_for_cache_sync(self, *, timeout: float | None = None) -> bool:
        checks = [self._informers[key].informer.has_synced for key in self._started]
        return await wait_for_cache_sync(*checks, timeout=timeout, clock=self.clock)

    async def shutdown(self) -> None:
        for generic in self._informers.values():
            await generic.informer.stop()
        self._started.clear()
