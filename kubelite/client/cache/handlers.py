"""Event handlers: what an informer calls for each change it applies to its cache.

A handler has three methods, `on_add(obj, is_in_initial_list)`, `on_update(old, new)` and `on_delete(obj)`;
each may be a plain function or a coroutine function. `on_delete` may receive a `DeletedFinalStateUnknown`
when the deletion was noticed by a relist rather than seen. `ResourceEventHandlerFuncs` builds a handler from
optional functions; `FilteringResourceEventHandler` shows a handler only the objects a predicate accepts,
turning an update into an add or a delete when an object starts or stops matching.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kubelite.client.cache.keys import DeletedFinalStateUnknown

MaybeAwaitable = Awaitable[None] | None


class ResourceEventHandler(Protocol):
    def on_add(self, obj: Any, is_in_initial_list: bool) -> MaybeAwaitable: ...

    def on_update(self, old: Any, new: Any) -> MaybeAwaitable: ...

    def on_delete(self, obj: Any) -> MaybeAwaitable: ...


@dataclass
class ResourceEventHandlerFuncs:
    """A handler from optional functions; `add` takes (obj) or, with `add_with_initial`, (obj, is_in_initial_list)."""

    add: Callable[[Any], MaybeAwaitable] | None = None
    update: Callable[[Any, Any], MaybeAwaitable] | None = None
    delete: Callable[[Any], MaybeAwaitable] | None = None
    add_with_initial: Callable[[Any, bool], MaybeAwaitable] | None = None

    def on_add(self, obj: Any, is_in_initial_list: bool) -> MaybeAwaitable:
        if self.add_with_initial is not None:
            return self.add_with_initial(obj, is_in_initial_list)
        return self.add(obj) if self.add is not None else None

    def on_update(self, old: Any, new: Any) -> MaybeAwaitable:
        return self.update(old, new) if self.update is not None else None

    def on_delete(self, obj: Any) -> MaybeAwaitable:
        return self.delete(obj) if self.delete is not None else None


@dataclass
class FilteringResourceEventHandler:
    filter: Callable[[Any], bool]
    handler: ResourceEventHandler

    def on_add(self, obj: Any, is_in_initial_list: bool) -> MaybeAwaitable:
        return self.handler.on_add(obj, is_in_initial_list) if self.filter(obj) else None

    def on_update(self, old: Any, new: Any) -> MaybeAwaitable:
        was, now = self.filter(old), self.filter(new)
        if was and now:
            return self.handler.on_update(old, new)
        if now:
            return self.handler.on_add(new, False)
        if was:
            return self.handler.on_delete(old)
        return None

    def on_delete(self, obj: Any) -> MaybeAwaitable:
        return self.handler.on_delete(obj) if self.filter(obj) else None


def deleted_object(obj: Any) -> Any:
    """The object of a delete notification, unwrapping a tombstone (its object may be None)."""
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
