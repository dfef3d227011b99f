"""RealFIFO: every delta, in the order it arrived, one per pop (client-go's `the_real_fifo.go`).

Nothing is merged or reordered, so a consumer sees the server's sequence of changes. `replace` first queues a
`DeletedFinalStateUnknown` for every object that the list no longer has, whether the consumer already knows it
(`known_objects`, required) or it is still queued without a final deletion, then a Replaced delta per listed
object; the first `replace` makes everything queued at that moment the initial population.
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


class RealFIFO:
    def __init__(
        self,
        *,
        known_objects: KeyListerGetter,
        key_func: KeyFunc = meta_namespace_key,
        transformer: TransformFunc | None = None,
    ) -> None:
        if known_objects is None:
            raise ValueError("RealFIFO needs known_objects (the store its deltas are applied to)")
        self._key_func = key_func
        self._known = known_objects
        self._transformer = transformer
        #: every pending delta, oldest first
        self._items: deque[Delta] = deque()
        self._populated = False
        #: deltas of the first replace not yet popped; never more than len(_items)
        self._initial_population_count = 0
        self._closed = False
        self._wakeup = Wakeup()

    def key_of(self, obj: Any) -> str:
        if isinstance(obj, list):
            obj = obj[-1].object
        if isinstance(obj, Delta):
            obj = obj.object
        if isinstance(obj, DeletedFinalStateUnknown):
            return obj.key
        return self._key_func(obj)

    def _append(self, action: DeltaType, obj: Any, *, transform: bool = True) -> None:
        self.key_of(obj)  # an object without a key is refused before it is queued
        if transform and self._transformer is not None and not isinstance(obj, DeletedFinalStateUnknown):
            obj = self._transformer(obj)
        self._items.append(Delta(action, obj))
        self._wakeup.notify()

    def add(self, obj: Obj) -> None:
        self._populated = True
        self._append(DeltaType.ADDED, obj)

    def update(self, obj: Obj) -> None:
        self._populated = True
        self._append(DeltaType.UPDATED, obj)

    def delete(self, obj: Obj | DeletedFinalStateUnknown) -> None:
        self._populated = True
        self._append(DeltaType.DELETED, obj)

    def replace(self, items: list[Obj], resource_version: str = "") -> None:
        new_keys = {self.key_of(obj) for obj in items}
        last_queued: dict[str, Delta] = {}
        for delta in self._items:
            last_queued[self.key_of(delta.object)] = delta
        for key, delta in last_queued.items():
            if key in new_keys or delta.type is DeltaType.DELETED:
                continue
            last = delta.object
            last = last.obj if isinstance(last, DeletedFinalStateUnknown) else last
            self._append(DeltaType.DELETED, DeletedFinalStateUnknown(key, last), transform=False)
        for key in self._known.list_keys():
            if key in new_keys or key in last_queued:
                continue
            known = self._known.get_by_key(key)
            if known is None:
                log.warning(
                    "key %s vanished from the known objects; queueing a tombstone without an object", key
                )
            self._append(DeltaType.DELETED, DeletedFinalStateUnknown(key, known), transform=False)
        for obj in items:
            self._append(DeltaType.REPLACED, obj)
        if not self._populated:
            self._populated = True
            self._initial_population_count = len(self._items)

    def resync(self) -> None:
        queued = {self.key_of(delta.object) for delta in self._items}
        for key in self._known.list_keys():
            # a queued delta is newer than what the consumer knows; a sync now would carry the older state
            if key in queued:
                continue
            known = self._known.get_by_key(key)
            if known is None:
                log.warning("key %s vanished from the known objects; cannot queue it for sync", key)
                continue
            self._append(DeltaType.SYNC, known, transform=False)

    def list(self) -> list[Any]:
        return [delta.object for delta in self._items]

    def list_keys(self) -> builtins.list[str]:
        return list(dict.fromkeys(self.key_of(delta.object) for delta in self._items))

    def get(self, obj: Any) -> Any | None:
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> Any | None:
        for delta in reversed(self._items):
            if self.key_of(delta.object) == key:
                return delta.object
        return None

    def __len__(self) -> int:
        return len(self._items)

    def has_synced(self) -> bool:
        return self._populated and self._initial_population_count == 0

    def close(self) -> None:
        self._closed = True
        self._wakeup.notify()

    @property
    def closed(self) -> bool:
        return self._closed

    async def pop(self, process: PopProcess) -> builtins.list[Delta]:
        while not self._items:
            if self._closed:
                raise FIFOClosedError("RealFIFO: manipulating with closed queue")
            await self._wakeup.wait()
        in_initial_list = not self.has_synced()
        delta = self._items.popleft()
        if self._initial_population_count > 0:
            self._initial_population_count -= 1
        batch = [delta]
        process(batch, in_initial_list)
        return batch
