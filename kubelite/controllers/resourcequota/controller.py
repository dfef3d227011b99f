"""The resource quota controller (kube's pkg/controller/resourcequota): keeps every ResourceQuota's
status.hard and status.used current, over HTTP as `system:kube-controller-manager`.

A quota is recalculated when it changes, whenever an object of a kind it may count changes in its namespace
(kube's replenishment), when a deleted pod's grace period runs out (it stops being charged then), and on a
full resync every five minutes. Pods, services, claims, config maps, secrets, replication controllers and
quotas have informers from the start; a `count/<resource>.<group>` of any other resource gets one, found
through discovery, the first time a quota asks for it (kube's quota monitor discovers them up front).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.factory import GenericInformer
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, Conflict, NotFound
from kubelite.controllers.resourcequota.resources import mapping
from kubelite.controllers.resourcequota.usage import (
    CORE_EVALUATORS,
    GroupResource,
    charge_ends_at,
    count_target,
    quota_status,
)

log = logging.getLogger(__name__)

QUOTAS = ("", "v1", "resourcequotas")
#: kube's --resource-quota-sync-period
FULL_RESYNC_SECONDS = 300.0
#: how soon a quota waiting for a new informer's first list is tried again
_WAIT_FOR_SYNC_SECONDS = 0.5


class ResourceQuotaController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.quotas = clients.informers.for_resource(QUOTAS)
        self.api = clients.resource(*QUOTAS)
        self.controller = Controller("resourcequota", self.reconcile, workers=1, clock=self.clock)
        # a quota's own change, and any quota's (count/resourcequotas), recalculates the namespace's quotas
        self.controller.watch(self.quotas.informer, keys=self._quotas_of)
        self.tracked: dict[GroupResource, GenericInformer] = {}
        for group, resource in CORE_EVALUATORS:
            self._track((group, resource), (group, "v1", resource))
        #: resources a quota counts that the server does not serve (or not as a namespaced list and watch)
        self._unserved: set[GroupResource] = set()

    def _track(self, gr: GroupResource, gvr: tuple[str, str, str]) -> GenericInformer:
        informer = self.tracked[gr] = self.clients.informers.for_resource(gvr)
        if gr != ("", "resourcequotas"):
            self.controller.watch(informer.informer, keys=self._quotas_of)
        return informer

    def _quotas_of(self, obj: Any) -> list[str]:
        namespace = mapping(obj.get("metadata")).get("namespace", "")
        if not namespace:
            return []
        return [meta_namespace_key(quota) for quota in self.quotas.lister.namespace(namespace).list()]

    async def _ensure_tracked(self, quota: Obj) -> bool:
        """Informers for every `count/` resource the quota names; False while one has not listed yet."""
        ready = True
        for name in mapping(quota.get("spec")).get("hard") or {}:
            gr = count_target(str(name))
            if gr is None or gr in self.tracked or gr in self._unserved:
                continue
            served = [
                r for r in await self.clients.dynamic.discovery.resources()
                if (r.gvr.group, r.gvr.resource) == gr and {"list", "watch"} <= set(r.verbs) and r.namespaced
            ]  # fmt: skip
            if not served:
                self._unserved.add(gr)  # counted as nothing, as kube's monitor never counts what it cannot watch
                continue
            chosen = next((r for r in served if r.preferred), served[0])
            self._track(gr, (chosen.gvr.group, chosen.gvr.version, chosen.gvr.resource))
            self.clients.informers.start()
        for name in mapping(quota.get("spec")).get("hard") or {}:
            gr = count_target(str(name))
            informer = self.tracked.get(gr) if gr is not None else None
            if informer is not None and not informer.informer.has_synced():
                ready = False
        return ready

    def _list(self, namespace: str, gr: GroupResource) -> list[Obj] | None:
        if gr in self._unserved:
            return []
        informer = self.tracked.get(gr)
        if informer is None:
            return None
        return list(informer.lister.namespace(namespace).list())

    async def reconcile(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            quota = self.quotas.lister.namespace(namespace).get(name)
        except NotFound:
            return None
        try:
            ready = await self._ensure_tracked(quota)
        except ApiError as exc:
            log.info("resourcequota: discovery failed, counting what is known: %s", exc)
            ready = True
        if not ready:
            return _WAIT_FOR_SYNC_SECONDS
        now = datetime.fromtimestamp(self.clock.now(), UTC)
        status = quota_status(quota, lambda gr: self._list(namespace, gr), now)
        if status != _normalised(quota.get("status")):
            try:
                await self.api.namespace(namespace).update_status({**quota, "status": status})
            except (Conflict, NotFound):
                return None  # a newer quota (or its deletion) is on its way through the informer
        return self._next_check(namespace, now)

    def _next_check(self, namespace: str, now: datetime) -> float:
        """The full resync, or sooner when a deleted pod's grace runs out before it."""
        wait = FULL_RESYNC_SECONDS
        for pod in self.tracked[("", "pods")].lister.namespace(namespace).list():
            ends = charge_ends_at(pod)
            if ends is not None and ends >= now:
                wait = min(wait, (ends - now).total_seconds() + 1.0)
        return wait

    async def run(self) -> None:
        await self.controller.run()


def _normalised(status: object) -> dict[str, Any]:
    found = mapping(status)
    return {"hard": dict(mapping(found.get("hard"))), "used": dict(mapping(found.get("used")))}
