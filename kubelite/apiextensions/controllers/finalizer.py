"""Deleting a CRD's custom resources before the CRD goes (kube's CRDFinalizer).

A deleted CRD carries the `customresourcecleanup.apiextensions.k8s.io` finalizer and a Terminating
condition. This loop deletes every object of its resource (they get their own finalizers' and grace
periods' due), then waits until none is left, and only then removes the finalizer, which lets the CRD go.
The `Terminating` condition tells a reader how far it got, with kube's reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubelite.apiextensions import names
from kubelite.apiextensions.registry.customresourcedefinitions import set_condition
from kubelite.apiextensions.serving import CustomResourceServing
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
    def __init__(
        self,
        registry: Registry,
        serving: CustomResourceServing,
        informers: RegistryInformerFactory,
        *,
        clock: Clock | None = None,
    ) -> None:
        key = (names.GROUP, "customresourcedefinitions")
        self.registry = registry
        self.serving = serving
        self.status = registry.subresources[key]["status"]
        crds = informers.for_resource(*key)
        self.crds: Lister = crds.lister
        self.controller = Controller("crd-finalizer", self.reconcile, clock=clock)
        self.controller.watch(crds.informer, predicate=_deleting)

    async def _write_status(self, name: str, change: Callable[[Obj], bool]) -> None:
        """Write the CRD's status (and metadata: kube's CRD status strategy keeps both) when `change` changed
        something; a write that changes nothing is not made, so it wakes nobody."""

        async def write(current: Obj | None) -> Obj:
            assert current is not None
            if not change(current):
                raise _Unchanged
            return current

        try:
            await self.status.update("", name, write, WriteParams(), allow_create=False)
        except _Unchanged:
            pass

    def _terminating(self, status: str, reason: str, message: str) -> Callable[[Obj], bool]:
        def change(crd: Obj) -> bool:
            now = rfc3339(self.registry.clock.now())
            return set_condition(crd, "Terminating", status, reason, message, now)

        return change

    async def reconcile(self, name: str) -> float | None:
        try:
            crd = self.crds.get(name)
        except NotFound:
            return None
        if not _deleting(crd):
            return None
        if _terminating_reason(crd) in ("", "InstanceDeletionPending"):  # once, not on every look
            await self._write_status(
                name, self._terminating("True", "InstanceDeletionInProgress", "CustomResource deletion is in progress")
            )
        if self.serving.overlaps_builtin(crd):
            # the objects under this name are a built-in resource's: never the CRD's to delete
            done = self._terminating(
                "False", "OverlappingBuiltInResource", "instances overlap with built-in resources in storage"
            )
        elif names.is_established(crd):
            store = self.serving.storage_for(name)
            if store is None:
                return RECHECK_SECONDS  # its storage is being built: the serving controller is on it
            listed = await store.list("", ListParams())
            for item in listed["items"]:
                meta = item["metadata"]
                if meta.get("deletionTimestamp"):
                    continue
                try:
                    await store.delete(meta.get("namespace", ""), meta["name"], DeleteParams())
                except StatusError as exc:
                    if exc.code != 404:
                        raise
            if (await store.list("", ListParams(limit=1)))["items"]:
                # objects with finalizers of their own go when those are removed: look again later
                await self._write_status(
                    name,
                    self._terminating(
                        "True",
                        "InstanceDeletionCheck",
                        "could not confirm zero CustomResources remaining: timed out waiting for the condition",
                    ),
                )
                return RECHECK_SECONDS
            done = self._terminating("False", "InstanceDeletionCompleted", "removed all instances")
        else:
            done = self._terminating("False", "NeverEstablished", "resource was never established")

        def finish(current: Obj) -> bool:
            done(current)
            meta = current["metadata"]
            meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != names.CLEANUP_FINALIZER]
            return True

        # through /status, as kube's finalizer does: the CRD's own validation does not stand in the way
        await self._write_status(name, finish)
        return None

    async def run(self) -> None:
        await self.controller.run()


class _Unchanged(Exception):
    """A status write with nothing to write."""


def _terminating_reason(crd: Any) -> str:
    for condition in (crd.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Terminating":
            return str(condition.get("reason") or "")
    return ""


def _deleting(crd: Any) -> bool:
    meta = crd.get("metadata") or {}
    return bool(meta.get("deletionTimestamp")) and names.CLEANUP_FINALIZER in (meta.get("finalizers") or [])
