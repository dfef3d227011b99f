"""kubelite's simulated provisioner (`kubelite.io/hostpath`, the default StorageClass's), over HTTP as
`system:kube-controller-manager`: it plays the part an external provisioner such as kind's local-path one
plays on a real cluster, making the volume of each claim the binder hands it and deleting the volumes it made
once Released with reclaim policy Delete. Nothing is written on any disk: the hostPath is a name.
"""

from __future__ import annotations

import logging
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import AlreadyExists, ApiError, NotFound
from kubelite.controllers.volume.binder_controller import CLAIMS, CLASSES, VOLUMES
from kubelite.controllers.volume.names import ANN_PROVISIONED_BY, PROVISIONER, annotations_of, claim_class
from kubelite.controllers.volume.provisioner import (
    asks_us,
    provisioned_volume,
    provisioning_message,
    should_delete,
    should_provision,
    succeeded_message,
)

log = logging.getLogger(__name__)


def _made_by_us(volume: Obj) -> bool:
    return annotations_of(volume).get(ANN_PROVISIONED_BY) == PROVISIONER


class VolumeProvisioner:
    def __init__(self, clients: ComponentClient) -> None:
        self.clock = clients.clock
        self.volumes = clients.informers.for_resource(VOLUMES)
        self.claims = clients.informers.for_resource(CLAIMS)
        self.classes = clients.informers.for_resource(CLASSES)
        self.volume_api = clients.resource(*VOLUMES)
        # the events of an external provisioner carry its own name as their source
        self.recorder = clients.recorder(PROVISIONER)
        self.controller = Controller("volume-provisioner", self.reconcile, workers=2, clock=self.clock)
        # claims by `namespace/name`, volumes by `name`, as the binder's queue
        self.controller.watch(self.claims.informer, predicate=asks_us)
        self.controller.watch(self.volumes.informer, predicate=_made_by_us)

    async def reconcile(self, key: str) -> float | None:
        if "/" in key:
            await self._provision(key)
        else:
            await self._delete(key)
        return None

    def _class_of(self, claim: Obj) -> Obj | None:
        try:
            return self.classes.lister.get(claim_class(claim))
        except NotFound:
            return None

    async def _provision(self, key: str) -> None:
        namespace, name = split_meta_namespace_key(key)
        try:
            claim = self.claims.lister.namespace(namespace).get(name)
        except NotFound:
            return
        storage_class = self._class_of(claim)
        if not should_provision(claim, storage_class):
            return
        assert storage_class is not None
        volume = provisioned_volume(claim, storage_class)
        try:
            self.volumes.lister.get(volume["metadata"]["name"])
            return  # made already; the binder binds it
        except NotFound:
            pass
        self.recorder.event(claim, "Normal", "Provisioning", provisioning_message(claim))
        try:
            await self.volume_api.create(volume)
        except AlreadyExists:
            return
        except ApiError as exc:
            message = f'failed to provision volume with StorageClass "{claim_class(claim)}": {exc}'
            self.recorder.event(claim, "Warning", "ProvisioningFailed", message)
            raise
        self.recorder.event(claim, "Normal", "ProvisioningSucceeded", succeeded_message(claim))

    async def _delete(self, name: str) -> None:
        try:
            volume: Any = self.volumes.lister.get(name)
        except NotFound:
            return
        if not should_delete(volume):
            return
        try:
            await self.volume_api.delete(name, preconditions={"uid": volume["metadata"]["uid"]})
        except NotFound:
            return
        log.info("volume-provisioner: deleted volume %s (%s)", name, meta_namespace_key(volume))

    async def run(self) -> None:
        await self.controller.run()
