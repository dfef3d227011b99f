"""The storage interface: the registry's only door to data (kube's `storage.Interface`).

Objects are plain dicts. Keys look like etcd's (`/registry/pods/default/web-0`). Every write is given the next
global revision, and that revision is written into the stored object's `metadata.resourceVersion` (as a
string), so what storage returns is exactly what clients see. Backends (SQLite, etcd) and the watch cache all
implement `Storage`, and the registry works over any of them.

What only a cache can answer (a shared read-only object, whether a key is current, a watch with initial
events, bookmarks and a direct path to the client's socket) is the optional `WatchCache` protocol: the
registry asks a storage whether it is one, and does without when it is not. `StreamWriter` is how the
cache hands events to a client's connection without knowing HTTP.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kubelite.apimachinery.meta import Obj


class EventType(enum.StrEnum):
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    BOOKMARK = "BOOKMARK"
    ERROR = "ERROR"


@dataclass(slots=True)
class WatchEvent:
    """One change. For DELETED, `obj` is the last state with the deletion's resourceVersion.

    `prev` is the state before the change (None for ADDED); the watch cache needs it to tell a watcher
    that an object left its selector. `encoded` caches the wire form per encoding so that an event is
    serialized once for all watchers (cached objects are shared: never mutate `obj` or `prev`).
    """

    type: EventType
    key: str
    obj: Obj
    revision: int
    prev: Obj | None = None
    encoded: dict[str, bytes] | None = None


class ResourceVersionMatch(enum.StrEnum):
    """How a list's resourceVersion is read (kube's `resourceVersionMatch`)."""

    NOT_OLDER_THAN = "NotOlderThan"
    EXACT = "Exact"


@dataclass(frozen=True, slots=True)
class ListOptions:
    """What a list or watch reads.

    resource_version: None means "most recent" (a consistent read); 0 means "any" (the cache may answer);
    n > 0 is read per `match` (NotOlderThan by default, as kube does for lists with a resourceVersion).
    continue_key/continue_revision come from a decoded continue token.
    """

    resource_version: int | None = None
    match: ResourceVersionMatch | None = None
    limit: int = 0
    continue_key: str | None = None
    continue_revision: int = 0
    predicate: Callable[[Obj], bool] | None = None
    #: a label (key, value) every object the predicate accepts carries; a store may use it to find candidates
    label: tuple[str, str] | None = None
    #: applied in place to each object as it is decoded, before the next is (see the watch cache's first list)
    transform: Callable[[Obj], None] | None = None


@dataclass(slots=True)
class ListResult:
    items: list[Obj]
    revision: int
    #: the last key returned when the list was cut by `limit`, None when complete
    next_key: str | None = None
    #: how many more items matched after the cut, when known
    remaining: int | None = None
    #: each item's key, when the store has them at hand (the watch cache then need not rebuild them); not
    #: part of the answer, so two results with the same items are equal whether or not they carry keys
    keys: list[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Preconditions:
    uid: str | None = None
    resource_version: str | None = None


#: try_update(current) -> new object, or raise. current is None only with ignore_not_found.
TryUpdate = Callable[[Obj | None], Awaitable[Obj]]
#: validate_deletion(current): raise to refuse the delete after preconditions passed
ValidateDeletion = Callable[[Obj], Awaitable[None]]


class Watcher(Protocol):
    """A stream of events; `stop()` ends it. Iteration ends when the watch is stopped or cut off."""

    def owes(self, key: str) -> bool:
        """Whether an event of `key` may still be on its way to the consumer. Every write is handed to the
        watchers it concerns before it is acknowledged, so while this is False the consumer has seen every
        acknowledged write of `key`."""
        ...

    def __aiter__(self) -> AsyncIterator[WatchEvent]: ...

    def stop(self) -> None: ...


class Storage(Protocol):
    async def create(self, key: str, obj: Obj) -> Obj:
        """Store a new object; raises KeyExists. Returns it with resourceVersion set."""
        ...

    async def get(self, key: str) -> Obj:
        """The current object; raises KeyNotFound."""
        ...

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        """Objects under `prefix` (which ends with '/'), ordered by key; raises TooOldResourceVersion.
        A backend returns objects of the caller's own; a `WatchCache` may return its shared ones (read-only)."""
        ...

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        """Read, call try_update, compare-and-swap on the revision read; retry on a lost race.

        `cached` is the caller's copy of the current object, if it has one (kube's cachedExistingObject):
        storage may start from it instead of reading. A copy that is not current costs a retry, never a
        lost write: the compare-and-swap is on the revision it carries.

        The object returned by try_update is stored as is when its content differs from the current one
        (then it gets a new revision); when equal, nothing is written and the current object is returned.
        With ignore_not_found, a missing key calls try_update(None) and creates.
        """
        ...

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        """Delete; returns the last state carrying the deletion revision. Raises KeyNotFound, Conflict.
        `cached`: as for guaranteed_update."""
        ...

    def watch(
        self,
        prefix: str,
        from_revision: int,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        progress_notify: bool = False,
    ) -> Watcher:
        """Events under `prefix` with revision > from_revision (0: from now); raises TooOldResourceVersion if
        compacted. With progress_notify, `request_progress()` makes the watcher yield a BOOKMARK at a revision
        at least as new as every write committed before that call."""
        ...

    async def request_progress(self) -> None:
        """etcd's RequestProgress: a bookmark to every progress-notify watcher (see `watch`)."""
        ...

    async def current_revision(self) -> int: ...

    @property
    def compacted_revision(self) -> int:
        """The compacted revision: reads at a revision below it are TooOldResourceVersion."""
        ...

    async def compact(self, revision: int) -> None:
        """Forget history at and below `revision`, keeping each live key's latest state."""
        ...

    async def close(self) -> None: ...


