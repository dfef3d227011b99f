"""What a served path's storage can do, one small Protocol per capability (kube's `registry/rest/rest.go`).

The route installer and discovery ask a storage object which of these it implements (as kube's
`registerResourceHandlers` does with type assertions), so the verbs a path serves and lists are the methods its
storage has: a resource without `delete_collection` has no deletecollection route, whatever its name. The
generic Store implements every verb Protocol; a subresource's storage (status, finalize, scale, binding, log)
implements the few it serves, and so do storages that convert another one (events.k8s.io over core/v1).

`discovery_verbs` turns an object's capabilities into discovery's sorted verb list; `Connecter`s (paths served
by their own handler) name the HTTP methods they take instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kubelite.apimachinery.meta import Obj
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.spec import ResourceSpec

if TYPE_CHECKING:
    from kubelite.registry.tables.base import TableSpec

#: turns the stored object (None when absent) into the desired one; raising aborts the update
UpdateFunc = Callable[[Obj | None], Awaitable[Obj]]
#: the caller's changes to the defaulted object (new, stored or None) before the strategy runs
MutateFunc = Callable[[Obj, Obj | None], Awaitable[Obj]]
#: admission's validating step, called on a copy of the final object before it is written
ValidateFunc = Callable[[Obj, Obj | None], Awaitable[None]]


# -- what every storage describes ------------------------------------------------------------------------


@runtime_checkable
class Storage(Protocol):
    """Every served path's storage (kube's rest.Storage): the resource it belongs to."""

    spec: ResourceSpec


@runtime_checkable
class Scoper(Protocol):
    def namespace_scoped(self) -> bool: ...


@runtime_checkable
class ShortNamesProvider(Protocol):
    def short_names(self) -> tuple[str, ...]: ...


@runtime_checkable
class CategoriesProvider(Protocol):
    def categories(self) -> tuple[str, ...]: ...


@runtime_checkable
class SingularNameProvider(Protocol):
    def singular_name(self) -> str: ...


@runtime_checkable
class GroupVersionKindProvider(Protocol):
    """A path that answers with another kind than its resource's (a scale subresource: autoscaling/v1 Scale)."""

    def group_version_kind(self) -> tuple[str, str, str]: ...


class DescribedBySpec:
    """The describing Protocols answered from the resource's ResourceSpec, for storages that hold one, and the
    TableConvertor from the printer the resource's home binds to `table` (None: kube's default table)."""

    spec: ResourceSpec
    table: TableSpec | None = None

    def table_convertor(self) -> TableSpec:
        if self.table is None:
            from kubelite.registry.tables.base import default_table  # the printers import the storages they print

            return default_table()
        return self.table

    def namespace_scoped(self) -> bool:
        return self.spec.namespaced

    def short_names(self) -> tuple[str, ...]:
        return self.spec.short_names

    def categories(self) -> tuple[str, ...]:
        return self.spec.categories

    def singular_name(self) -> str:
        return self.spec.singular


# -- verbs ------------------------------------------------------------------------------------------------


@runtime_checkable
class Getter(Protocol):
    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj: ...


@runtime_checkable
class Lister(Protocol):
    async def list(self, namespace: str, params: ListParams) -> Obj: ...


@runtime_checkable
class Watcher(Protocol):
    async def watch(self, namespace: str, params: ListParams) -> AsyncIterator[Any]: ...


@runtime_checkable
class Creater(Protocol):
    async def create(
        self,
        namespace: str,
        obj: Obj,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
    ) -> Obj: ...


@runtime_checkable
class Updater(Protocol):
    async def update(
        self, namespace: str, name: str, update: UpdateFunc, params: WriteParams, **options: Any
    ) -> tuple[Obj, bool]: ...


@runtime_checkable
class Patcher(Getter, Updater, Protocol):
    """kube's Patcher: a patch is a get, then an update of what the patch made of it."""


@runtime_checkable
class GracefulDeleter(Protocol):
    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]: ...


@runtime_checkable
class CollectionDeleter(Protocol):
    async def delete_collection(self, namespace: str, list_params: ListParams, params: DeleteParams) -> Obj: ...


@runtime_checkable
class TableConvertor(Protocol):
    """What `kubectl get` prints for the objects of this path (kube's rest.TableConvertor)."""

    def table_convertor(self) -> Any: ...


@runtime_checkable
class Connecter(Protocol):
    """A path served by a handler of its own rather than by the verb handlers (kube's rest.Connecter, which
    serves pods/exec and pods/proxy): it names the HTTP methods it takes; its handler is the route installer's."""

    def connect_methods(self) -> tuple[str, ...]: ...


# -- from capabilities to verbs ---------------------------------------------------------------------------

#: each verb and the capability that serves it, in discovery's (sorted) order
_VERB_CAPABILITIES: tuple[tuple[str, type], ...] = (
    ("create", Creater),
    ("delete", GracefulDeleter),
    ("deletecollection", CollectionDeleter),
    ("get", Getter),
    ("list", Lister),
    ("patch", Patcher),
    ("update", Updater),
    ("watch", Watcher),
)

#: the verb each HTTP method of a Connecter is authorized and listed as
CONNECT_VERBS: dict[str, str] = {"POST": "create", "GET": "get", "PATCH": "patch", "PUT": "update", "DELETE": "delete"}


def discovery_verbs(storage: object) -> tuple[str, ...]:
    """The verbs `storage` serves, sorted as discovery lists them."""
    if isinstance(storage, Connecter):
        return tuple(sorted({CONNECT_VERBS[method] for method in storage.connect_methods()}))
    return tuple(verb for verb, capability in _VERB_CAPABILITIES if isinstance(storage, capability))


__all__ = [
    "CONNECT_VERBS",
    "CategoriesProvider",
    "CollectionDeleter",
    "Connecter",
    "Creater",
    "DescribedBySpec",
    "Getter",
    "GracefulDeleter",
    "GroupVersionKindProvider",
    "Lister",
    "MutateFunc",
    "Patcher",
    "Scoper",
    "ShortNamesProvider",
    "SingularNameProvider",
    "Storage",
    "TableConvertor",
    "UpdateFunc",
    "Updater",
    "ValidateFunc",
    "Watcher",
    "discovery_verbs",
]
