"""The resource quota controller (kube's pkg/controller/resourcequota): keeps every ResourceQuota's
status.hard and status.used current, over HTTP as `system:kube-controller-manager`.

A quota is recalculated when it is created or its limits change, whenever an object of a kind it limits
changes in its namespace (kube's replenishment), when a deleted pod's grace period runs out (it stops being
charged then), and on a full resync every five minutes. Pods, services, claims, config maps, secrets,
replication controllers and quotas have informers from the start; a `count/<resource>.<group>` of any other
resource gets one, found through discovery, the first time a quota asks for it (kube's quota monitor
discovers them up front).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.factory import GenericInformer
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, Conflict, NotFound
from kubelite.controllers.resourcequota.resources import mapping
from kubelite.controllers.resourcequota.usage import (
    CORE_EVALUATORS,
    GroupResource,
    charge_ends_at,
    count_target,
    evaluator_for,
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
        self._quota_handler = self.quotas.informer.add_event_handler(
            ResourceEventHandlerFuncs(add=self._quota_added, update=self._quota_updated, delete=self._quota_deleted)
        )
        self.tracked: dict[GroupResource, GenericInformer] = {}
        for group, resource in CORE_EVALUATORS:
            self._track((group, resource), (group, "v1", resource))
        #: resources a quota counts that the server does not serve (or not as a namespaced list and watch)
        self._unserved: set[GroupResource] = set()

    def _track(self, gr: GroupResource, gvr: tuple[str, str, str]) -> GenericInformer:
        informer = self.tracked[gr] = self.clients.informers.for_resource(gvr)
        if gr != ("", "resourcequotas"):  # quotas have their own handler
            self.controller.watch(informer.informer, keys=lambda obj: self._replenish(gr, obj))
        return informer

    def _replenish(self, gr: GroupResource, obj: Any) -> list[str]:
        """replenishQuota: the namespace's quotas that limit something of `gr`."""
        namespace = mapping(obj.get("metadata")).get("namespace", "")
        if not namespace:
            return []
        evaluator = evaluator_for(gr)
        return [
            meta_namespace_key(quota)
            for quota in self.quotas.lister.namespace(namespace).list()
            if evaluator.matching(_hard_names(quota))
        ]

    # A quota is recalculated when it appears or its limits change, never for a change of its status alone:
    # admission charges status.used before the object it charged for is stored, and a recalculation then
    # would count the objects without it and give the charge back (kube ignores status updates for this).

    def _quota_added(self, quota: Any) -> None:
        self.controller.queue.add(meta_namespace_key(quota))
        self._replenish_quota_counts(quota)

    def _quota_updated(self, old: Any, quota: Any) -> None:
        spec, old_spec = mapping(quota.get("spec")), mapping(old.get("spec"))
        if spec != old_spec or mapping(quota.get("status")).get("hard") != spec.get("hard"):
            self.controller.queue.add(meta_namespace_key(quota))

    def _quota_deleted(self, quota: Any) -> None:
        target = deleted_object(quota)
        if target is not None:
            self._replenish_quota_counts(target)

    def _replenish_quota_counts(self, quota: Any) -> None:
        for key in self._replenish(("", "resourcequotas"), quota):
            self.controller.queue.add(key)

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
        await wait_for_cache_sync(self._quota_handler.has_synced, clock=self.clock)
        await self.controller.run()


def _hard_names(quota: Any) -> set[str]:
    return set(mapping(mapping(quota.get("spec")).get("hard"))) | set(mapping(mapping(quota.get("status")).get("hard")))


def _normalised(status: object) -> dict[str, Any]:
    found = mapping(status)
    return {"hard": dict(mapping(found.get("hard"))), "used": dict(mapping(found.get("used")))}