# -- what only a watch cache offers -------------------------------------------------------------------------


class StreamWriter(Protocol):
    """A client's connection, as a cache watcher sees it (implemented by the watch handler).

    `write` sends the event straight to the client and returns True, or returns False when the client is
    behind (the event then waits in the watcher's queue); it is called from the cache's dispatch, so it must
    not block. `abort` closes the connection at once, unread data and all: a watcher cut off for falling
    behind must not keep its socket and kernel buffers.
    """

    def write(self, event: WatchEvent) -> bool: ...

    def abort(self) -> None: ...


@dataclass(frozen=True, slots=True)
class WatchRequest:
    """A watch as a client asks for it (kube's storage.ListOptions for a watch)."""

    prefix: str
    #: None or 0: start with the current state as ADDED events; n: replay events after revision n
    resource_version: int | None
    predicate: Callable[[Obj], bool] | None = None
    allow_bookmarks: bool = False
    #: sendInitialEvents=true: state as ADDED events, then a bookmark marking their end
    send_initial_events: bool | None = None
    #: the `field=value` terms of the watch's field selector, which `predicate` requires (kube's
    #: SelectionPredicate.MatcherIndex): a cache indexing one of these fields offers the watch only the
    #: events of objects that have, or had, that value
    exact_fields: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class StreamWatcher(Watcher, Protocol):
    """A watch served to a client: a `Watcher` that can also write to the client directly and bookmark."""

    def attach(self, writer: StreamWriter) -> None:
        """From now on, events may go straight to `writer` (see StreamWriter); set once the response's
        headers are sent."""
        ...

    def request_bookmark(self) -> None:
        """A bookmark at the newest revision, if the watch asked for bookmarks."""
        ...


@runtime_checkable
class WatchCache(Protocol):
    """What a storage that keeps the resource in memory can answer besides `Storage` (kube's cacher).

    The registry asks `isinstance(storage, WatchCache)` once and falls back to plain `Storage` calls when
    the answer is no, so a backend without a cache serves every request too.
    """

    def has_every_write(self, key: str) -> bool:
        """Whether the cache has applied every acknowledged write of `key` (reading it there is reading
        storage)."""
        ...

    async def get_shared(self, key: str) -> Obj:
        """The object at `key`, as the cache's own object when the cache has every write of it (read it,
        never change it), else read from storage; raises KeyNotFound."""
        ...

    def peek(self, key: str) -> Obj | None:
        """The cached object (shared, read-only), possibly a moment behind storage; None if not cached."""
        ...

    async def watch_stream(self, request: WatchRequest) -> StreamWatcher:
        """A client's watch: initial events, label selectors, bookmarks and the direct path to its socket.
        Raises TooOldResourceVersion and FutureResourceVersion."""
        ...
