"""The storage interface: the registry's only door to data (kube's `storage.Interface`).

Objects are plain dicts. Keys look like etcd's (`/registry/pods/default/web-0`). Every write is given the next
global revision, and that revision is written into the stored object's `metadata.resourceVersion` (as a
string), so what storage returns is exactly what clients see. Backends (SQLite, etcd) and the watch cache all
implement `Storage`; the registry cannot tell them apart.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Obj = dict[str, Any]


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
        """Objects under `prefix` (which ends with '/'), ordered by key; raises TooOldResourceVersion."""
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
