"""events.k8s.io/v1 Events are core/v1 Events seen through a conversion, as in kube: one store, two APIs.

kube keeps one copy of every event (under /registry/events) and converts between the two group versions;
an event recorded through either API shows in both (`kubectl describe` reads core/v1, client-go's new
recorder writes events.k8s.io/v1).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.rest import DescribedBySpec, MutateFunc, UpdateFunc, ValidateFunc
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.storage.interface import WatchEvent

if TYPE_CHECKING:
    from kubelite.registry.tables.base import TableSpec

#: events.k8s.io/v1 field -> core/v1 field, for the fields whose names differ
_RENAMED = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_SAME = ("metadata", "eventTime", "series", "reportingInstance", "action", "reason", "related", "type")
_CORE_TO_V1 = {core: v1 for v1, core in _RENAMED.items()}
#: events.k8s.io/v1 field labels -> the stored (core) ones; kube accepts the core labels as well
_FIELD_LABELS = {
    **{f"regarding.{key}": f"involvedObject.{key}"
       for key in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
    "reportingController": "reportingComponent",
}  # fmt: skip


def _core_params(params: ListParams) -> ListParams:
    """The list options with the selector's events.k8s.io field labels named as the core store knows them."""
    selector = params.field_selector
    if selector is None or not any(r.field in _FIELD_LABELS for r in selector.requirements):
        return params
    core = selector.transform(lambda name, value: (_FIELD_LABELS.get(name, name), value))
    return replace(params, field_selector=core)


def to_events_v1(core: Obj) -> Obj:
    out: Obj = {"kind": "Event", "apiVersion": "events.k8s.io/v1"}
    for key, value in core.items():
        if key in _SAME:
            out[key] = value
        elif key in _CORE_TO_V1:
            out[_CORE_TO_V1[key]] = value
    return out


def to_core(event: Obj) -> Obj:
    out: Obj = {"kind": "Event", "apiVersion": "v1"}
    for key, value in event.items():
        if key in _SAME:
            out[key] = value
        elif key in _RENAMED:
            out[_RENAMED[key]] = value
    return out


class _ConvertingWatcher:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def stop(self) -> None:
        self._inner.stop()

    def request_bookmark(self) -> None:
        self._inner.request_bookmark()

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[WatchEvent]:
        async for event in self._inner:
            if event.obj.get("kind") == "Event":
                event = WatchEvent(event.type, event.key, to_events_v1(event.obj), event.revision)
            yield event


class EventsV1Store(DescribedBySpec):
    """events.k8s.io/v1 over the core/v1 events Store: the Store's verb Protocols (`registry.rest`), each
    converting on the way in and out."""

    def __init__(self, spec: ResourceSpec, core: Store, *, table: TableSpec | None = None) -> None:
        self.spec = spec
        self.core = core
        self.strategy = core.strategy
        self.table = table

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj:
        return to_events_v1(await self.core.get(namespace, name, shared=shared))

    async def list(self, namespace: str, params: ListParams) -> Obj:
        listed = await self.core.list(namespace, _core_params(params))
        return {
            **listed,
            "kind": "EventList",
            "apiVersion": self.spec.api_version,
            "items": [to_events_v1(item) for item in listed["items"]],
        }

    async def watch(self, namespace: str, params: ListParams) -> _ConvertingWatcher:
        return _ConvertingWatcher(await self.core.watch(namespace, _core_params(params)))

    async def create(
        self,
        namespace: str,
        obj: Obj,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
    ) -> Obj:
        """Create through core/v1: `mutate` sees the events.k8s.io object, core defaults the converted one."""
        if mutate is not None:
            obj = await mutate(obj, None)
        self._check_type(obj)
        return to_events_v1(await self.core.create(namespace, to_core(obj), params, validate=validate))

    async def update(
        self,
        namespace: str,
        name: str,
        update: UpdateFunc,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        **kwargs: Any,
    ) -> tuple[Obj, bool]:
        async def converted(current: Obj | None) -> Obj:
            old = to_events_v1(current) if current is not None else None
            new = await update(old)
            if mutate is not None:
                new = await mutate(new, old)
            self._check_type(new)
            return to_core(new)

        kwargs.pop("strategy", None)
        result, created = await self.core.update(namespace, name, converted, params, **kwargs)
        return to_events_v1(result), created

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]:
        obj, deleted = await self.core.delete(namespace, name, params)
        return to_events_v1(obj), deleted

    async def delete_collection(self, namespace: str, list_params: ListParams, params: DeleteParams) -> Obj:
        listed = await self.core.delete_collection(namespace, _core_params(list_params), params)
        return {
            **listed,
            "kind": "EventList",
            "apiVersion": self.spec.api_version,
            "items": [to_events_v1(item) for item in listed["items"]],
        }

    def _check_type(self, obj: Obj) -> None:
        api_version = obj.get("apiVersion")
        if api_version and api_version != self.spec.api_version:
            raise errors.bad_request(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({self.spec.api_version})"
            )
