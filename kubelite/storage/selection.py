"""What a watch with a selector sees of each event: shared by the watch cache's watchers and by the registry's
watch over a storage without a cache, so both answer as kube's watchers do."""

from __future__ import annotations

from collections.abc import Callable

from kubelite.apimachinery.meta import Obj
from kubelite.storage.interface import EventType, WatchEvent


def selector_view(event: WatchEvent, predicate: Callable[[Obj], bool]) -> WatchEvent | None:
    """The event as a watch with `predicate` (a label or field selector) sees it, as kube's watchers do:
    an object entering the selector is ADDED, one leaving it is DELETED as it was last seen, and changes
    outside it are not seen at all."""
    if event.type is EventType.DELETED:
        last = event.prev or event.obj
        return event if predicate(last) else None
    now = predicate(event.obj)
    before = event.prev is not None and predicate(event.prev)
    if now and before:
        return event
    if now:
        return WatchEvent(EventType.ADDED, event.key, event.obj, event.revision, None, None)
    if before:  # left the selector: the client must forget it, as it last saw it, at this revision
        assert event.prev is not None
        meta = {**(event.prev.get("metadata") or {}), "resourceVersion": str(event.revision)}
        gone = {**event.prev, "metadata": meta}
        return WatchEvent(EventType.DELETED, event.key, gone, event.revision, event.prev, None)
    return None
