"""A served version's view of a custom resource's storage: objects converted to the version on the way out
and to the storage version on the way in, and defaulted by the version's schema when read (kube's custom
resource codec: decoding from storage converts and defaults, encoding converts to the storage version).

Objects of a custom resource are stored in whichever version was the storage version when they were
written, so any read may need a conversion. A version that is the only one ever stored and whose schema has
no defaults reads the watch cache directly instead, keeping its shared objects and pre-encoded watch events;
this view is for the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from kubelite.apiextensions.conversion import Converter
from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.storage.interface import (
    EventType,
    ListOptions,
    ListResult,
    Preconditions,
    Storage,
    TryUpdate,
    ValidateDeletion,
    Watcher,
    WatchEvent,
)


class _ConvertingWatcher:
    def __init__(self, inner: Watcher, view: VersionedStorage) -> None:
        self._inner = inner
        self._view = view

    def owes(self, key: str) -> bool:
        return self._inner.owes(key)

    def stop(self) -> None:
        self._inner.stop()

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[WatchEvent]:
        view = self._view
        async for event in self._inner:
            if event.type in (EventType.BOOKMARK, EventType.ERROR):
                yield event
                continue
            obj = await view.read(event.obj)
            prev = await view.read(event.prev) if event.prev is not None else None
            yield WatchEvent(event.type, event.key, obj, event.revision, prev)


class VersionedStorage:
    """`Storage` for one served version over the resource's shared storage (the watch cache)."""

    def __init__(
        self,
        inner: Storage,
        api_version: str,
        storage_api_version: Callable[[], str],
        converter: Converter,
        default: Callable[[Obj], None] | None,
        prune: Callable[[Obj], None] | None = None,
    ) -> None:
        self.inner = inner
        self.api_version = api_version
        #: the version objects are written in now (a CRD update may move it)
        self._storage_api_version = storage_api_version
        self._converter = converter
        self._default = default
        #: drops what the schema of a converted object's version does not know (kube prunes after converting)
        self._prune = prune

    async def read(self, obj: Obj) -> Obj:
        """A stored object as this version shows it: converted and defaulted, the caller's own."""
        # a private copy first: the cache's objects are shared, and hold encoded parts (Fragments) a webhook
        # cannot be sent
        obj = deep_copy(obj)
        converted = obj.get("apiVersion") != self.api_version
        if converted:
            (obj,) = await self._converter.convert([obj], self.api_version)
        if converted and self._prune is not None:
            self._prune(obj)
        if self._default is not None:
            self._default(obj)
        return obj

    async def _read_all(self, objs: list[Obj]) -> list[Obj]:
        out = [deep_copy(obj) for obj in objs]
        foreign = [obj for obj in out if obj.get("apiVersion") != self.api_version]
        if foreign:
            converted = iter(await self._converter.convert(foreign, self.api_version))
            for index, obj in enumerate(out):
                if obj.get("apiVersion") != self.api_version:
                    out[index] = next(converted)
                    if self._prune is not None:
                        self._prune(out[index])
        if self._default is not None:
            for obj in out:
                self._default(obj)
        return out

    async def _write(self, obj: Obj) -> Obj:
        target = self._storage_api_version()
        if obj.get("apiVersion") == target:
            return obj
        (converted,) = await self._converter.convert([deep_copy(obj)], target)
        if self._prune is not None:
            self._prune(converted)
        return converted

    # -- Storage -------------------------------------------------------------------------------------

    async def create(self, key: str, obj: Obj) -> Obj:
        return await self.read(await self.inner.create(key, await self._write(obj)))

    async def get(self, key: str) -> Obj:
        return await self.read(await self.inner.get(key))

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        # selectors match what this version serves (a field a default fills, a field the conversion moves), so
        # they run after the conversion; a page may then hold fewer than `limit`, as kube's may
        predicate = opts.predicate
        if predicate is not None:
            opts = replace(opts, predicate=None, label=None)
        result = await self.inner.get_list(prefix, opts)
        items = await self._read_all(result.items)
        keys = result.keys
        if predicate is not None:
            kept = [i for i, item in enumerate(items) if predicate(item)]
            items = [items[i] for i in kept]
            keys = [keys[i] for i in kept] if keys is not None else None
        return ListResult(items, result.revision, result.next_key, None if predicate else result.remaining, keys)

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        async def converted(current: Obj | None) -> Obj:
            new = await try_update(await self.read(current) if current is not None else None)
            return await self._write(new)

        updated = await self.inner.guaranteed_update(
            key, converted, ignore_not_found=ignore_not_found, preconditions=preconditions
        )
        return await self.read(updated)

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        cached: Obj | None = None,
    ) -> Obj:
        validate: ValidateDeletion | None = None
        if validate_deletion is not None:
            check = validate_deletion

            async def validate(current: Obj) -> None:
                await check(await self.read(current))

        return await self.read(await self.inner.delete(key, preconditions=preconditions, validate_deletion=validate))

    def watch(
        self,
        prefix: str,
        from_revision: int,
        *,
        predicate: Callable[[Obj], bool] | None = None,
        progress_notify: bool = False,
    ) -> Watcher:
        inner = self.inner.watch(prefix, from_revision, predicate=predicate, progress_notify=progress_notify)
        return _ConvertingWatcher(inner, self)

    async def request_progress(self) -> None:
        await self.inner.request_progress()

    async def current_revision(self) -> int:
        return await self.inner.current_revision()

    @property
    def compacted_revision(self) -> int:
        return self.inner.compacted_revision

    async def compact(self, revision: int) -> None:
        await self.inner.compact(revision)

    async def close(self) -> None:
        """The shared storage is closed by its owner, not by a version's view."""
