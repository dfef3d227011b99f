"""Keeping what is served in step with the CRDs (the informer side of kube's crdHandler, which rebuilds a
CRD's storage when the CRD changes and drops it when the CRD goes)."""

from __future__ import annotations

from kubelite.apiextensions import names
from kubelite.apiextensions.serving import CustomResourceServing
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.informers import RegistryInformerFactory


class ServingController:
    def __init__(
        self, serving: CustomResourceServing, informers: RegistryInformerFactory, *, clock: Clock | None = None
    ) -> None:
        self.serving = serving
        crds = informers.for_resource(names.GROUP, "customresourcedefinitions")
        self.crds: Lister = crds.lister
        self.controller = Controller("crd-serving", self.reconcile, clock=clock)
        self.controller.watch(crds.informer)

    async def reconcile(self, name: str) -> None:
        try:
            crd = self.crds.get(name)
        except NotFound:
            await self.serving.remove(name)
            return
        await self.serving.sync(crd)

    async def run(self) -> None:
        await self.controller.run()
