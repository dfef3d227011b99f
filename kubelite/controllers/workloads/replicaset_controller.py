"""The ReplicaSet and ReplicationController controllers, over the API (kube's pkg/controller/replicaset).

kube runs the ReplicationController controller as the ReplicaSet one over an adapter, and so does this module:
one `ReplicaSetController` per owner kind (`REPLICA_SET`, `REPLICATION_CONTROLLER`), each with its shared
informers on its owners and on pods. The handlers map a pod to the controller it belongs to (its controller
reference, or every owner whose selector matches an orphan), and count the creations and deletions a sync
waits to see (expectations), so a sync never acts on a cache that has not caught up with its own writes.

A reconcile reads the owner and its namespace's pods from the listers, asks `replicaset.sync_replica_set`
what to do, and does it through the API as the controller manager's user: adoption and release as strategic
merge patches, creations in slow-start batches, deletions all at once, events as the writes succeed, then the
status through the status subresource (with a ReplicaFailure condition when a write failed, and the error
returned so the key is retried with backoff).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.apimachinery.selectors import LabelSelector, SelectorError, label_selector_from_spec
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration, SharedIndexInformer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.dynamic import ResourceClient
from kubelite.client.errors import ApiError, Conflict, Invalid, NotFound
from kubelite.controllers.workloads.actions import Action, Event
from kubelite.controllers.workloads.controller_utils import (
    UIDTrackingExpectations,
    controller_ref,
    is_pod_ready,
    owner_controller,
    run_slow_start,
)
from kubelite.controllers.workloads.replicaset import (
    create_failed_event,
    created_event,
    delete_failed_event,
    replica_set_status,
    status_changed,
    sync_replica_set,
)

log = logging.getLogger(__name__)

PODS = ("", "v1", "pods")
#: --concurrent-replicaset-syncs / --concurrent-rc-syncs
WORKERS = 5
#: the cause a create carries when its namespace is going away (nothing to report then)
NAMESPACE_TERMINATING = "NamespaceTerminating"


@dataclass(frozen=True)
class OwnerKind:
    """What differs between the ReplicaSet and the ReplicationController controllers."""

    gvr: tuple[str, str, str]
    api_version: str
    kind: str
    #: the controller's name in the work queue and logs, and the source of its events
    name: str
    component: str
    #: the owner as a ReplicaSet would be written (an RC's selector is a plain map)
    as_replica_set: Callable[[Obj], Obj]
    #: whether the status has terminatingReplicas (apps/v1 ReplicaSets do, v1 ReplicationControllers not)
    counts_terminating: bool


def _same(obj: Obj) -> Obj:
    return obj


def _rc_as_replica_set(rc: Obj) -> Obj:
    view = dict(rc)
    spec = dict(rc.get("spec") or {})
    spec["selector"] = {"matchLabels": dict(spec.get("selector") or {})}
    view["spec"] = spec
    return view


REPLICA_SET = OwnerKind(
    ("apps", "v1", "replicasets"), "apps/v1", "ReplicaSet", "replicaset", "replicaset-controller", _same, True
)
REPLICATION_CONTROLLER = OwnerKind(
    ("", "v1", "replicationcontrollers"),
    "v1",
    "ReplicationController",
    "replicationmanager",
    "replication-controller",
    _rc_as_replica_set,
    False,
)


def _meta(obj: Obj) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _labels(obj: Obj) -> dict[str, str]:
    return _meta(obj).get("labels") or {}


def selector_of(owner: Obj, kind: OwnerKind) -> LabelSelector:
    """The owner's selector; a missing, empty or invalid one selects nothing (never every pod)."""
    spec = kind.as_replica_set(owner).get("spec") or {}
    try:
        selector = label_selector_from_spec(spec.get("selector"))
    except (SelectorError, TypeError, ValueError, AttributeError):
        return LabelSelector.nothing()
    return LabelSelector.nothing() if selector.empty else selector


