"""The local cache: a thread-safe store of objects by key, with secondary indices (client-go's `Indexer`).

An informer writes here and everything else reads: listers, handlers, controllers' reconcile functions. Reads
and writes take one lock for the length of a dict operation, so the store is safe from threads and from
coroutines alike (nothing awaits while holding it). Objects are stored as given and handed out as stored: they
are shared and read-only, and a caller that wants to change one copies it first.

An index function maps an object to the values it is found under (the namespace index: `[namespace]`); the
index keeps, per value, the set of keys whose objects produce it.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.keys import DeletedFinalStateUnknown, KeyFunc, meta_namespace_key

IndexFunc = Callable[[Obj], list[str]]

#: the index every informer has: objects by namespace
NAMESPACE_INDEX = "namespace"


def meta_namespace_index_func(obj: Obj) -> list[str]:
    return [str((obj.get("metadata") or {}).get("namespace") or "")]


class IndexNotFoundError(KeyError):
    """A lookup in an index the store was not given."""

    def __str__(self) -> str:
        return f"Index with name {self.args[0]} does not exist"


class IndexConflictError(ValueError):
    """An indexer added under a name that is already taken."""


class KeyListerGetter(Protocol):
    """What a queue needs to know of the store it feeds: its keys and the object under a key."""

    def list_keys(self) -> list[str]: ...

    def get_by_key(self, key: str) -> Any | None: ...


class Store(KeyListerGetter, Protocol):
    """What a reflector writes to: a plain store, or a queue that feeds one."""

    def add(self, obj: Any) -> None: ...

    def update(self, obj: Any) -> None: ...

    def delete(self, obj: Any) -> None: ...

    def list(self) -> list[Any]: ...

    def get(self, obj: Any) -> Any | None: ...

    def replace(self, items: builtins.list[Obj], resource_version: str) -> None: ...

    def resync(self) -> None: ...


class Indexer:
    """A Store with indices. `Indexer()` is a plain store keyed by `namespace/name` with the namespace index."""

    def __init__(
        self, key_func: KeyFunc = meta_namespace_key, indexers: Mapping[str, IndexFunc] | None = None
    ) -> None:
        self.key_func = key_func
        self._lock = threading.RLock()
        self._items: dict[str, Obj] = {}
        self._indexers: dict[str, IndexFunc] = (
            dict(indexers) if indexers is not None else {NAMESPACE_INDEX: meta_namespace_index_func}
        )
        # Invariant: for every index name N, value V and key K, K is in _indices[N][V] iff K is in _items and V is
        # in _indexers[N](_items[K]); no value maps to an empty set.
        self._indices: dict[str, dict[str, set[str]]] = {name: {} for name in self._indexers}

    # -- index bookkeeping ------------------------------------------------------------------------------------

    def _unindex(self, key: str, obj: Obj) -> None:
        for name, func in self._indexers.items():
            index = self._indices[name]
            for value in func(obj):
                keys = index.get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del index[value]

    def _index(self, key: str, obj: Obj) -> None:
        for name, func in self._indexers.items():
            index = self._indices[name]
            for value in func(obj):
                index.setdefault(value, set()).add(key)

    def _put(self, key: str, obj: Obj) -> None:
        old = self._items.get(key)
        if old is not None:
            self._unindex(key, old)
        self._items[key] = obj
        self._index(key, obj)

    # -- Store ------------------------------------------------------------------------------------------------

    def add(self, obj: Obj) -> None:
        key = self.key_func(obj)
        with self._lock:
            self._put(key, obj)

    update = add

    def delete(self, obj: Obj | DeletedFinalStateUnknown) -> None:
        key = self.key_func(obj)
        self.delete_key(key)

    def delete_key(self, key: str) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._unindex(key, old)

    def list(self) -> list[Obj]:
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        with self._lock:
            return list(self._items)

    def get(self, obj: Obj) -> Obj | None:
        return self.get_by_key(self.key_func(obj))

    def get_by_key(self, key: str) -> Obj | None:
        with self._lock:
            return self._items.get(key)

    def replace(self, items: Iterable[Obj], resource_version: str = "") -> None:
        """Make the store hold exactly `items` (the resource version is not kept by a plain store)."""
        fresh = {self.key_func(obj): obj for obj in items}
        with self._lock:
            self._items = fresh
            self._indices = {name: {} for name in self._indexers}
            for key, obj in fresh.items():
                self._index(key, obj)

    def resync(self) -> None:
        """Nothing to do: a plain store has no queue to refill."""

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    # -- Indexer ----------------------------------------------------------------------------------------------

    def _index_named(self, name: str) -> tuple[IndexFunc, dict[str, set[str]]]:
        func = self._indexers.get(name)
        if func is None:
            raise IndexNotFoundError(name)
        return func, self._indices[name]

    def index(self, index_name: str, obj: Obj) -> builtins.list[Obj]:
        """Objects that share at least one value of `index_name` with `obj`."""
        with self._lock:
            func, index = self._index_named(index_name)
            keys: set[str] = set()
            for value in func(obj):
                keys |= index.get(value, set())
            return [self._items[key] for key in keys]

    def index_keys(self, index_name: str, value: str) -> builtins.list[str]:
        with self._lock:
            _, index = self._index_named(index_name)
            return sorted(index.get(value, ()))

    def by_index(self, index_name: str, value: str) -> builtins.list[Obj]:
        with self._lock:
            _, index = self._index_named(index_name)
            return [self._items[key] for key in index.get(value, ())]

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        with self._lock:
            _, index = self._index_named(index_name)
            return list(index)

    def get_indexers(self) -> dict[str, IndexFunc]:
        with self._lock:
            return dict(self._indexers)

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        """Add indices (existing objects are indexed right away); a name may be used once."""
        with self._lock:
            taken = sorted(set(indexers) & set(self._indexers))
            if taken:
                raise IndexConflictError(f"indexer conflict: {taken}")
            for name, func in indexers.items():
                self._indexers[name] = func
                index: dict[str, set[str]] = {}
                for key, obj in self._items.items():
                    for value in func(obj):
                        index.setdefault(value, set()).add(key)
                self._indices[name] = index

    def check_invariants(self) -> None:
        """Rebuild every index from scratch and compare (tests call this after each step)."""
        with self._lock:
            for name, func in self._indexers.items():
                expected: dict[str, set[str]] = {}
                for key, obj in self._items.items():
                    for value in func(obj):
                        expected.setdefault(value, set()).add(key)
                if expected != self._indices[name]:
                    raise AssertionError(f"index {name!r} is {self._indices[name]}, expected {expected}")
