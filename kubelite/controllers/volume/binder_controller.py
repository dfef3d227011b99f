"""The persistentvolume binder (kube's persistentvolume-binder-controller) over HTTP, as
`system:kube-controller-manager`.

One queue holds both kinds of key: a claim's `namespace/name` and a volume's `name` (a volume's name never
has a slash). A claim is synced when it changes; a volume when it changes, and with it the claim its
claimRef names; a deleted claim syncs the volume it was bound to (so the reclaim policy runs); a volume
turning Available syncs the claims still unbound. A claim left waiting is looked at again after
RESYNC_SECONDS, as kube's periodic resync does.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import Conflict, NotFound
from kubelite.controllers.volume.binder import Plan, sync_claim, sync_volume
from kubelite.controllers.volume.names import ANN_BIND_COMPLETED, annotations_of, claim_ref_key, spec

log = logging.getLogger(__name__)

VOLUMES = ("", "v1", "persistentvolumes")
CLAIMS = ("", "v1", "persistentvolumeclaims")
CLASSES = ("storage.k8s.io", "v1", "storageclasses")
#: kube-controller-manager's --pvclaimbinder-sync-period
RESYNC_SECONDS = 15.0
#: the binder records its events as this component
EVENT_SOURCE = "persistentvolume-controller"


class PersistentVolumeBinder:
    def __init__(self, clients: ComponentClient) -> None:
        self.clock = clients.clock
        self.volumes = clients.informers.for_resource(VOLUMES)
        self.claims = clients.informers.for_resource(CLAIMS)
        self.classes = clients.informers.for_resource(CLASSES)
        self.volume_api = clients.resource(*VOLUMES)
        self.claim_api = clients.resource(*CLAIMS)
        self.recorder = clients.recorder(EVENT_SOURCE)
        self.controller = Controller("persistentvolume-binder", self.reconcile, workers=2, clock=self.clock)
        self.controller.watch(self.claims.informer, keys=self._claim_keys)
        self.controller.watch(self.volumes.informer, keys=self._volume_keys)
        self.controller.watch(self.classes.informer, keys=lambda _: self._unbound_claims())

    def _claim_keys(self, claim: Any) -> list[str]:
        keys = [meta_namespace_key(claim)]
        if spec(claim).get("volumeName"):
            keys.append(str(spec(claim)["volumeName"]))
        return keys

    def _volume_keys(self, volume: Any) -> list[str]:
        keys = [meta_namespace_key(volume)]
        ref = claim_ref_key(volume)
        if ref is not None:
            keys.append(ref)
        elif (volume.get("status") or {}).get("phase") == "Available":
            keys += self._unbound_claims()
        return keys

    def _unbound_claims(self) -> list[str]:
        return [
            meta_namespace_key(claim)
            for claim in self.claims.lister.list()
            if ANN_BIND_COMPLETED not in annotations_of(claim)
        ]

    def _now(self) -> str:
        return rfc3339(datetime.fromtimestamp(self.clock.now(), UTC))

    async def reconcile(self, key: str) -> float | None:
        if "/" in key:
            return await self._sync_claim(key)
        return await self._sync_volume(key)

    async def _sync_claim(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            claim = self.claims.lister.namespace(namespace).get(name)
        except NotFound:
            return None
        volumes = {volume["metadata"]["name"]: volume for volume in self.volumes.lister.list()}
        classes = {cls["metadata"]["name"]: cls for cls in self.classes.lister.list()}
        plan = sync_claim(claim, volumes, classes, self._now())
        await self._apply(plan, claim, plan.volume or plan.bound_volume)
        return RESYNC_SECONDS if plan.pending else None

    async def _sync_volume(self, name: str) -> float | None:
        try:
            volume = self.volumes.lister.get(name)
        except NotFound:
            return None
        claim: Obj | None = None
        ref = claim_ref_key(volume)
        if ref is not None:
            namespace, claim_name = split_meta_namespace_key(ref)
            try:
                claim = self.claims.lister.namespace(namespace).get(claim_name)
            except NotFound:
                claim = None
        plan = sync_volume(volume, claim, self._now())
        await self._apply(plan, claim, volume)
        for key in plan.enqueue_claims:
            self.controller.queue.add(key)
        return None

    async def _apply(self, plan: Plan, claim: Obj | None, volume: Obj | None) -> None:
        """The plan's writes in kube's order; a write that loses a race ends the sync (the newer object
        the informer brings syncs again)."""
        try:
            if plan.volume is not None:
                volume = await self.volume_api.update(plan.volume)
            if plan.volume_status is not None and volume is not None:
                volume = await self.volume_api.update_status({**volume, "status": plan.volume_status})
            if plan.claim is not None:
                claim = await self.claim_api.namespace(plan.claim["metadata"]["namespace"]).update(plan.claim)
            if plan.claim_status is not None and claim is not None:
                namespace = claim["metadata"]["namespace"]
                claim = await self.claim_api.namespace(namespace).update_status({**claim, "status": plan.claim_status})
        except (Conflict, NotFound) as exc:
            log.info("persistentvolume-binder: %s, syncing again", exc)
            raise
        for event in plan.events:
            target = claim if event.about == "claim" else volume
            if target is not None:
                self.recorder.event(target, event.type, event.reason, event.message)

    async def run(self) -> None:
        await self.controller.run()
