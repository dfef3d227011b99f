"""Namespace deletion (kube's namespace controller): once a namespace is terminating, delete everything in
it, then remove the `kubernetes` finalizer, and the namespace goes.

Built on kubelite.client's machinery: the shared informer on namespaces (over the registry, see informers.py)
feeds namespace names into a work queue; workers reconcile one name at a time, so a namespace is never
finalized by two workers at once while several namespaces are emptied side by side.
"""

from __future__ import annotations

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.builtin import Registry
from kubelite.registry.core.namespaces import FINALIZER
from kubelite.registry.options import DeleteParams, ListParams, WriteParams

#: kube-controller-manager's default --concurrent-namespace-syncs
WORKERS = 10
#: seconds between passes while content is still going away (pods in their grace period, finalizers)
RECHECK_AFTER = 1.0
#: passes to wait for content before the namespace is finalized regardless
MAX_PASSES = 600


class NamespaceController:
    def __init__(
        self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None
    ) -> None:
        self.registry = registry
        namespaces = informers.for_resource("", "namespaces")
        self.namespaces: Lister = namespaces.lister
        self.controller = Controller("namespace", self.reconcile, workers=WORKERS, clock=clock)
        self.controller.watch(namespaces.informer)
        self.store = registry.store("", "namespaces")
        self.finalize = registry.status_strategies[("", "namespaces")]["finalize"]
        #: passes made so far over each terminating namespace's content
        self._passes: dict[str, int] = {}

    async def reconcile(self, name: str) -> float | None:
        try:
            namespace = self.namespaces.get(name)
        except NotFound:
            self._passes.pop(name, None)
            return None
        if not namespace["metadata"].get("deletionTimestamp"):
            self._passes.pop(name, None)
            return None
        try:
            if await self._delete_content(name):
                passes = self._passes[name] = self._passes.get(name, 0) + 1
                if passes < MAX_PASSES:
                    return RECHECK_AFTER
            self._passes.pop(name, None)
            await self._finalize(name)
        except StatusError as exc:
            if exc.code != 404:
                raise
            self._passes.pop(name, None)
        return None

    async def _delete_content(self, name: str) -> int:
        """Delete every namespaced object of `name` at once; how many are still terminating."""
        remaining = 0
        for store in self.registry.stores.values():
            if not store.spec.namespaced:
                continue
            deleted = await store.delete_collection(name, ListParams(), DeleteParams(grace_period_seconds=0))
            remaining += len([o for o in deleted["items"] if o["metadata"].get("deletionTimestamp")])
        return remaining

    async def _finalize(self, name: str) -> None:
        async def drop_finalizer(current: Obj | None) -> Obj:
            if current is None:
                raise StatusError(404, "NotFound", "gone")
            spec = dict(current.get("spec") or {})
            spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != FINALIZER]
            current["spec"] = spec
            return current

        await self.store.update("", name, drop_finalizer, WriteParams(), strategy=self.finalize, allow_create=False)
        await self.store.delete("", name, DeleteParams())

    async def run(self) -> None:
        await self.controller.run()
