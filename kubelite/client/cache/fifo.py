"""The queue between a reflector and an informer: what both FIFOs share.

A reflector pushes what it learns (`add`, `update`, `delete`, `replace` after a list, `resync` on the resync
timer); the informer pops `Delta`s and applies them to its indexer and handlers. Two implementations:

- `RealFIFO` (the default): every delta, in arrival order, one per pop. Handlers see exactly the sequence of
  changes the server sent, and after each pop the indexer holds a state the server actually had.
- `DeltaFIFO`: deltas grouped per key, a key popped at the position of its first pending delta, consecutive
  deletes merged. A slow consumer then sees fewer, bigger batches, at the price of reordering across keys.

client-go made the in-order FIFO its informers' default (the InOrderInformers feature) for that reason, and so
do we. Both are asyncio queues: pushes are plain calls, `pop` awaits; `process` runs synchronously inside
`pop`, so no push can interleave with it (client-go holds the queue's lock for the same effect) and a resync
or relist always compares against an indexer that is up to date with everything popped.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.store import Store


class DeltaType(enum.StrEnum):
    ADDED = "Added"
    UPDATED = "Updated"
    DELETED = "Deleted"
    #: the object came with a relist (only when the queue is asked to distinguish these from Sync)
    REPLACED = "Replaced"
    #: a periodic resync, or a relist by a queue that does not emit Replaced
    SYNC = "Sync"


@dataclass(frozen=True, slots=True)
class Delta:
    type: DeltaType
    #: the object, or a DeletedFinalStateUnknown for a deletion noticed by a relist
    object: Any


#: called with one popped batch of deltas (all of one key for DeltaFIFO) and whether they belong to the initial list
PopProcess = Callable[[list[Delta], bool], None]

#: applied to every object before it is queued (e.g. to drop managedFields and save memory)
TransformFunc = Callable[[Obj], Obj]


class FIFOClosedError(Exception):
    """`pop` on a closed, empty queue."""


class Queue(Store, Protocol):
    async def pop(self, process: PopProcess) -> list[Delta]:
        """Wait for the next item, remove it and call `process` on it before returning it."""
        ...

    def has_synced(self) -> bool:
        """Whether everything of the first `replace` (or a first direct push) has been popped."""
        ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool: ...
