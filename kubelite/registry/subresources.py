"""Storage of the subresources a resource's own Store serves with another strategy: /status (get, update,
patch) and namespaces' /finalize (update only), as kube's StatusREST and FinalizeREST wrap the resource's
store. Their `strategy` is what the write handlers use for the subresource."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.options import WriteParams
from kubelite.registry.rest import DescribedBySpec, UpdateFunc
from kubelite.registry.store import Store
from kubelite.registry.strategy import Strategy


class SubresourceUpdater(DescribedBySpec):
    """Updates of the parent's objects through the subresource's strategy."""

    def __init__(self, parent: Store, strategy: Strategy) -> None:
        self.parent = parent
        self.spec = parent.spec
        self.strategy = strategy

    async def update(
        self, namespace: str, name: str, update: UpdateFunc, params: WriteParams, **options: Any
    ) -> tuple[Obj, bool]:
        options.setdefault("strategy", self.strategy)
        return await self.parent.update(namespace, name, update, params, **options)


class StatusStore(SubresourceUpdater):
    """/status: reads the object, writes only its status."""

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj:
        return await self.parent.get(namespace, name, shared=shared)


class FinalizeStore(SubresourceUpdater):
    """namespaces/finalize: a PUT of spec.finalizers, nothing else."""
