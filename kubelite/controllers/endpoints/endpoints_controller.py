"""The Endpoints controller (kube's `endpoints-controller`), over HTTP as `system:kube-controller-manager`.

A Service's key is queued when it changes, when a pod it selects (or selected) changes in a way its
endpoints show, and when its Endpoints object is deleted. A sync reads the Service and its pods from the
informers, asks `endpoints.plan_endpoints` what the Endpoints should be, and creates or updates it; a Service
gone takes its Endpoints with it. Services without a selector, and ExternalName ones, are left to their
owners (the `kubernetes` Service's Endpoints are the API server's). At start every Endpoints object is
queued once, so one left behind by a Service deleted while the controller was down goes too.

An update the informer has not delivered yet would make the next sync compare against the old object:
the resourceVersion replaced by the controller's own write is remembered, and a sync that still finds it in
the cache fails, to be retried once the cache caught up.
"""

from __future__ import annotations

import logging
from typing import Any

from kubelite.apimachinery.selectors import LabelSelector
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, NotFound
from kubelite.client.record.recorder import WARNING
from kubelite.controllers.endpoints.endpoints import plan_endpoints
from kubelite.controllers.endpoints.pods import (
    TriggerTimeTracker,
    is_managed,
    service_selector,
)
from kubelite.controllers.endpoints.service_queue import PodServiceQueue, StaleCache

log = logging.getLogger(__name__)

#: kube-controller-manager's default --concurrent-endpoint-syncs
WORKERS = 5
#: leader election on Endpoints (an older lock kind) marks its object so; it has no Service and stays
LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


class EndpointsController(PodServiceQueue):
    def __init__(self, clients: ComponentClient, *, workers: int = WORKERS, clock: Clock | None = None) -> None:
        self.clients = clients
        #: the work queue's clock (its delays and backoff), the component's unless a test brings its own
        self.clock = clock or clients.clock
        self.services = clients.informers.for_resource(("", "v1", "services"))
        self.pods = clients.informers.for_resource(("", "v1", "pods"))
        self.endpoints = clients.informers.for_resource(("", "v1", "endpoints"))
        self.client = clients.resource("", "v1", "endpoints")
        self.recorder = clients.recorder("endpoint-controller")
        self.controller = Controller("endpoint", self.sync_service, workers=workers, clock=self.clock)
        self.controller.watch(self.services.informer)
        self.pods.informer.add_event_handler(
            ResourceEventHandlerFuncs(add=self._pod_added, update=self._pod_updated, delete=self._pod_deleted)
        )
        self.endpoints.informer.add_event_handler(ResourceEventHandlerFuncs(delete=self._endpoints_deleted))
        self.trigger_times = TriggerTimeTracker()
        #: per Endpoints key, the resourceVersion this controller's last update replaced
        self._stale: dict[str, str] = {}

    # -- events --------------------------------------------------------------------------------------------

    def _endpoints_deleted(self, obj: Any) -> None:
        endpoints = deleted_object(obj)
        if endpoints is not None:
            self.controller.queue.add(meta_namespace_key(endpoints))

    # -- the sync ------------------------------------------------------------------------------------------

    async def sync_service(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        service = self.services.informer.indexer.get_by_key(key)
        if service is None:
            try:
                await self.client.namespace(namespace).delete(name)
            except NotFound:
                pass
            self.trigger_times.delete_service(namespace, name)
            self._stale.pop(key, None)
            return None
        if not is_managed(service):
            return None
        selector = service_selector(service) or {}
        pods = self.pods.lister.namespace(namespace).list(LabelSelector.from_set(selector))
        # computed on every sync, so the tracker knows what this sync saw even when nothing is written
        trigger_time = self.trigger_times.compute(service, pods)
        current = self.endpoints.informer.indexer.get_by_key(key)
        if current is not None and self._stale.get(key) == (current.get("metadata") or {}).get("resourceVersion"):
            raise StaleCache(
                f"endpoints informer cache is out of date, resource version "
                f"{current['metadata']['resourceVersion']} already processed for endpoints {key}"
            )
        plan = plan_endpoints(service, pods, current, trigger_time)
        if plan is None:
            return None
        log.debug("updating endpoints %s: %d ready, %d not ready", key, plan.ready, plan.not_ready)
        client = self.client.namespace(namespace)
        try:
            if plan.create:
                await client.create(plan.endpoints)
            else:
                written = await client.update(plan.endpoints)
                replaced = (current or {}).get("metadata", {}).get("resourceVersion")
                if written.get("metadata", {}).get("resourceVersion") != replaced and replaced:
                    self._stale[key] = replaced
        except ApiError as exc:
            if plan.create and exc.code == 403 and exc.has_cause(NAMESPACE_TERMINATING_CAUSE):
                return None  # creates keep failing in a namespace being deleted: nothing to retry
            if plan.create:
                message = f"Failed to create endpoint for service {key}: {exc}"
                self.recorder.event(plan.endpoints, WARNING, "FailedToCreateEndpoint", message)
            else:
                message = f"Failed to update endpoint {key}: {exc}"
                self.recorder.event(plan.endpoints, WARNING, "FailedToUpdateEndpoint", message)
            raise
        return None

    def _queue_leftovers(self) -> None:
        """Every Endpoints object once: those whose Service is gone are deleted."""
        for endpoints in self.endpoints.lister.list():
            if LEADER_ANNOTATION in ((endpoints.get("metadata") or {}).get("annotations") or {}):
                continue
            self.controller.queue.add(meta_namespace_key(endpoints))

    async def run(self) -> None:
        informers = (self.services.informer, self.pods.informer, self.endpoints.informer)
        await wait_for_cache_sync(*(i.has_synced for i in informers), clock=self.clock)
        self._queue_leftovers()
        await self.controller.run()
