"""The storage of namespaces (the strategies are `namespaces.py`'s): two-step deletion and /finalize.

A namespace's first delete makes it Terminating while spec.finalizers remain; the namespace controller
empties it, clears the finalizers through /finalize and deletes again. kube serves no deletecollection for
namespaces, so this Store has none.
"""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.registry.core.namespaces import NamespaceFinalizeStrategy, NamespaceStrategy, mark_terminating
from kubelite.registry.options import DeleteParams
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext
from kubelite.registry.store import Store
from kubelite.registry.subresources import FinalizeStore
from kubelite.registry.tables.core import NAMESPACE_TABLE


class NamespaceStore(Store):
    #: not a CollectionDeleter: kube has no route deleting every namespace (a protocol check counts a method set
    #: to None as absent; the type checker sees an incompatible override, hence the ignore)
    delete_collection = None  # type: ignore[assignment]

    def on_deleting(self, obj: Obj) -> None:
        mark_terminating(obj)

    def finalizers_pending(self, obj: Obj) -> bool:
        return super().finalizers_pending(obj) or bool((obj.get("spec") or {}).get("finalizers"))

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]:
        current = await self.get(namespace, name)
        if (current.get("spec") or {}).get("finalizers"):
            return await self._mark_deleting(namespace, name, 0, params), False
        return await super().delete(namespace, name, params)


def new_storage(ctx: StorageContext) -> ResourceStorage:
    """namespaces, namespaces/status and namespaces/finalize."""
    store = ctx.store(NamespaceStrategy(ctx.spec), table=NAMESPACE_TABLE, store_type=NamespaceStore)
    return ctx.with_status(store, finalize=FinalizeStore(store, NamespaceFinalizeStrategy(store.strategy)))


REGISTRATION = Registration("", "namespaces", new_storage, NamespaceStrategy)
