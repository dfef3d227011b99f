"""DeltaFIFO: per-key lists of deltas, keys popped in first-arrival order (client-go's `tools/cache/delta_fifo.go`).

- consecutive deletions of one key collapse into one (a real object wins over a tombstone);
- `replace` queues the listed objects (as Replaced, or Sync) and a `DeletedFinalStateUnknown` for every object
  the consumer knows of (`known_objects`, usually the informer's indexer) or still has queued that the list no
  longer has; the first `replace` defines the initial population `has_synced` waits for;
- `resync` queues a Sync for every known object that has nothing pending (a pending delta carries newer news).
"""

from __future__ import annotations

import builtins
import logging
from collections import deque
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.fifo import Delta, DeltaType, FIFOClosedError, PopProcess, TransformFunc
from kubelite.client.cache.keys import DeletedFinalStateUnknown, KeyFunc, meta_namespace_key
from kubelite.client.cache.store import KeyListerGetter
from kubelite.client.notify import Wakeup

log = logging.getLogger(__name__)


def _dedup(deltas: list[Delta]) -> None:
    """Merge the last two deltas if both are deletions; the older wins unless it is only a tombstone."""
    if len(deltas) < 2:
        return
    newer, older = deltas[-1], deltas[-2]
    if newer.type is DeltaType.DELETED and older.type is DeltaType.DELETED:
        keep = newer if isinstance(older.object, DeletedFinalStateUnknown) else older
        deltas[-2:] = [keep]


class DeltaFIFO:
    def __init__(
        self,
        *,
        key_func: KeyFunc = meta_namespace_key,
        known_objects: KeyListerGetter | None = None,
        emit_delta_type_replaced: bool = False,
        transformer: TransformFunc | None = None,
    ) -> None:
        self._key_func = key_func
        self._known = known_objects
        self._emit_replaced = emit_delta_type_replaced
        self._transformer = transformer
        # Invariant: a key is in _queue iff it is in _items, at most once; _items[key] is never empty.
        self._items: dict[str, list[Delta]] = {}
        self._queue: deque[str] = deque()
        #: a first replace (or any direct push) happened
        self._populated = False
        #: items of the first replace not yet popped
        self._initial_population_count = 0
        self._closed = False
        self._wakeup = Wakeup()

    # -- keys -------------------------------------------------------------------------------------------------

    def key_of(self, obj: Any) -> str:
        if isinstance(obj, list):
            if not obj:
                raise ValueError("zero-length Deltas have no key")
            obj = obj[-1].object
        if isinstance(obj, Delta):
            obj = obj.object
        if isinstance(obj, DeletedFinalStateUnknown):
            return obj.key
        return self._key_func(obj)

    # -- pushes -----------------------------------------------------------------------------------------------

    def _queue_action(self, action: DeltaType, obj: Any, *, transform: bool = True) -> None:
        key = self.key_of(obj)
        # resync's objects come from the consumer's store and were transformed on their way in; a relist's
        # objects are new even when they are queued as Sync
        if transform and self._transformer is not None and not isinstance(obj, DeletedFinalStateUnknown):
            obj = self._transformer(obj)
        deltas = self._items.get(key)
        if deltas is None:
            deltas = self._items[key] = []
            self._queue.append(key)
        deltas.append(Delta(action, obj))
        _dedup(deltas)
        self._wakeup.notify()

    def add(self, obj: Obj) -> None:
        self._populated = True
        self._queue_action(DeltaType.ADDED, obj)

    def update(self, obj: Obj) -> None:
        self._populated = True
        self._queue_action(DeltaType.UPDATED, obj)

    def delete(self, obj: Obj | DeletedFinalStateUnknown) -> None:
        """Queue a deletion, unless the object is unknown both to the consumer and to the queue."""
        key = self.key_of(obj)
        self._populated = True
        known = self._known is not None and self._known.get_by_key(key) is not None
        if not known and key not in self._items:
            return
        self._queue_action(DeltaType.DELETED, obj)

    def replace(self, items: list[Obj], resource_version: str = "") -> None:
        action = DeltaType.REPLACED if self._emit_replaced else DeltaType.SYNC
        keys: set[str] = set()
        for obj in items:
            keys.add(self.key_of(obj))
        # deletions first: for what is queued and gone, then for what the consumer knows and is gone
        missing: dict[str, Any] = {}
        for key, deltas in self._items.items():
            if key in keys:
                continue
            newest = deltas[-1]
            if newest.type is DeltaType.DELETED:
                continue
            last = newest.object
            missing[key] = last.obj if isinstance(last, DeletedFinalStateUnknown) else last
        if self._known is not None:
            for key in self._known.list_keys():
                if key in keys or key in missing or key in self._items:
                    continue
                known = self._known.get_by_key(key)
                if known is None:
                    log.warning(
                        "key %s vanished from the known objects; queueing a tombstone without an object", key
                    )
                missing[key] = known
        for key, last in missing.items():
            self._queue_action(DeltaType.DELETED, DeletedFinalStateUnknown(key, last))
        for obj in items:
            self._queue_action(action, obj)
        if not self._populated:
            self._populated = True
            self._initial_population_count = len(keys) + len(missing)

    def resync(self) -> None:
        if self._known is None:
            return
        for key in self._known.list_keys():
            if self._items.get(key):
                continue
            obj = self._known.get_by_key(key)
            if obj is None:
                log.warning("key %s vanished from the known objects; cannot queue it for sync", key)
                continue
            self._queue_action(DeltaType.SYNC, obj, transform=False)

    # -- reads ------------------------------------------------------------------------------------------------

    def list(self) -> list[Any]:
        """The newest object of every queued key."""
        return [deltas[-1].object for deltas in self._items.values()]

    def list_keys(self) -> builtins.list[str]:
        return list(self._items)

    def get(self, obj: Any) -> builtins.list[Delta] | None:
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> builtins.list[Delta] | None:
        deltas = self._items.get(key)
        return list(deltas) if deltas is not None else None

    def __len__(self) -> int:
        return len(self._queue)

    # -- consumption ------------------------------------------------------------------------------------------

    def has_synced(self) -> bool:
        return self._populated and self._initial_population_count == 0

    def close(self) -> None:
        self._closed = True
        self._wakeup.notify()

    @property
    def closed(self) -> bool:
        return self._closed

    async def pop(self, process: PopProcess) -> builtins.list[Delta]:
        while not self._queue:
            if self._closed:
                raise FIFOClosedError("DeltaFIFO: manipulating with closed queue")
            await self._wakeup.wait()
        key = self._queue.popleft()
        deltas = self._items.pop(key)
        in_initial_list = not self.has_synced()
        if self._initial_population_count > 0:
            self._initial_population_count -= 1
        process(deltas, in_initial_list)
        return deltas

    def check_invariants(self) -> None:
        if set(self._queue) != set(self._items) or len(self._queue) != len(self._items):
            raise AssertionError(f"queue {list(self._queue)} and items {list(self._items)} differ")
        if any(not deltas for deltas in self._items.values()):
            raise AssertionError("a key with no deltas is queued")
