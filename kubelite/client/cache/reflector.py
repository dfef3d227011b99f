"""The Reflector: keeps a Store equal to the server's state of one resource (client-go's `reflector.go`).

One round (`list_and_watch`):
1. get the current state: a WatchList stream (`sendInitialEvents=true`: the objects as ADDED events, ended by
   a bookmark annotated `k8s.io/initial-events-end`) when enabled and supported, else a paginated list; the
   store is replaced with the result and the resourceVersion it was taken at is remembered;
2. watch from that resourceVersion with bookmarks, applying each event to the store and remembering its
   resourceVersion; a watch that ends (its timeout, a dropped connection) is reopened from the last one;
3. meanwhile, every `resync_period`, ask the store to resync (informers use this to re-deliver their cache).

A round ends with an error: a 410 Expired (the resourceVersion was compacted), an ERROR event, a watch that
cannot be opened. `run` then backs off (0.8s doubling to 30s, reset after 2 quiet minutes) and starts a new
round, which relists. A refused connection or a 429 while opening a watch retries the watch, not the list:
the server is restarting or busy, and a relist of everything would only add load.

Which resourceVersion to list at: "0" for the very first list (any cached state is fine), the last one seen
afterwards (not older than what we already have), and "" (a consistent read) after the server said that one
is unavailable (410 Expired, or too new for it).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.backoff import ExponentialBackoff
from kubelite.client.cache.listwatch import NOT_OLDER_THAN, ListerWatcher, ListOptions
from kubelite.client.cache.pager import DEFAULT_PAGE_SIZE, list_all
from kubelite.client.cache.store import Indexer, Store
from kubelite.client.clock import Clock, RealClock
from kubelite.client.errors import (
    ApiError,
    BadRequest,
    ConnectionRefused,
    Gone,
    Invalid,
    NotFound,
    TooManyRequests,
    is_too_large_resource_version,
)
from kubelite.client.watch import ADDED, BOOKMARK, DELETED, ERROR, MODIFIED, Watch

log = logging.getLogger(__name__)

#: watches last a random time in [MIN_WATCH_TIMEOUT, 2 * MIN_WATCH_TIMEOUT] seconds, spreading reconnects
MIN_WATCH_TIMEOUT = 300.0


class VeryShortWatchError(Exception):
    """A watch closed within a second without a single event: something is wrong, so relist."""


class WatchListIncompleteError(Exception):
    """A WatchList stream ended before the bookmark that closes its initial events."""


WatchErrorHandler = Callable[["Reflector", BaseException], None]


def default_watch_error_handler(reflector: Reflector, err: BaseException) -> None:
    if isinstance(err, Gone):
        log.info("%s: watch closed with: %s", reflector.name, err)
    else:
        log.warning("%s: failed to list or watch: %s", reflector.name, err)


def _is_watch_retriable(err: BaseException) -> bool:
    """Errors that mean "try the same watch again later" (the server is down or busy), not "relist"."""
    return isinstance(err, (ConnectionRefused, TooManyRequests))


def _typed_items(result: dict[str, Any]) -> list[Obj]:
    """List items with apiVersion and kind (servers omit them inside lists; watch events carry them)."""
    items: list[Obj] = result.get("items") or []
    api_version = result.get("apiVersion")
    list_kind = str(result.get("kind") or "")
    kind = list_kind[: -len("List")] if list_kind.endswith("List") else ""
    if api_version and kind:
        for item in items:
            if "kind" not in item or "apiVersion" not in item:
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
    return items


class Reflector:
    def __init__(
        self,
        lister_watcher: ListerWatcher,
        store: Store,
        *,
        name: str = "reflector",
        resync_period: float = 0.0,
        should_resync: Callable[[], bool] | None = None,
        use_watch_list: bool = True,
        page_size: int = 0,
        min_watch_timeout: float = MIN_WATCH_TIMEOUT,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        watch_error_handler: WatchErrorHandler = default_watch_error_handler,
    ) -> None:
        self.lister_watcher = lister_watcher
        self.store = store
        self.name = name
        self.resync_period = resync_period
        self.should_resync = should_resync
        self.use_watch_list = use_watch_list
        #: 0: the default page size, except when listing at a known resourceVersion (see _page_size)
        self.page_size = page_size
        self.min_watch_timeout = min_watch_timeout
        self.clock = clock or RealClock()
        self._rng = rng or random.Random()
        self.watch_error_handler = watch_error_handler
        self.backoff = ExponentialBackoff(clock=self.clock, rng=self._rng)
        #: the resourceVersion of the last list, event or bookmark applied to the store ("" before the first list)
        self.last_sync_resource_version = ""
        #: the server refused that resourceVersion (410 or too new): the next list/watch-list is a consistent read
        self._last_sync_unavailable = False
        #: a list at "0" came back in pages: the server has no watch cache, keep paging later lists
        self._paginated_result = False
        #: the server rejected a WatchList request: list from now on
        self._watch_list_unsupported = False
        #: how many rounds started (a relist each); tests and metrics read it
        self.rounds = 0

    # -- resourceVersion choice -------------------------------------------------------------------------------

    def _relist_resource_version(self) -> str:
        if self._last_sync_unavailable:
            return ""
        return self.last_sync_resource_version or "0"

    def _rewatch_resource_version(self) -> str:
        return "" if self._last_sync_unavailable else self.last_sync_resource_version

    def _page_size(self, resource_version: str) -> int:
        if self.page_size:
            return self.page_size
        if self._paginated_result:
            return DEFAULT_PAGE_SIZE
        if resource_version not in ("", "0"):
            # a list at a known version without a limit can be served from the server's watch cache
            return 0
        return DEFAULT_PAGE_SIZE

    def _watch_timeout(self) -> int:
        return int(self.min_watch_timeout * (self._rng.random() + 1.0))

    # -- running ----------------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Rounds of list-and-watch until cancelled, backing off between them."""
        while True:
            try:
                await self.list_and_watch()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.watch_error_handler(self, exc)
            await self.clock.sleep(self.backoff.next())

    async def list_and_watch(self) -> None:
        self.rounds += 1
        watch: Watch | None = None
        if self.use_watch_list and not self._watch_list_unsupported:
            try:
                watch = await self._watch_list()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if isinstance(exc, (BadRequest, Invalid)):
                    # the server does not know sendInitialEvents; do not ask again
                    self._watch_list_unsupported = True
                log.info("%s: watch-list failed, falling back to list: %s", self.name, exc)
                watch = None
        if watch is None:
            await self._list()
        resync = (
            asyncio.create_task(self._resync_loop(), name=f"{self.name} resync")
            if self.resync_period
            else None
        )
        try:
            await self._watch(watch)
        finally:
            if resync is not None:
                resync.cancel()

    async def _resync_loop(self) -> None:
        while True:
            await self.clock.sleep(self.resync_period)
            if self.should_resync is None or self.should_resync():
                self.store.resync()

    # -- list -------------------------------------------------------------------------------------------------

    async def _list(self) -> None:
        resource_version = self._relist_resource_version()
        try:
            result, paginated = await list_all(
                self.lister_watcher.list,
                ListOptions(resource_version=resource_version),
                page_size=self._page_size(resource_version),
            )
        except ApiError as exc:
            if isinstance(exc, Gone) or is_too_large_resource_version(exc):
                self._last_sync_unavailable = True
                resource_version = self._relist_resource_version()
                result, paginated = await list_all(
                    self.lister_watcher.list,
                    ListOptions(resource_version=resource_version),
                    page_size=self._page_size(resource_version),
                )
            elif isinstance(exc, NotFound):
                # the resource does not exist (yet): an empty cache unblocks whoever waits for a sync
                self.store.replace([], "")
                raise
            else:
                raise
        if resource_version == "0" and paginated:
            self._paginated_result = True
        self._last_sync_unavailable = False
        list_version = str((result.get("metadata") or {}).get("resourceVersion") or "")
        self.store.replace(_typed_items(result), list_version)
        self.last_sync_resource_version = list_version

    # -- watch-list -------------------------------------------------------------------------------------------

    async def _watch_list(self) -> Watch:
        """Stream the current state into a scratch store; on its closing bookmark, replace the real store and
        return the still-open watch, which continues with the changes."""
        seen = {"rv": ""}

        def remember(resource_version: str) -> None:
            seen["rv"] = resource_version

        while True:
            scratch = Indexer(indexers={})
            seen["rv"] = ""

            options = ListOptions(
                resource_version=self._rewatch_resource_version(),
                resource_version_match=NOT_OLDER_THAN,
                send_initial_events=True,
                allow_watch_bookmarks=True,
                timeout_seconds=self._watch_timeout(),
            )
            start = self.clock.monotonic()
            try:
                watch = await self.lister_watcher.watch(options)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if await self._retry_watch_list(exc):
                    continue
                raise
            try:
                complete = await self._handle_watch(
                    start, watch, scratch, remember, stop_at_initial_events_end=True
                )
            except BaseException as exc:
                await watch.close()
                if isinstance(exc, Exception) and await self._retry_watch_list(exc):
                    continue
                raise
            if not complete:
                await watch.close()
                raise WatchListIncompleteError(
                    f"{self.name}: the watch-list stream ended before its initial events"
                )
            self._last_sync_unavailable = False
            self.store.replace(scratch.list(), seen["rv"])
            self.last_sync_resource_version = seen["rv"]
            return watch

    async def _retry_watch_list(self, exc: Exception) -> bool:
        if _is_watch_retriable(exc):
            await self.clock.sleep(self.backoff.next())
            return True
        if isinstance(exc, Gone) or is_too_large_resource_version(exc):
            self._last_sync_unavailable = True
            return True
        return False

    # -- watch ------------------------------------------------------------------------------------------------

    async def _watch(self, watch: Watch | None) -> None:
        while True:
            start = self.clock.monotonic()
            if watch is None:
                options = ListOptions(
                    resource_version=self.last_sync_resource_version,
                    timeout_seconds=self._watch_timeout(),
                    allow_watch_bookmarks=True,
                )
                try:
                    watch = await self.lister_watcher.watch(options)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    if _is_watch_retriable(exc):
                        log.debug("%s: watch returned %s - backing off", self.name, exc)
                        await self.clock.sleep(self.backoff.next())
                        continue
                    raise
            try:
                await self._handle_watch(start, watch, self.store, self._set_last_sync)
            except TooManyRequests:
                await self.clock.sleep(self.backoff.next())
                continue
            finally:
                await watch.close()
                watch = None

    def _set_last_sync(self, resource_version: str) -> None:
        self.last_sync_resource_version = resource_version

    async def _handle_watch(
        self,
        start: float,
        watch: Watch,
        store: Store,
        set_resource_version: Callable[[str], None],
        *,
        stop_at_initial_events_end: bool = False,
    ) -> bool:
        """Apply events to `store` until the stream ends; with `stop_at_initial_events_end`, return True right
        after the bookmark that ends the initial events. Raises the error an ERROR event carries."""
        count = 0
        async for event in watch:
            if event.type == ERROR:
                raise event.error()
            obj = event.object
            try:
                if event.type == ADDED:
                    store.add(obj)
                elif event.type == MODIFIED:
                    store.update(obj)
                elif event.type == DELETED:
                    store.delete(obj)
                elif event.type != BOOKMARK:
                    log.warning("%s: unable to understand watch event of type %r", self.name, event.type)
                    continue
            except Exception:
                log.exception("%s: applying a %s event to the store failed", self.name, event.type)
            set_resource_version(event.resource_version)
            count += 1
            if stop_at_initial_events_end and event.is_initial_events_end():
                return True
        if count == 0 and self.clock.monotonic() - start < 1.0:
            raise VeryShortWatchError(
                f"very short watch: {self.name}: Unexpected watch close - watch lasted less than a second and no "
                "items received"
            )
        return False
