"""The EndpointSlice controller (kube's `endpointslice-controller`), over HTTP as
`system:kube-controller-manager`.

A Service's key is queued when it changes, when a pod it selects (or selected) changes in a way its
endpoints show, and (a second later, so bursts come together) when one of its slices changes in a way this
controller did not write: another generation than the one it wrote, its `managed-by` or
`kubernetes.io/service-name` label changed, a deletion it did not make. A sync hands the Service, its pods,
the slices it manages and the nodes to `endpointslices.reconcile`, then creates, updates and deletes what
that says. A sync whose cache has not seen the controller's last writes (`EndpointSliceTracker`) fails and
is retried, as does one that could not publish a pod; both with a `FailedToUpdateEndpointSlices` event on
the Service. Retries back off from 1 s to 1000 s, kube's figures for this controller.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any

from kubelite.apimachinery.selectors import LabelSelector
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import split_meta_namespace_key
from kubelite.client.cache.store import Indexer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, NotFound
from kubelite.client.record.recorder import WARNING
from kubelite.client.workqueue.rate_limiter import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
)
from kubelite.controllers.endpoints.endpointslices import (
    CONTROLLER_NAME,
    MANAGED_BY_LABEL,
    SERVICE_NAME_LABEL,
    EndpointSliceTracker,
    SlicePlan,
    managed_by_controller,
    reconcile,
    slice_service_key,
)
from kubelite.controllers.endpoints.pods import (
    TriggerTimeTracker,
    is_managed,
    service_selector,
)
from kubelite.controllers.endpoints.service_queue import PodServiceQueue, StaleCache, labels_of

log = logging.getLogger(__name__)

#: kube-controller-manager's default --concurrent-service-endpoint-syncs
WORKERS = 5
#: the least time between a slice's change and the sync it queues
SLICE_CHANGE_MIN_SYNC_DELAY = 1.0
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"
SLICES = ("discovery.k8s.io", "v1", "endpointslices")


class _Nodes(Mapping[str, Any]):
    """The node cache as a mapping by name, read as the reconciler asks."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer

    def __getitem__(self, name: str) -> Any:
        found = self.indexer.get_by_key(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.indexer.list_keys())

    def __len__(self) -> int:
        return len(self.indexer.list_keys())