def _now(clients: ComponentClient) -> datetime:
    return datetime.fromtimestamp(clients.clock.now(), tz=UTC)


class SyncError(Exception):
    """A sync that could not do all it decided; the key is retried with backoff."""


def error_text(exc: BaseException) -> str:
    """What kube's `%v` of a client error prints: the server's message."""
    if isinstance(exc, ApiError) and exc.message:
        return exc.message
    return str(exc) or type(exc).__name__


#: the status counts kube's types mark omitempty (int32 values, so a zero is not on the wire); a pointer such
#: as terminatingReplicas keeps its zero, and a ReplicaSet's replicas is always written
OMITTED_WHEN_ZERO = {
    "deployments": (
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    ),
    "replicasets": ("observedGeneration", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
    "replicationcontrollers": ("observedGeneration", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
}


def as_encoded(resource: str, obj: Obj) -> Obj:
    """The object with its status as kube's encoding writes it: zero counts that are omitempty left out."""
    status = obj.get("status")
    if not isinstance(status, dict):
        return obj
    dropped = [f for f in OMITTED_WHEN_ZERO.get(resource, ()) if status.get(f) == 0]
    if not dropped:
        return obj
    return {**obj, "status": {k: v for k, v in status.items() if k not in dropped}}


async def run_action(client: ResourceClient, action: Action) -> Obj:
    """One write of a plan, against `client` bound to the action's resource."""
    target = client.namespace(action.namespace or None)
    if action.verb == "create":
        return await target.create(action.obj)
    if action.verb == "update":
        return await target.update(action.obj)
    if action.verb == "update_status":
        return await target.update_status(as_encoded(action.resource, action.obj))
    if action.verb == "patch":
        patch_type = "strategic" if action.patch_type in (None, "application/strategic-merge-patch+json") else "json"
        if action.patch_type == "application/merge-patch+json":
            patch_type = "merge"
        return await target.patch(action.name, action.obj, patch_type=patch_type)
    preconditions = {"uid": action.preconditions_uid} if action.preconditions_uid else None
    return await target.delete(action.name, preconditions=preconditions)


class ReplicaSetController:
    """One kind's controller: `controller` (its queue and workers) and `run()`."""

    def __init__(
        self,
        clients: ComponentClient,
        kind: OwnerKind = REPLICA_SET,
        *,
        workers: int = WORKERS,
        burst_replicas: int = 500,
    ) -> None:
        self.clients = clients
        self.kind = kind
        self.burst_replicas = burst_replicas
        owners = clients.informers.for_resource(kind.gvr)
        pods = clients.informers.for_resource(PODS)
        self.owner_informer: SharedIndexInformer = owners.informer
        self.owners = owners.lister
        self.pods = pods.lister
        self.owner_client = clients.resource(*kind.gvr)
        self.pod_client = clients.resource(*PODS)
        self.recorder = clients.recorder(kind.component)
        self.expectations = UIDTrackingExpectations()
        # kube retries a failing ReplicaSet for as long as it fails
        self.controller = Controller(kind.name, self.reconcile, workers=workers, max_retries=None, clock=clients.clock)
        self._registrations: list[ResourceEventHandlerRegistration] = [
            owners.informer.add_event_handler(
                ResourceEventHandlerFuncs(add=self._add_owner, update=self._update_owner, delete=self._delete_owner)
            ),
            pods.informer.add_event_handler(
                ResourceEventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
            ),
        ]

    async def run(self) -> None:
        await wait_for_cache_sync(*(r.has_synced for r in self._registrations), clock=self.clients.clock)
        await self.controller.run()

    # -- mapping changes to owners ---------------------------------------------------------------------------

    def _enqueue(self, owner: Obj) -> None:
        self.controller.queue.add(meta_namespace_key(owner))

    def _add_owner(self, owner: Obj) -> None:
        self._enqueue(owner)

    def _update_owner(self, old: Obj, new: Obj) -> None:
        if _meta(old).get("uid") != _meta(new).get("uid"):
            # the old one was deleted and a new one of that name created before we saw the deletion
            self._delete_owner(old)
        self._enqueue(new)

    def _delete_owner(self, obj: Any) -> None:
        owner = deleted_object(obj)
        if owner is None:
            return
        key = meta_namespace_key(owner)
        # a new owner of the same name starts with no expectations
        self.expectations.delete(key)
        self.controller.queue.add(key)

    def resolve_controller_ref(self, namespace: str, ref: Obj | None) -> Obj | None:
        """The owner a controller reference names, when it is one of ours and the uid matches."""
        if ref is None or ref.get("kind") != self.kind.kind:
            return None
        owner = self.owners.indexer.get_by_key(f"{namespace}/{ref.get('name', '')}")
        if owner is None or _meta(owner).get("uid") != ref.get("uid"):
            return None
        return owner

    def owners_selecting(self, pod: Obj) -> list[Obj]:
        """Every owner of the pod's namespace whose selector matches the pod (for orphans)."""
        namespace = _meta(pod).get("namespace", "")
        labels = _labels(pod)
        return [o for o in self.owners.namespace(namespace).list() if selector_of(o, self.kind).matches(labels)]

    def _add_pod(self, pod: Obj) -> None:
        if _meta(pod).get("deletionTimestamp"):
            # a pod that shows up already being deleted (a restart of the controller) counts as a deletion
            self._delete_pod(pod)
            return
        namespace = _meta(pod).get("namespace", "")
        ref = owner_controller(pod)
        if ref is not None:
            owner = self.resolve_controller_ref(namespace, ref)
            if owner is None:
                return
            key = meta_namespace_key(owner)
            self.expectations.creation_observed(key)
            self.controller.queue.add(key)
            return
        # an orphan: every owner that might adopt it syncs; no creation is observed (none waits for orphans)
        for owner in self.owners_selecting(pod):
            self._enqueue(owner)

    def _update_pod(self, old: Obj, cur: Obj) -> None:
        if _meta(old).get("resourceVersion") == _meta(cur).get("resourceVersion"):
            return  # a resync: nothing changed
        labels_changed = _labels(old) != _labels(cur)
        if _meta(cur).get("deletionTimestamp"):
            # graceful deletion is the moment the pod stops counting: observe it now, not when it is gone
            self._delete_pod(cur)
            if labels_changed:
                self._delete_pod(old)
            return
        namespace = _meta(cur).get("namespace", "")
        cur_ref, old_ref = owner_controller(cur), owner_controller(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            previous = self.resolve_controller_ref(namespace, old_ref)
            if previous is not None:
                self._enqueue(previous)
        if cur_ref is not None:
            owner = self.resolve_controller_ref(namespace, cur_ref)
            if owner is None:
                return
            self._enqueue(owner)
            min_ready = int((owner.get("spec") or {}).get("minReadySeconds") or 0)
            if not is_pod_ready(old) and is_pod_ready(cur) and min_ready > 0:
                # look again once the pod has been ready for minReadySeconds (and a second against skew)
                self.controller.queue.add_after(meta_namespace_key(owner), float(min_ready + 1))
            return
        if labels_changed or ref_changed:
            for owner in self.owners_selecting(cur):
                self._enqueue(owner)

    def _delete_pod(self, obj: Any) -> None:
        pod = deleted_object(obj)
        if pod is None:
            return
        ref = owner_controller(pod)
        if ref is None:
            return
        owner = self.resolve_controller_ref(_meta(pod).get("namespace", ""), ref)
        if owner is None:
            return
        key = meta_namespace_key(owner)
        self.expectations.deletion_of_observed(key, meta_namespace_key(pod))
        self.controller.queue.add(key)

    # -- the sync --------------------------------------------------------------------------------------------

    def related_pods(self, owner: Obj, pods: Sequence[Obj]) -> list[Obj]:
        """getIndirectlyRelatedPods: the pods of every owner under the same controller (a Deployment's
        ReplicaSets), which the scale-down ranking counts per node."""
        ref = owner_controller(owner)
        uid = _meta(owner).get("uid")
        uids = {uid}
        if ref is not None:
            for sibling in self.owners.namespace(_meta(owner).get("namespace", "")).list():
                sibling_ref = owner_controller(sibling)
                if sibling_ref is not None and sibling_ref.get("uid") == ref.get("uid"):
                    uids.add(_meta(sibling).get("uid"))
        related = []
        for pod in pods:
            pod_ref = owner_controller(pod)
            if pod_ref is not None and pod_ref.get("uid") in uids:
                related.append(pod)
        return related

    async def _check_can_adopt(self, owner: Obj) -> None:
        """RecheckDeletionTimestamp: read the owner afresh before adopting, in case it is being deleted."""
        meta = _meta(owner)
        fresh = await self.owner_client.namespace(meta.get("namespace")).get(meta["name"])
        fresh_meta = _meta(fresh)
        if fresh_meta.get("uid") != meta.get("uid"):
            raise SyncError(
                f"original {self.kind.kind} {meta.get('namespace')}/{meta['name']} is gone: "
                f"got uid {fresh_meta.get('uid')}, wanted {meta.get('uid')}"
            )
        if fresh_meta.get("deletionTimestamp"):
            raise SyncError(
                f"{self.kind.kind} {meta.get('namespace')}/{meta['name']} has just been deleted at "
                f"{fresh_meta['deletionTimestamp']}"
            )

    async def reconcile(self, key: str) -> float | None:
        owner = self.owners.indexer.get_by_key(key)
        if owner is None:
            self.expectations.delete(key)
            return None
        clock = self.clients.clock
        namespace, _ = split_meta_namespace_key(key)
        needs_sync = self.expectations.satisfied(key, clock.monotonic())
        pods = self.pods.namespace(namespace).list()
        view = self.kind.as_replica_set(owner)
        now = _now(self.clients)
        ref = controller_ref(owner, self.kind.api_version, self.kind.kind)
        try:
            plan = sync_replica_set(
                view,
                pods,
                now=now,
                needs_sync=needs_sync,
                related_pods=self.related_pods(owner, pods),
                burst_replicas=self.burst_replicas,
                owner_ref=ref,
            )
        except (SelectorError, TypeError, ValueError, KeyError) as exc:
            log.warning("%s: cannot sync %s: %s", self.kind.name, key, exc)
            return None
        if plan.adopt:
            await self._check_can_adopt(owner)
        for action in plan.adopt:
            try:
                await run_action(self.pod_client, action)
            except NotFound:
                pass  # the pod is gone: nothing to adopt
        for action in plan.release:
            try:
                await run_action(self.pod_client, action)
            except (NotFound, Invalid):
                pass  # gone, or already released
        manage_error: str | None = None
        if plan.create:
            manage_error = await self._create(key, owner, plan.create)
        elif plan.delete:
            manage_error = await self._delete(key, owner, plan.delete, plan.delete_events)
        status = plan.status
        if manage_error is not None:
            selector = selector_of(owner, self.kind)
            terminating = [p for p in pods if self._owned_terminating(owner, selector, p)]
            status = replica_set_status(view, plan.claimed, terminating, manage_error, now)
            status["observedGeneration"] = int(_meta(owner).get("generation") or 0)
        if status is not None and not self.kind.counts_terminating:
            status.pop("terminatingReplicas", None)
            if not status_changed(owner, status):
                status = None
        if status is not None:
            await self._write_status(owner, status)
        if manage_error is not None:
            raise SyncError(manage_error)
        return plan.requeue_after

    @staticmethod
    def _owned_terminating(owner: Obj, selector: LabelSelector, pod: Obj) -> bool:
        if not _meta(pod).get("deletionTimestamp"):
            return False
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return False
        ref = owner_controller(pod)
        return ref is not None and ref.get("uid") == _meta(owner).get("uid") and selector.matches(_labels(pod))

    async def _create(self, key: str, owner: Obj, templates: list[Obj]) -> str | None:
        clock = self.clients.clock
        count = len(templates)
        self.expectations.expect_creations(key, count, clock.monotonic())
        pending = iter(templates)
        if not _labels(templates[0]):
            # kube's PodControl refuses to create pods its owner could never select
            self.expectations.lower_expectations(key, count, 0)
            return "unable to create pods, no labels"

        async def create_one() -> None:
            pod = next(pending)
            try:
                created = await self.pod_client.namespace(_meta(owner).get("namespace")).create(pod)
            except Exception as exc:
                if isinstance(exc, ApiError) and exc.has_cause(NAMESPACE_TERMINATING):
                    return  # the namespace is going away: nothing to report, nothing to retry
                self.recorder.event(owner, *_typed(create_failed_event(error_text(exc))))
                raise
            self.recorder.event(owner, *_typed(created_event(_meta(created).get("name", ""))))

        successes, error = await run_slow_start(count, create_one)
        skipped = count - successes
        if skipped:
            # the creations that failed or never ran will not be observed
            self.expectations.lower_expectations(key, skipped, 0)
        if error is not None:
            return error_text(error)
        return None

    async def _delete(self, key: str, owner: Obj, deletes: list[Action], events: list[Event]) -> str | None:
        clock = self.clients.clock
        namespace = _meta(owner).get("namespace", "")
        self.expectations.expect_deletions_of(key, [f"{namespace}/{a.name}" for a in deletes], clock.monotonic())

        async def delete_one(action: Action, event: Event) -> str | None:
            pod_key = f"{namespace}/{action.name}"
            try:
                await run_action(self.pod_client, action)
            except (NotFound, Conflict):
                # already gone (or replaced by another pod of that name): this deletion will not be seen
                self.expectations.deletion_of_observed(key, pod_key)
                return None
            except Exception as exc:
                self.expectations.deletion_of_observed(key, pod_key)
                self.recorder.event(owner, *_typed(delete_failed_event(error_text(exc))))
                return f"unable to delete pods: {error_text(exc)}"
            self.recorder.event(owner, *_typed(event))
            return None

        results = await asyncio.gather(*(delete_one(a, e) for a, e in zip(deletes, events, strict=True)))
        return next((result for result in results if result is not None), None)

    async def _write_status(self, owner: Obj, status: Obj) -> None:
        """updateReplicaSetStatus: PUT the status, and once more on a fresh read if that fails."""
        resource = self.kind.gvr[2]
        updated = deep_copy(owner)
        updated["status"] = status
        try:
            await self.owner_client.update_status(as_encoded(resource, updated))
            return
        except NotFound:
            return
        except ApiError:
            pass
        meta = _meta(owner)
        try:
            fresh = await self.owner_client.namespace(meta.get("namespace")).get(meta["name"])
        except NotFound:
            return
        fresh["status"] = status
        await self.owner_client.update_status(as_encoded(resource, fresh))


def _typed(event: Event) -> tuple[str, str, str]:
    return event.type, event.reason, event.message


def build_replica_set_controller(clients: ComponentClient) -> ReplicaSetController:
    return ReplicaSetController(clients, REPLICA_SET)


def build_replication_controller_manager(clients: ComponentClient) -> ReplicaSetController:
    return ReplicaSetController(clients, REPLICATION_CONTROLLER)


__all__ = [
    "REPLICATION_CONTROLLER",
    "REPLICA_SET",
    "OwnerKind",
    "ReplicaSetController",
    "SyncError",
    "build_replica_set_controller",
    "build_replication_controller_manager",
    "error_text",
    "run_action",
]
