"""Cacher: the watch cache for one resource (kube's `storage/cacher`).

It lists the resource from storage once, then follows one storage watch, keeping
- `_objects`: the current state by key (shared, read-only objects), and
- `_window`: the most recent events, oldest first, so a watch can resume from a recent resourceVersion.

Writes go straight to storage; the change comes back through the watch. Lists at resourceVersion 0 or
NotOlderThan, consistent lists (after waiting until the cache has seen the store's current revision) and
watches are served from memory; exact-revision lists and continuations read storage at that revision.

The cacher is a `Storage` (the registry may be given the bare backend instead) and a `WatchCache`: the
shared reads and the client watch (`watch_stream`) only a cache can serve.

An event is offered to the watchers that may see it, not to all (kube's indexed trigger): given a field to
index (pods' spec.nodeName), a watch whose field selector pins that field to a value is kept under the value,
and an event goes to the watchers of its object's value before and after the change, and to every watcher
without a pin. The others' predicates require the value, so neither state could match them: they would
have dropped the event anyway. A thousand kubelets each watching their node's pods so cost a dict lookup per
event rather than a thousand predicate calls.

When the storage list or watch fails, the cacher relists after an exponential backoff with jitter (on the
injected clock, so shutdown interrupts it and tests step it). Each failure's traceback is released at once:
an asyncio future and the frame awaiting it form a reference cycle through the exception, which would keep
the failed list's partly decoded objects alive until a full garbage collection, so a store that fails on
every list would grow the process by megabytes a second. The first list's error is the start-up's: `start()`
raises it rather than retrying, so a damaged store fails start-up.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping

from sortedcontainers import SortedList

from kubelite.apimachinery.compact import compact_managed_fields
from kubelite.apimachinery.meta import Obj
from kubelite.storage import errors
from kubelite.storage.cacher.watcher import CacheWatcher
from kubelite.storage.interface import (
    EventType,
    ListOptions,
    ListResult,
    Preconditions,
    ResourceVersionMatch,
    Storage,
    TryUpdate,
    ValidateDeletion,
    Watcher,
    WatchEvent,
    WatchRequest,
)
from kubelite.storage.keys import prefix_end
from kubelite.util.backoff import ExponentialBackoff
from kubelite.util.clock import Clock, RealClock

log = logging.getLogger(__name__)

#: how long a read waits for the cache to catch up with a revision before giving up (kube: 3s)
FRESHNESS_TIMEOUT = 3.0


#: between failed relists: 0.2s, 0.4s, ... up to 30s (each jittered up to twice itself), from 0.2s again
#: after a minute without failure
RELIST_BACKOFF_INITIAL = 0.2
RELIST_BACKOFF_CAP = 30.0
RELIST_BACKOFF_RESET = 60.0


class Cacher:
    def __init__(
        self,
        storage: Storage,
        resource_prefix: str,
        *,
        window_size: int = 10_000,
        watcher_queue_size: int = 1_000,
        compact: Callable[[Obj], None] = compact_managed_fields,
        clock: Clock | None = None,
        backoff: ExponentialBackoff | None = None,
        indexed_trigger: tuple[str, Callable[[Obj], str]] | None = None,
    ) -> None:
        self.storage = storage
        self.clock = clock or RealClock()
        self.backoff = backoff or ExponentialBackoff(
            initial=RELIST_BACKOFF_INITIAL,
            cap=RELIST_BACKOFF_CAP,
            reset_after=RELIST_BACKOFF_RESET,
            clock=self.clock,
        )
        #: failed list-and-watch attempts since start (a damaged store shows as a count that keeps growing)
        self.failures = 0
        self.resource_prefix = resource_prefix
        #: turns each object the cache keeps into its compact form, in place (see apimachinery.compact)
        self._compact = compact
        self._objects: dict[str, Obj] = {}
        #: the keys of `_objects` in order, so that a list walks only its prefix's range and its page
        self._keys: SortedList[str] = SortedList()
        #: (label key, value) -> keys of the objects carrying it, so that `app=web` visits only those; built
        #: by the first list that can use it (not at start, where it would delay readiness), then kept up
        self._by_label: dict[tuple[str, str], set[str]] | None = None
        self._window: deque[WatchEvent] = deque(maxlen=window_size)
        #: the window holds every event after this revision: the last list's, until events fall out of it
        self._window_floor = 0
        self._watcher_queue_size = watcher_queue_size
        #: every watcher, for what reaches them all (bookmarks, progress, shutdown, a relist)
        self._watchers: set[CacheWatcher] = set()
        #: the field watchers are indexed by, and its value in an object (as field selectors read it)
        self._trigger_field: str | None = indexed_trigger[0] if indexed_trigger else None
        self._trigger_value: Callable[[Obj], str] | None = indexed_trigger[1] if indexed_trigger else None
        #: the watchers whose selector pins the indexed field, by the value; and all the others
        self._pinned: dict[str, set[CacheWatcher]] = {}
        self._unpinned: set[CacheWatcher] = set()
        self.revision = 0
        self._revision_changed = asyncio.Condition()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: the storage watch the cache follows, while it follows one
        self._watch: Watcher | None = None

    # -- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Fill the cache and follow the store; raises the first list's error (the store cannot be read)."""
        self._task = asyncio.create_task(self._run(), name=f"cacher {self.resource_prefix}")
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, self._task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if not self._ready.is_set():
            await self._task  # it ended before the cache was ready: raises the first list's error

    async def close(self) -> None:
        task = self._task
        if task is not None:
            if task.done():  # it failed start-up, and start() has raised that error already
                if not task.cancelled():
                    task.exception()
            else:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise  # close() itself was cancelled: that goes on up
        for watcher in list(self._watchers):
            watcher.stop()

    async def _run(self) -> None:
        while True:
            try:
                await self._list_and_watch()
            except Exception as exc:  # CancelledError (shutdown) is a BaseException and ends the loop
                if not self._ready.is_set() and self.failures == 0:
                    raise  # the first list: start() hands the error to whoever starts the server
                self.failures += 1
                log.error("watch cache for %s failed; relisting: %s", self.resource_prefix, exc, exc_info=exc)
                _release(exc)
                del exc
            # after RELIST_BACKOFF_RESET healthy seconds the backoff starts over: a failure then is a new episode
            await self.clock.sleep(self.backoff.next())

    async def _list_and_watch(self) -> None:
        # compacted one by one as they are read, so each object's discarded parts make room for the next
        listed = await self.storage.get_list(self.resource_prefix, ListOptions(transform=self._compact))
        if listed.keys is not None:
            fresh = dict(zip(listed.keys, listed.items, strict=True))
        else:
            fresh = {_key_of(self.resource_prefix, obj): obj for obj in listed.items}
        if self._ready.is_set():  # a relist: watchers cannot be told what they missed
            for watcher in list(self._watchers):
                watcher.stop()
            self._window.clear()
        self._window_floor = listed.revision
        self._objects = fresh
        self._keys = SortedList(fresh)
        self._by_label = None
        await self._advance(listed.revision)
        self._ready.set()
        watch = self._watch = self.storage.watch(self.resource_prefix, listed.revision, progress_notify=True)
        try:
            async for event in watch:
                self._apply(event)
                await self._advance(event.revision)
        finally:
            self._watch = None
            watch.stop()
        raise RuntimeError("storage watch ended")

    def _apply(self, event: WatchEvent) -> None:
        if event.type is EventType.BOOKMARK:
            # progress: nothing changed under our prefix up to this revision; the caller advances the cache's
            # revision, and watchers hear of it at the next periodic bookmark
            return
        self._compact(event.obj)  # the storage watch decoded it for the cache alone
        if event.type is EventType.DELETED:
            prev = self._objects.pop(event.key, None)
            if prev is not None:
                self._keys.remove(event.key)
                self._index_labels(event.key, prev, None)
        else:
            prev = self._objects.get(event.key)
            self._objects[event.key] = event.obj
            if prev is None:
                self._keys.add(event.key)
            self._index_labels(event.key, prev, event.obj)
        if prev is not None:
            # the cache's own object is that state too, compact: the window keeps it rather than storage's copy
            event.prev = prev
        if len(self._window) == self._window.maxlen:
            # the oldest event falls out: nothing of this resource happened between it and the next one
            self._window_floor = self._window[1].revision - 1 if len(self._window) > 1 else event.revision - 1
        self._window.append(event)
        self._dispatch(event)

    def _dispatch(self, event: WatchEvent) -> None:
        # copies: a watcher that overflows leaves its set while the loop runs
        for watcher in list(self._unpinned):
            watcher.offer(event)
        pinned = self._pinned
        if not pinned:
            return
        value_of = self._trigger_value
        assert value_of is not None  # watchers are pinned only when there is a field to pin
        value = value_of(event.obj)
        targets = pinned.get(value)
        if targets:
            for watcher in list(targets):
                watcher.offer(event)
        if event.prev is not None:
            before = value_of(event.prev)
            if before != value:
                # it moved off that value: those watchers see it leave (a DELETED, from selector_view)
                targets = pinned.get(before)
                if targets:
                    for watcher in list(targets):
                        watcher.offer(event)

    def _label_index(self) -> dict[tuple[str, str], set[str]]:
        if self._by_label is None:
            index: dict[tuple[str, str], set[str]] = {}
            for key, obj in self._objects.items():
                for pair in _labels(obj).items():
                    keys = index.get(pair)
                    if keys is None:
                        keys = index[pair] = set()
                    keys.add(key)
            self._by_label = index
        return self._by_label

    def _index_labels(self, key: str, old: Obj | None, new: Obj | None) -> None:
        index = self._by_label
        if index is None:
            return
        before, after = _labels(old), _labels(new)
        if before == after:
            return
        for pair in before.items() - after.items():
            keys = index.get(pair)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del index[pair]
        for pair in after.items() - before.items():
            index.setdefault(pair, set()).add(key)

    async def _advance(self, revision: int) -> None:
        if revision > self.revision:
            async with self._revision_changed:
                self.revision = revision
                self._revision_changed.notify_all()

    async def wait_until_fresh(self, revision: int, timeout: float = FRESHNESS_TIMEOUT) -> bool:
        """Whether the cache reaches `revision` within `timeout` seconds of loop time."""
        if self.revision >= revision:
            return True
        async with self._revision_changed:
            try:
                await asyncio.wait_for(self._revision_changed.wait_for(lambda: self.revision >= revision), timeout)
            except TimeoutError:
                return False
        return True

    # -- Storage: writes and single reads go to storage ------------------------------------------------

    async def create(self, key: str, obj: Obj) -> Obj:
        return await self.storage.create(key, obj)

    async def get(self, key: str) -> Obj:
        """The object at `key`, read from storage (a private copy the caller may change)."""
        return await self.storage.get(key)

    def has_every_write(self, key: str) -> bool:
        """Whether the cache has applied every acknowledged write of `key`, so that reading it there is reading
        storage. Writes to other keys do not matter, so this holds while they go on."""
        watch = self._watch
        return watch is not None and not watch.owes(key)

    async def get_shared(self, key: str) -> Obj:
        """The object at `key`: from memory when the cache has every write of it (the answer is then the
        same), as the cache's own object: read it, never change it. Else read from storage."""
        if self.has_every_write(key):
            obj = self._objects.get(key)
            if obj is None:
                raise errors.KeyNotFound(f"key not found: {key}", key=key)
            return obj
        return await self.storage.get(key)

    def peek(self, key: str) -> Obj | None:
        """The cached object (shared: do not mutate), possibly a moment behind storage; None if not cached."""
        return self._objects.get(key)

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        return await self.storage.guaranteed_update(
            key,
            try_update,
            ignore_not_found=ignore_not_found,
            preconditions=preconditions,
            cached=cached if cached is not None else self._current(key),
        )

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        return await self.storage.delete(
            key,
            preconditions=preconditions,
            validate_deletion=validate_deletion,
            cached=cached if cached is not None else self._current(key),
        )

    def _current(self, key: str) -> Obj | None:
        """The cached object for a write to start from, as kube's cacher hands etcd its cachedExistingObject:
        only when the cache has every write of it, so that it is a retry only if another write races."""
        return self._objects.get(key) if self.has_every_write(key) else None

    async def current_revision(self) -> int:
        return await self.storage.current_revision()

    @property
    def compacted_revision(self) -> int:
        return self.storage.compacted_revision

    async def compact(self, revision: int) -> None:
        await self.storage.compact(revision)

    async def request_progress(self) -> None:
        """A bookmark to every progress-notify watcher, at a revision at least as new as every write
        committed before this call: the store's, once the cache has caught up with it."""
        wanted = await self.storage.current_revision()
        if self.revision < wanted:
            await self.storage.request_progress()
            await self.wait_until_fresh(wanted)
        for watcher in list(self._watchers):
            if watcher.progress_notify:
                watcher.progress(self.revision)

    # -- lists -------------------------------------------------------------------------------------------

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        exact = opts.continue_key is not None or (opts.match is ResourceVersionMatch.EXACT and opts.resource_version)
        if exact:
            # a continuation, or a list at one revision: from memory while the window still covers it
            at = opts.continue_revision if opts.continue_key is not None else opts.resource_version
            if at and at > self.revision:
                await self.wait_until_fresh(at)
            changed = self._changes_after(at) if at and at <= self.revision else None
            if changed is None or at is None:  # (no revision: no changes either; said for the type checker)
                return await self.storage.get_list(prefix, opts)
            return self._list_from_memory(prefix, opts, at, changed)
        if opts.resource_version is None:  # consistent read: the cache must have seen the newest revision
            wanted = await self.storage.current_revision()
            if self.revision < wanted:
                # the newest writes may be under other prefixes: ask the store to say how far we are
                await self.storage.request_progress()
            if not await self.wait_until_fresh(wanted):
                return await self.storage.get_list(prefix, opts)
        elif opts.resource_version and not await self.wait_until_fresh(opts.resource_version):
            raise errors.FutureResourceVersion(opts.resource_version, self.revision)
        return self._list_from_memory(prefix, opts, self.revision, {})

    def _changes_after(self, revision: int) -> dict[str, Obj | None] | None:
        """How the state at `revision` differs from the cache's: key -> its object then (None: absent then),
        for every key changed since; None when the window no longer reaches back to `revision`."""
        if revision < self._window_floor or revision < self.storage.compacted_revision:
            return None  # storage answers, and for a compacted revision that is 410 Gone, as from etcd
        changed: dict[str, Obj | None] = {}
        for event in reversed(self._window):
            if event.revision <= revision:
                break
            changed[event.key] = event.prev  # the earliest change after `revision` wins, as it comes last
        return changed

    def _count_after(self, key: str, stop: int, end: str, changed: dict[str, Obj | None]) -> int:
        """How many keys after `key` (up to `end`, the cache's own up to index `stop`) existed at the revision
        `changed` describes: the cache's, less those created since, plus those deleted since."""
        count: int = stop - self._keys.bisect_right(key)  # SortedList is untyped
        for changed_key, then in changed.items():
            if key < changed_key < end:
                count += int(then is not None) - int(changed_key in self._objects)
        return count

    def _list_from_memory(
        self, prefix: str, opts: ListOptions, revision: int, changed: dict[str, Obj | None]
    ) -> ListResult:
        """The list as of `revision`: the cache's objects, with `changed` keys as they were then."""
        end = prefix_end(prefix)
        keys = self._keys
        after = opts.continue_key if opts.continue_key is not None and opts.continue_key >= prefix else None
        first = keys.bisect_right(after) if after is not None else keys.bisect_left(prefix)
        stop = keys.bisect_left(end)
        low = after if after is not None else ""
        candidates: Iterable[str]
        labelled = self._label_index().get(opts.label, set()) if opts.label is not None else None
        # sorting the labelled keys pays when they are few against the range a walk would visit
        if labelled is not None and opts.predicate is not None and len(labelled) * 4 < stop - first:
            # only objects carrying the label can match: those now, and those changed since `revision` (which
            # may have carried it then); the predicate decides, on each as it was at `revision`
            candidates = sorted(k for k in labelled.union(changed) if prefix <= k < end and k > low)
        else:
            candidates = keys.islice(first, stop)
            # keys deleted since `revision` were there then
            gone = sorted(k for k in changed if k not in self._objects and prefix <= k < end and k > low)
            if gone:
                candidates = heapq.merge(candidates, gone)
        objects, predicate, limit = self._objects, opts.predicate, opts.limit
        items: list[Obj] = []
        next_key: str | None = None
        for key in candidates:
            obj = changed[key] if key in changed else objects[key]
            if obj is None:  # created since `revision`
                continue
            if predicate is not None and not predicate(obj):
                continue
            if limit and len(items) >= limit:
                assert next_key is not None
                # one more match says the list goes on; kube gives no count under a selector, and without
                # one what remains is counted from the key index, not walked
                more = self._count_after(next_key, stop, end, changed) if predicate is None else None
                return ListResult(items, revision, next_key, more)
            items.append(obj)
            next_key = key
        return ListResult(items, revision)

    # -- watches -----------------------------------------------------------------------------------------

    def watch(
        self,
        prefix: str,
        from_revision: int,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        progress_notify: bool = False,
    ) -> Watcher:
        """Storage's watch: events after `from_revision` (0: from now), from memory while the window reaches
        back that far; older history (or a compacted revision, refused there) is storage's to answer, so the
        cache answers as its store does. A client's watch is `watch_stream`."""
        start = from_revision or self.revision
        if start < self._window_floor or start < self.storage.compacted_revision:
            return self.storage.watch(prefix, from_revision, predicate=predicate, progress_notify=progress_notify)
        backlog = [e for e in self._window if e.revision > start]
        watcher = self._new_watcher(prefix, predicate, len(backlog), transitions=False)
        watcher.progress_notify = progress_notify
        for event in backlog:
            watcher.offer(event)
        watcher.after_revision = max(self.revision, start)  # a revision not reached yet: from there
        self._register(watcher)  # storage's predicate is opaque: every event is offered
        return watcher

    def _new_watcher(
        self,
        prefix: str,
        predicate: Callable[[Obj], bool] | None,
        backlog: int,
        *,
        allow_bookmarks: bool = False,
        transitions: bool = True,
    ) -> CacheWatcher:
        # the backlog must fit: only what arrives later may overflow a slow watcher
        return CacheWatcher(
            prefix=prefix,
            predicate=predicate,
            queue_size=self._watcher_queue_size + backlog,
            allow_bookmarks=allow_bookmarks,
            on_stop=self._forget,
            current_revision=lambda: self.revision,
            transitions=transitions,
        )

    def _register(self, watcher: CacheWatcher, exact_fields: Mapping[str, str] | None = None) -> None:
        """Start offering events to `watcher`: all of them, or with the indexed field pinned by its selector
        (`exact_fields`, terms its predicate requires), those of objects with that value before or after."""
        if watcher.stopped:
            return
        field = self._trigger_field
        value = exact_fields.get(field) if exact_fields and field is not None else None
        watcher.trigger_value = value
        self._watchers.add(watcher)
        if value is None:
            self._unpinned.add(watcher)
        else:
            self._pinned.setdefault(value, set()).add(watcher)

    def _forget(self, watcher: CacheWatcher) -> None:
        self._watchers.discard(watcher)
        value = watcher.trigger_value
        if value is None:
            self._unpinned.discard(watcher)
            return
        watchers = self._pinned.get(value)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self._pinned[value]

    async def watch_stream(self, req: WatchRequest) -> CacheWatcher:
        """A client's watch (see WatchCache.watch_stream)."""
        rv = req.resource_version
        initial = req.send_initial_events if req.send_initial_events is not None else not rv
        if rv and rv > self.revision and not await self.wait_until_fresh(rv):
            raise errors.FutureResourceVersion(rv, self.revision)
        backlog: list[WatchEvent] = []
        if initial:
            keys = self._keys
            for key in keys.islice(keys.bisect_left(req.prefix), keys.bisect_left(prefix_end(req.prefix))):
                obj = self._objects[key]
                if req.predicate is None or req.predicate(obj):
                    backlog.append(WatchEvent(EventType.ADDED, key, obj, self.revision))
            if req.send_initial_events and req.allow_bookmarks:  # kube marks the end only for bookmark watchers
                backlog.append(WatchEvent(EventType.BOOKMARK, "", {"initialEventsEnd": True}, self.revision))
        elif rv:
            # as kube's watch cache: an empty window still covers everything since the list it started from
            if rv < self._window_floor:
                raise errors.TooOldResourceVersion(rv, self._window_floor)
            backlog = [e for e in self._window if e.revision > rv]
        # else: sendInitialEvents=false without a revision starts at the newest revision, with nothing old
        watcher = self._new_watcher(req.prefix, req.predicate, len(backlog), allow_bookmarks=req.allow_bookmarks)
        for event in backlog:
            if initial:
                watcher.put_initial(event)
            else:
                watcher.offer(event)
        watcher.after_revision = self.revision
        self._register(watcher, req.exact_fields)
        return watcher

    def send_bookmarks(self) -> None:
        for watcher in list(self._watchers):
            watcher.bookmark(self.revision)


def _release(exc: BaseException) -> None:
    """Drop what a caught exception keeps alive: its frames' locals and its tracebacks, along its chain.

    An exception raised through an awaited future sits in a cycle (future -> exception -> traceback ->
    the awaiting frame -> future) that only the cyclic collector frees, together with everything the
    frames held; breaking it here frees a failed attempt's data at once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if current.__traceback__ is not None:
            traceback.clear_frames(current.__traceback__)
            current.__traceback__ = None
        current = current.__cause__ or current.__context__


def _key_of(prefix: str, obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace")
    return f"{prefix}{namespace}/{meta['name']}" if namespace else f"{prefix}{meta['name']}"


def _labels(obj: Obj | None) -> dict[str, str]:
    if obj is None:
        return {}
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}