def aggregate(messages: list[str]) -> str:
    """utilerrors' Aggregate: one message alone, several in brackets; duplicates once."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


class EndpointSliceController(PodServiceQueue):
    def __init__(self, clients: ComponentClient, *, workers: int = WORKERS, clock: Clock | None = None) -> None:
        self.clients = clients
        #: the work queue's clock (its delays and backoff), the component's unless a test brings its own
        self.clock = clock or clients.clock
        self.services = clients.informers.for_resource(("", "v1", "services"))
        self.pods = clients.informers.for_resource(("", "v1", "pods"))
        self.nodes = clients.informers.for_resource(("", "v1", "nodes"), namespaced=False)
        self.slices = clients.informers.for_resource(SLICES)
        self.client = clients.resource(*SLICES)
        self.recorder = clients.recorder("endpoint-slice-controller")
        limiter = MaxOfRateLimiter(
            ItemExponentialFailureRateLimiter(1.0, 1000.0), BucketRateLimiter(10.0, 100, clock=self.clock)
        )
        self.controller = Controller(
            "endpoint_slice", self.sync_service, workers=workers, rate_limiter=limiter, clock=self.clock
        )
        self.controller.watch(self.services.informer)
        self.pods.informer.add_event_handler(
            ResourceEventHandlerFuncs(add=self._pod_added, update=self._pod_updated, delete=self._pod_deleted)
        )
        self.slices.informer.add_event_handler(
            ResourceEventHandlerFuncs(add=self._slice_added, update=self._slice_updated, delete=self._slice_deleted)
        )
        self.tracker = EndpointSliceTracker()
        self.trigger_times = TriggerTimeTracker()

    # -- events --------------------------------------------------------------------------------------------

    def _queue_for_slice(self, slice_: Any) -> None:
        key = slice_service_key(slice_)
        if key is None:
            log.info("endpointslice %s has no %s label", (slice_.get("metadata") or {}).get("name"), SERVICE_NAME_LABEL)
            return
        self.controller.queue.add_after(key, SLICE_CHANGE_MIN_SYNC_DELAY)

    def _slice_added(self, slice_: Any) -> None:
        if managed_by_controller(slice_) and self.tracker.should_sync(slice_):
            self._queue_for_slice(slice_)

    def _slice_updated(self, old: Any, new: Any) -> None:
        # a label change leaves the generation alone; the service-name label is the users' to change too
        if labels_of(old).get(SERVICE_NAME_LABEL) != labels_of(new).get(SERVICE_NAME_LABEL):
            self._queue_for_slice(new)
            self._queue_for_slice(old)
            return
        managed_by_changed = labels_of(old).get(MANAGED_BY_LABEL) != labels_of(new).get(MANAGED_BY_LABEL)
        if managed_by_changed or (managed_by_controller(new) and self.tracker.should_sync(new)):
            self._queue_for_slice(new)

    def _slice_deleted(self, obj: Any) -> None:
        slice_ = deleted_object(obj)
        if slice_ is None or not managed_by_controller(slice_) or not self.tracker.has(slice_):
            return
        if not self.tracker.handle_deletion(slice_):
            self._queue_for_slice(slice_)  # someone else's deletion: put it back

    # -- the sync ------------------------------------------------------------------------------------------

    async def sync_service(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        service = self.services.informer.indexer.get_by_key(key)
        if service is None:
            # the garbage collector deletes the slices the Service owned
            self.trigger_times.delete_service(namespace, name)
            self.tracker.delete_service(namespace, name)
            return None
        if not is_managed(service):
            return None
        selector = service_selector(service) or {}
        pods = self.pods.lister.namespace(namespace).list(LabelSelector.from_set(selector))
        mine = LabelSelector.from_set({SERVICE_NAME_LABEL: name, MANAGED_BY_LABEL: CONTROLLER_NAME})
        listed = self.slices.lister.namespace(namespace).list(mine)
        # a slice pending deletion is as good as gone: waiting on it could hold the Service up
        slices = [s for s in listed if not (s.get("metadata") or {}).get("deletionTimestamp")]
        if self.tracker.stale_slices(service, slices):
            raise StaleCache("EndpointSlice informer cache is out of date")
        # computed on every sync, so the tracker knows what this sync saw even when nothing is written
        trigger_time = self.trigger_times.compute(service, pods)
        plan = reconcile(service, pods, slices, _Nodes(self.nodes.informer.indexer), trigger_time)
        errors = list(plan.errors)
        failure = await self._finalize(key, plan)
        if failure is not None:
            errors.append(failure)
        if errors:
            message = aggregate(errors)
            event = f"Error updating Endpoint Slices for Service {key}: {message}"
            self.recorder.event(service, WARNING, "FailedToUpdateEndpointSlices", event)
            raise RuntimeError(message)
        return None

    async def _finalize(self, key: str, plan: SlicePlan) -> str | None:
        """Write the plan: creates, updates, then deletes; the first failure stops it and is returned."""
        namespace, _ = split_meta_namespace_key(key)
        client = self.client.namespace(namespace)
        for slice_ in plan.create:
            try:
                created = await client.create(slice_)
            except ApiError as exc:
                if exc.has_cause(NAMESPACE_TERMINATING_CAUSE):
                    return None  # creates keep failing in a namespace being deleted: nothing to retry
                return f"failed to create EndpointSlice for Service {key}: {exc}"
            self.tracker.update(created)
        for slice_ in plan.update:
            slice_name = (slice_.get("metadata") or {}).get("name", "")
            try:
                updated = await client.update(slice_)
            except ApiError as exc:
                return f"failed to update {slice_name} EndpointSlice for Service {key}: {exc}"
            self.tracker.update(updated)
        for slice_ in plan.delete:
            slice_name = (slice_.get("metadata") or {}).get("name", "")
            try:
                await client.delete(slice_name)
            except NotFound:
                continue
            except ApiError as exc:
                return f"failed to delete {slice_name} EndpointSlice for Service {key}: {exc}"
            self.tracker.expect_deletion(slice_)
        return None

    async def run(self) -> None:
        informers = (self.services.informer, self.pods.informer, self.slices.informer, self.nodes.informer)
        await wait_for_cache_sync(*(i.has_synced for i in informers), clock=self.clock)
        await self.controller.run()
