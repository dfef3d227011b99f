"""kube-controller-manager's DaemonSet controller, over HTTP as its component's user (kube's
pkg/controller/daemon DaemonSetsController).

Informers on DaemonSets, ControllerRevisions, pods and nodes feed DaemonSet keys into the work queue; a
sync reads the DaemonSet, its nodes and its pods from the listers and then, as kube's syncDaemonSet:

1. claims its ControllerRevisions (adopting orphans its selector matches, releasing those it no longer
   matches), finds or creates the one of its current template and numbers it highest;
2. unless its expectations of earlier creates and deletes are still unobserved, runs `sync.manage` (a pod
   for each node that should run one, none where it may not run), then, for RollingUpdate, `sync.
   rolling_update`, carrying each out with `sync_nodes` (pods created with their node pinned by required
   node affinity, for the scheduler to bind; in slow-start batches, at most 250 a sync), and deletes old
   revisions beyond revisionHistoryLimit;
3. writes the status counts, and observedGeneration unless it only counted.

Pods are claimed the same way (adoption is a strategic merge patch of ownerReferences, after a fresh read of
the DaemonSet shows it is not being deleted). Events are kube's: SuccessfulCreate, FailedCreate,
SuccessfulDelete, FailedDelete, FailedDaemonPod, SucceededDaemonPod, SelectingAll, as
`daemonset-controller`. Times are read on the component's clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.apimachinery.selectors import LabelSelector, SelectorError, label_selector_from_spec
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import AlreadyExists, ApiError, Invalid, NotFound
from kubelite.controllers.daemonset import history, sync
from kubelite.controllers.daemonset.backoff import Backoff
from kubelite.controllers.daemonset.placement import (
    REVISION_HASH_LABEL,
    create_pod_template,
    node_name_affinity,
    node_should_run_daemon_pod,
    template_generation,
)
from kubelite.controllers.workloads.actions import Event
from kubelite.controllers.workloads.controller_utils import (
    ControllerExpectations,
    is_pod_ready,
    owner_controller,
    pod_from_template,
    slow_start_batches,
)
from kubelite.controllers.workloads.replicaset import adopt_patch, claim_objects, release_patch

log = logging.getLogger(__name__)

NAME = "daemonset-controller"
#: --concurrent-daemonset-syncs
WORKERS = 2
#: how often entries of the failed-pod backoff are collected (BackoffGCInterval)
BACKOFF_GC_SECONDS = 60.0
#: status writes retried once on a fresh read (StatusUpdateRetries)
STATUS_UPDATE_RETRIES = 1

DAEMONSETS = ("apps", "v1", "daemonsets")
REVISIONS = ("apps", "v1", "controllerrevisions")
PODS = ("", "v1", "pods")
NODES = ("", "v1", "nodes")


def _meta(obj: Any) -> dict[str, Any]:
    return (obj or {}).get("metadata") or {}


class SyncErrors(Exception):
    """Several writes of one sync failed (utilerrors.NewAggregate)."""

    def __init__(self, errors: Sequence[BaseException]) -> None:
        self.errors = list(errors)
        text = str(errors[0]) if len(errors) == 1 else "[" + ", ".join(str(e) for e in errors) + "]"
        super().__init__(text)


class DaemonSetController:
    def __init__(self, clients: ComponentClient, *, workers: int = WORKERS) -> None:
        self.clients = clients
        self.clock = clients.clock
        informers = clients.informers
        self.ds_informer = informers.for_resource(DAEMONSETS)
        self.history_informer = informers.for_resource(REVISIONS)
        self.pod_informer = informers.for_resource(PODS)
        self.node_informer = informers.for_resource(NODES, namespaced=False)
        self.daemonsets = clients.resource(*DAEMONSETS)
        self.revisions = clients.resource(*REVISIONS)
        self.pods = clients.resource(*PODS)
        self.recorder = clients.recorder(NAME)
        self.expectations = ControllerExpectations()
        self.failed_pods_backoff = Backoff()
        self.controller = Controller(NAME, self.sync_daemon_set, workers=workers, clock=self.clock)
        self._registrations: list[ResourceEventHandlerRegistration] = [
            self.ds_informer.informer.add_event_handler(
                ResourceEventHandlerFuncs(
                    add=self._enqueue, update=lambda old, new: self._enqueue(new), delete=self._delete_daemon_set
                )
            ),
            self.history_informer.informer.add_event_handler(
                ResourceEventHandlerFuncs(
                    add=self._add_history, update=self._update_history, delete=self._delete_history
                )
            ),
            self.pod_informer.informer.add_event_handler(
                ResourceEventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
            ),
            self.node_informer.informer.add_event_handler(
                ResourceEventHandlerFuncs(add=self._add_node, update=self._update_node)
            ),
        ]

    # -- running -----------------------------------------------------------------------------------------

    def has_synced(self) -> bool:
        return all(registration.has_synced() for registration in self._registrations)

    async def run(self) -> None:
        await wait_for_cache_sync(self.has_synced, clock=self.clock)
        gc = asyncio.create_task(self._collect_backoff(), name=f"{NAME} backoff gc")
        try:
            await self.controller.run()
        finally:
            gc.cancel()
            await asyncio.gather(gc, return_exceptions=True)

    async def _collect_backoff(self) -> None:
        while True:
            await self.clock.sleep(BACKOFF_GC_SECONDS)
            self.failed_pods_backoff.gc(self.clock.now())

    # -- event handlers ---------------------------------------------------------------------------------

    def _enqueue(self, ds: Any) -> None:
        self.controller.queue.add(meta_namespace_key(ds))

    def _enqueue_after(self, ds: Any, seconds: float) -> None:
        self.controller.queue.add_after(meta_namespace_key(ds), seconds)

    def _delete_daemon_set(self, obj: Any) -> None:
        ds = deleted_object(obj)
        if ds is not None:
            self._enqueue(ds)

    def _resolve(self, namespace: str, ref: Obj) -> Obj | None:
        """resolveControllerRef: the DaemonSet a controller reference names, if it is the same one."""
        if ref.get("kind") != history.DAEMON_SET_KIND:
            return None
        try:
            ds = self.ds_informer.lister.namespace(namespace).get(str(ref.get("name") or ""))
        except NotFound:
            return None
        return ds if _meta(ds).get("uid") == ref.get("uid") else None

    def _selecting(self, obj: Any) -> list[Obj]:
        """The DaemonSets of the object's namespace whose selector matches its labels (GetPodDaemonSets)."""
        labels = _meta(obj).get("labels") or {}
        found: list[Obj] = []
        for ds in self.ds_informer.lister.namespace(str(_meta(obj).get("namespace") or "")).list():
            try:
                selector = label_selector_from_spec((ds.get("spec") or {}).get("selector"))
            except SelectorError:
                continue
            if not selector.empty and selector.matches(labels):
                found.append(ds)
        return found

    def _add_history(self, revision: Any) -> None:
        if _meta(revision).get("deletionTimestamp"):
            self._delete_history(revision)
            return
        ref = owner_controller(revision)
        if ref is not None:
            ds = self._resolve(str(_meta(revision).get("namespace") or ""), ref)
            if ds is not None:
                self._enqueue(ds)
            return
        for ds in self._selecting(revision):
            self._enqueue(ds)

    def _update_history(self, old: Any, cur: Any) -> None:
        if _meta(old).get("resourceVersion") == _meta(cur).get("resourceVersion"):
            return
        namespace = str(_meta(cur).get("namespace") or "")
        cur_ref, old_ref = owner_controller(cur), owner_controller(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            ds = self._resolve(namespace, old_ref)
            if ds is not None:
                self._enqueue(ds)
        if cur_ref is not None:
            ds = self._resolve(namespace, cur_ref)
            if ds is not None:
                self._enqueue(ds)
            return
        if ref_changed or _meta(cur).get("labels") != _meta(old).get("labels"):
            for ds in self._selecting(cur):
                self._enqueue(ds)

    def _delete_history(self, obj: Any) -> None:
        revision = deleted_object(obj)
        ref = owner_controller(revision) if revision is not None else None
        if ref is None:
            return
        ds = self._resolve(str(_meta(revision).get("namespace") or ""), ref)
        if ds is not None:
            self._enqueue(ds)

    def _add_pod(self, pod: Any) -> None:
        if _meta(pod).get("deletionTimestamp"):
            # a pod already terminating when first seen (a restart) is no creation to observe
            self._delete_pod(pod)
            return
        ref = owner_controller(pod)
        if ref is not None:
            ds = self._resolve(str(_meta(pod).get("namespace") or ""), ref)
            if ds is None:
                return
            self.expectations.creation_observed(meta_namespace_key(ds))
            self._enqueue(ds)
            return
        for ds in self._selecting(pod):
            self._enqueue(ds)

    def _update_pod(self, old: Any, cur: Any) -> None:
        if _meta(old).get("resourceVersion") == _meta(cur).get("resourceVersion"):
            return
        if _meta(cur).get("deletionTimestamp"):
            # a graceful deletion: make the replacement now, not when the kubelet finally removes the pod
            self._delete_pod(cur)
            return
        namespace = str(_meta(cur).get("namespace") or "")
        cur_ref, old_ref = owner_controller(cur), owner_controller(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            ds = self._resolve(namespace, old_ref)
            if ds is not None:
                self._enqueue(ds)
        if cur_ref is not None:
            ds = self._resolve(namespace, cur_ref)
            if ds is None:
                return
            self._enqueue(ds)
            min_ready = sync.min_ready_seconds(ds)
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                # look again once the pod has been ready long enough to count as available (plus a second of
                # slack for clock skew)
                self._enqueue_after(ds, min_ready + 1)
            return
        if ref_changed or _meta(cur).get("labels") != _meta(old).get("labels"):
            for ds in self._selecting(cur):
                self._enqueue(ds)

    def _delete_pod(self, obj: Any) -> None:
        pod = deleted_object(obj)
        ref = owner_controller(pod) if pod is not None else None
        if ref is None:
            return
        ds = self._resolve(str(_meta(pod).get("namespace") or ""), ref)
        if ds is None:
            return
        self.expectations.deletion_observed(meta_namespace_key(ds))
        self._enqueue(ds)

    def _add_node(self, node: Any) -> None:
        for ds in self.ds_informer.lister.list():
            if node_should_run_daemon_pod(node, ds).should_run:
                self._enqueue(ds)

    def _update_node(self, old: Any, cur: Any) -> None:
        # only labels and taints decide placement
        same_labels = (_meta(old).get("labels") or {}) == (_meta(cur).get("labels") or {})
        same_taints = ((old.get("spec") or {}).get("taints") or []) == ((cur.get("spec") or {}).get("taints") or [])
        if same_labels and same_taints:
            return
        for ds in self.ds_informer.lister.list():
            if node_should_run_daemon_pod(old, ds) != node_should_run_daemon_pod(cur, ds):
                self._enqueue(ds)

    # -- sync ----------------------------------------------------------------------------------------------

    def _now(self) -> float:
        return self.clock.now()

    def _record(self, ds: Obj, event: Event) -> None:
        self.recorder.event(ds, event.type, event.reason, event.message)

    async def sync_daemon_set(self, key: str) -> float | None:
        """syncDaemonSet; returns when to look again (a failed pod's backoff, minReadySeconds)."""
        namespace, name = split_meta_namespace_key(key)
        try:
            ds = self.ds_informer.lister.namespace(namespace).get(name)
        except NotFound:
            self.expectations.delete(key)
            return None
        nodes = sorted(self.node_informer.lister.list(), key=sync.name_of)
        if sync.selects_everything(ds):
            self._record(ds, sync.selecting_all_event())
            return None
        if _meta(ds).get("deletionTimestamp"):
            # its revisions may be gone already: no status can be trusted now
            return None
        try:
            current, old = await self._construct_history(ds)
        except Exception as exc:
            raise RuntimeError(f"failed to construct revisions of DaemonSet: {exc}") from exc
        revision_hash = history.revision_hash_of(current)
        requeue: list[float] = []
        if not self.expectations.satisfied(key, self.clock.monotonic()):
            # only the counts: this generation has not been acted on
            await self._update_status(ds, nodes, revision_hash, False, requeue)
            return min(requeue, default=None)
        error: BaseException | None = None
        try:
            await self._update_daemon_set(ds, nodes, revision_hash, key, old, requeue)
        except Exception as exc:
            error = exc
        try:
            await self._update_status(ds, nodes, revision_hash, True, requeue)
        except Exception as status_error:
            if error is None:
                raise
            log.warning("%s: failed to update status of %s: %s", NAME, key, status_error)
        if error is not None:
            raise error
        return min(requeue, default=None)

    def _placement_of(self, ds: Obj) -> sync.PlacementOf:
        return lambda node: node_should_run_daemon_pod(node, ds)

    async def _update_daemon_set(
        self, ds: Obj, nodes: list[Obj], revision_hash: str, key: str, old: list[Obj], requeue: list[float]
    ) -> None:
        await self._manage(ds, nodes, revision_hash, requeue)
        if self.expectations.satisfied(key, self.clock.monotonic()):
            strategy = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate")
            if strategy == "RollingUpdate":
                await self._rolling_update(ds, nodes, revision_hash)
        try:
            await self._cleanup_history(ds, old)
        except Exception as exc:
            raise RuntimeError(f"failed to clean up revisions of DaemonSet: {exc}") from exc

    async def _nodes_to_daemon_pods(self, ds: Obj, include_deleted_terminal: bool) -> dict[str, list[Obj]]:
        try:
            claimed = await self._claim_pods(ds)
        except Exception as exc:
            name = _meta(ds).get("name")
            raise RuntimeError(f'couldn\'t get node to daemon pod mapping for daemon set "{name}": {exc}') from exc
        return sync.pods_by_node(claimed, include_deleted_terminal)

    async def _manage(self, ds: Obj, nodes: list[Obj], revision_hash: str, requeue: list[float]) -> None:
        by_node = await self._nodes_to_daemon_pods(ds, False)
        plan = sync.manage(ds, nodes, by_node, revision_hash, self.failed_pods_backoff, self._now(),
                           self._placement_of(ds))
        for event in plan.events:
            self._record(ds, event)
        if plan.requeue_after is not None:
            requeue.append(plan.requeue_after)
        await self._sync_nodes(ds, plan.pods_to_delete, plan.nodes_needing_pods, revision_hash)

    async def _rolling_update(self, ds: Obj, nodes: list[Obj], revision_hash: str) -> None:
        by_node = await self._nodes_to_daemon_pods(ds, False)
        try:
            plan = sync.rolling_update(ds, nodes, by_node, revision_hash, self._now(), self._placement_of(ds))
        except ValueError as exc:
            raise RuntimeError(f"couldn't get unavailable numbers: {exc}") from exc
        await self._sync_nodes(ds, plan.pods_to_delete, plan.nodes_needing_pods, revision_hash)

    async def _sync_nodes(
        self, ds: Obj, pods_to_delete: list[str], nodes_needing: list[str], revision_hash: str
    ) -> None:
        """syncNodes: record the expectations, create in slow-start batches, delete side by side."""
        key = meta_namespace_key(ds)
        namespace = str(_meta(ds).get("namespace") or "")
        create_count = min(len(nodes_needing), sync.BURST_REPLICAS)
        delete_count = min(len(pods_to_delete), sync.BURST_REPLICAS)
        self.expectations.set(key, create_count, delete_count, self.clock.monotonic())
        errors: list[BaseException] = []
        template = create_pod_template(
            ((ds.get("spec") or {}).get("template")) or {}, template_generation(ds), revision_hash
        )
        ref = history.ds_controller_ref(ds)
        pods = self.pods.namespace(namespace)

        async def create(node_name: str) -> None:
            pod_template = deep_copy(template)
            spec = pod_template.setdefault("spec", {})
            # the scheduler binds the pod to its node through this affinity; the node already matched the
            # DaemonSet's own required affinity, so nothing it asked for is lost
            spec["affinity"] = node_name_affinity(spec.get("affinity"), node_name)
            pod = pod_from_template(pod_template, ds, ref)
            try:
                if not (pod["metadata"].get("labels")):
                    raise ValueError("unable to create pods, no labels")
                created = await pods.create(pod)
            except ApiError as exc:
                if exc.has_cause("NamespaceTerminating"):
                    return  # every later create fails the same way while the namespace goes
                self._record(ds, Event("Warning", "FailedCreate", f"Error creating: {exc}"))
                self.expectations.creation_observed(key)
                errors.append(exc)
                return
            except Exception as exc:
                self.expectations.creation_observed(key)
                errors.append(exc)
                return
            self._record(ds, Event("Normal", "SuccessfulCreate", f"Created pod: {_meta(created).get('name', '')}"))

        position = 0
        for size in slow_start_batches(create_count):
            before = len(errors)
            await asyncio.gather(*(create(node) for node in nodes_needing[position:position + size]))
            position += size
            skipped = create_count - position
            if len(errors) > before and skipped > 0:
                # a batch failed: the rest would likely fail alike; the next sync tries again
                self.expectations.lower_expectations(key, skipped, 0)
                break

        async def delete(name: str) -> None:
            try:
                await pods.delete(name)
            except NotFound:
                self.expectations.deletion_observed(key)
                return
            except ApiError as exc:
                self.expectations.deletion_observed(key)
                self._record(ds, Event("Warning", "FailedDelete", f"Error deleting: {exc}"))
                errors.append(exc)
                return
            self._record(ds, Event("Normal", "SuccessfulDelete", f"Deleted pod: {name}"))

        await asyncio.gather(*(delete(name) for name in pods_to_delete[:delete_count]))
        if errors:
            raise SyncErrors(errors)

    # -- claiming --------------------------------------------------------------------------------------

    def _selector(self, ds: Obj) -> LabelSelector:
        return label_selector_from_spec((ds.get("spec") or {}).get("selector"))

    async def _can_adopt(self, ds: Obj) -> None:
        """RecheckDeletionTimestamp: a quorum read shows the DaemonSet is the same and not being deleted."""
        meta = _meta(ds)
        fresh = await self.daemonsets.namespace(meta.get("namespace")).get(str(meta.get("name")))
        if _meta(fresh).get("uid") != meta.get("uid"):
            raise RuntimeError(
                f"original DaemonSet {meta.get('namespace')}/{meta.get('name')} is gone: got uid "
                f"{_meta(fresh).get('uid')}, wanted {meta.get('uid')}"
            )
        if _meta(fresh).get("deletionTimestamp"):
            raise RuntimeError(
                f"{meta.get('namespace')}/{meta.get('name')} has just been deleted at "
                f"{_meta(fresh).get('deletionTimestamp')}"
            )

    async def _claim(self, ds: Obj, candidates: list[Obj], client: Any) -> list[Obj]:
        """ClaimObjects through patches: the objects the DaemonSet keeps, after adoptions and releases."""
        claim = claim_objects(ds, self._selector(ds), candidates)
        adopting = {id(obj) for obj in claim.adopt}
        uid = str(_meta(ds).get("uid") or "")
        ref = history.ds_controller_ref(ds)
        errors: list[BaseException] = []
        claimed: list[Obj] = []
        checked = False
        for obj in claim.claimed:
            if id(obj) not in adopting:
                claimed.append(obj)
                continue
            try:
                if not checked:
                    await self._can_adopt(ds)
                    checked = True
                claimed.append(await client.patch(_meta(obj)["name"], adopt_patch(ref, obj), patch_type="strategic"))
            except NotFound:
                continue
            except Exception as exc:
                errors.append(exc)
        for obj in claim.release:
            try:
                await client.patch(_meta(obj)["name"], release_patch(uid, obj), patch_type="strategic")
            except (NotFound, Invalid):
                continue  # gone, or its owner reference already went
            except ApiError as exc:
                errors.append(exc)
        if errors:
            raise SyncErrors(errors)
        return claimed

    async def _claim_pods(self, ds: Obj) -> list[Obj]:
        namespace = str(_meta(ds).get("namespace") or "")
        pods = self.pod_informer.lister.namespace(namespace).list()
        return await self._claim(ds, pods, self.pods.namespace(namespace))

    # -- history ---------------------------------------------------------------------------------------

    async def _construct_history(self, ds: Obj) -> tuple[Obj, list[Obj]]:
        """constructHistory: the current revision (created or renumbered as needed) and the old ones."""
        namespace = str(_meta(ds).get("namespace") or "")
        revisions = self.revisions.namespace(namespace)
        claimed = await self._claim(ds, self.history_informer.lister.namespace(namespace).list(), revisions)
        current: list[Obj] = []
        old: list[Obj] = []
        for revision in claimed:
            labels = _meta(revision).get("labels") or {}
            if REVISION_HASH_LABEL not in labels:
                # revisions of old controllers lack the label; their name stands in for the hash
                updated = deep_copy(revision)
                updated["metadata"]["labels"] = {**labels, REVISION_HASH_LABEL: _meta(revision)["name"]}
                revision = await revisions.update(updated)
            (current if history.matches(ds, revision) else old).append(revision)
        number = history.max_revision(old) + 1
        if not current:
            return await self._snapshot(ds, number), old
        keep = await self._dedup(ds, current)
        if history.revision_number(keep) < number:
            renumbered = deep_copy(keep)
            renumbered["revision"] = number
            keep = await revisions.update(renumbered)
        return keep, old

    async def _snapshot(self, ds: Obj, number: int) -> Obj:
        namespace = str(_meta(ds).get("namespace") or "")
        revisions = self.revisions.namespace(namespace)
        revision = history.snapshot(ds, number)
        try:
            return await revisions.create(revision)
        except AlreadyExists as exists:
            found = await revisions.get(revision["metadata"]["name"])
            if history.matches(ds, found):
                return found
            # a different template hashed to the same name: bump collisionCount so the next hash differs
            fresh = await self.daemonsets.namespace(namespace).get(_meta(ds)["name"])
            seen = (ds.get("status") or {}).get("collisionCount")
            latest = (fresh.get("status") or {}).get("collisionCount")
            if seen != latest:
                raise RuntimeError(
                    f"found a stale collision count ({seen}, expected {latest}) of DaemonSet "
                    f'"{_meta(ds).get("name")}" while processing; will retry until it is updated'
                ) from exists
            fresh.setdefault("status", {})["collisionCount"] = int(latest or 0) + 1
            await self.daemonsets.namespace(namespace).update_status(fresh)
            raise

    async def _dedup(self, ds: Obj, current: list[Obj]) -> Obj:
        """dedupCurHistories: keep one current revision, relabel pods of the others to it, delete those."""
        if len(current) == 1:
            return current[0]
        keep = history.keep_of_duplicates(current)
        keep_hash = history.revision_hash_of(keep)
        namespace = str(_meta(ds).get("namespace") or "")
        pods = self.pods.namespace(namespace)
        for pod in await self._claim_pods(ds):
            if history.revision_hash_of(pod) != keep_hash:
                await pods.patch(_meta(pod)["name"], {"metadata": {"labels": {REVISION_HASH_LABEL: keep_hash}}})
        revisions = self.revisions.namespace(namespace)
        for revision in current:
            if _meta(revision).get("name") != _meta(keep).get("name"):
                await revisions.delete(_meta(revision)["name"])
        return keep

    async def _cleanup_history(self, ds: Obj, old: list[Obj]) -> None:
        by_node = await self._nodes_to_daemon_pods(ds, True)
        live = [pod for pods in by_node.values() for pod in pods]
        revisions = self.revisions.namespace(str(_meta(ds).get("namespace") or ""))
        for name in history.revisions_to_clean(ds, old, live):
            await revisions.delete(name)

    # -- status ----------------------------------------------------------------------------------------

    async def _update_status(
        self, ds: Obj, nodes: list[Obj], revision_hash: str, observe_generation: bool, requeue: list[float]
    ) -> None:
        by_node = await self._nodes_to_daemon_pods(ds, False)
        counts = sync.daemon_set_status(ds, nodes, by_node, revision_hash, self._now(), self._placement_of(ds))
        try:
            await self._store_status(ds, counts, observe_generation)
        except Exception as exc:
            raise RuntimeError(f"error storing status for daemon set {meta_namespace_key(ds)}: {exc}") from exc
        min_ready = sync.min_ready_seconds(ds)
        if min_ready > 0 and counts.number_ready != counts.number_available:
            # a last look once pods may have become available, should a clock skew hide it
            requeue.append(float(min_ready))

    async def _store_status(self, ds: Obj, counts: sync.DaemonSetCounts, observe_generation: bool) -> None:
        if sync.status_unchanged(ds, counts):
            return
        meta = _meta(ds)
        client = self.daemonsets.namespace(meta.get("namespace"))
        to_update = deep_copy(ds)
        attempt = 0
        while True:
            status = to_update.setdefault("status", {})
            if observe_generation:
                status["observedGeneration"] = meta.get("generation")
            sync.write_counts(status, counts)
            try:
                await client.update_status(to_update)
                return
            except ApiError:
                if attempt >= STATUS_UPDATE_RETRIES:
                    raise
            attempt += 1
            to_update = await client.get(str(meta.get("name")))


def build(clients: ComponentClient) -> DaemonSetController:
    return DaemonSetController(clients)
