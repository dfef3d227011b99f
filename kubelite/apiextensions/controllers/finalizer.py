"""Deleting a CRD's custom resources before the CRD goes (kube's CRDFinalizer).

A deleted CRD carries the `customresourcecleanup.apiextensions.k8s.io` finalizer and a Terminating
condition. This loop deletes every object of its resource (they get their own finalizers' and grace
periods' due), then waits until none is left, and only then removes the finalizer, which lets the CRD go.
The `Terminating` condition tells a reader how far it got, with kube's reasons.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiextensions import names
from kubelite.apiextensions.registry.customresourcedefinitions import set_condition
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.registration import Registry

#: seconds between checks that the last custom resources are gone (they may have finalizers of their own)
RECHECK_SECONDS = 1.0


class FinalizerController:
    def __init__(self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None) -> None:
        key = (names.GROUP, "customresourcedefinitions")
        self.registry = registry
        self.crd_store = registry.store(*key)
        self.status = registry.subresources[key]["status"]
        crds = informers.for_resource(*key)
        self.crds: Lister = crds.lister
        self.controller = Controller("crd-finalizer", self.reconcile, clock=clock)
        self.controller.watch(crds.informer, predicate=_deleting)

    async def _condition(self, name: str, reason: str, message: str) -> None:
        async def write(current: Obj | None) -> Obj:
            assert current is not None
            set_condition(current, "Terminating", "True", reason, message, rfc3339(self.registry.clock.now()))
            return current

        await self.status.update("", name, write, WriteParams(), allow_create=False)

    async def reconcile(self, name: str) -> float | None:
        try:
            crd = self.crds.get(name)
        except NotFound:
            return None
        if not _deleting(crd):
            return None
        spec = crd.get("spec") or {}
        store = self.registry.stores.get((str(spec.get("group") or ""), str(names.accepted_names(crd).get("plural"))))
        if store is not None:
            await self._condition(name, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
            listed = await store.list("", ListParams())
            for item in listed["items"]:
                meta = item["metadata"]
                try:
                    await store.delete(meta.get("namespace", ""), meta["name"], DeleteParams())
                except StatusError as exc:
                    if exc.code != 404:
                        raise
            remaining = (await store.list("", ListParams()))["items"]
            if remaining:
                await self._condition(
                    name,
                    "InstanceDeletionCheck",
                    f"could not confirm zero CustomResources remaining: {len(remaining)} remaining",
                )
                return RECHECK_SECONDS
        await self._condition(name, "InstanceDeletionCompleted", "removed all instances")

        async def drop_finalizer(current: Obj | None) -> Obj:
            assert current is not None
            meta = current["metadata"]
            meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != names.CLEANUP_FINALIZER]
            return current

        await self.crd_store.update("", name, drop_finalizer, WriteParams(), allow_create=False)
        return None

    async def run(self) -> None:
        await self.controller.run()


def _deleting(crd: Any) -> bool:
    meta = crd.get("metadata") or {}
    return bool(meta.get("deletionTimestamp")) and names.CLEANUP_FINALIZER in (meta.get("finalizers") or [])
