"""kube-controller-manager's Job controller, over the API: informers on Jobs and pods feed Job keys into a work
queue; each reconcile reads the Job and the pods it controls from the caches, asks `job.sync_job` what to do,
and does it through the API as `system:kube-controller-manager`, recording events as `job-controller`.

The order of a sync's writes is kube's, so a crash between any two of them loses no pod's outcome: pods
deleted (those the controller removes while the Job runs lose their tracking finalizer first, so they are
never counted), pods created in slow-start batches, the status naming finished pods in
`uncountedTerminatedPods`, the finalizers of those pods removed, then the status counting them. Every status
write goes through the status subresource with the Job's resourceVersion, so a write on a stale Job is a
conflict and the sync runs again.

Informers lag writes, so a sync waits until the cache has seen the previous one's: the pods it created and
deleted (kube's expectations), the finalizers it removed (kube's finalizer expectations) and the status it
wrote. A pod keeping the tracking finalizer while no running Job controls it (its Job is gone, or it was
released) loses the finalizer, as kube's orphan cleanup does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from kubelite.apimachinery.selectors import LabelSelector, SelectorError, label_selector_from_spec
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import DeletedFinalStateUnknown, meta_namespace_key, split_meta_namespace_key
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, NotFound
from kubelite.controllers.batch.job import TRACKING_FINALIZER, JobSync, created_pod_event, sync_job
from kubelite.controllers.batch.loop_support import (
    EXPECTATIONS_TTL_SECONDS,
    FinalizerExpectations,
    StatusWrites,
    controller_of,
    now_of,
    with_kind,
)
from kubelite.controllers.workloads.controller_utils import UIDTrackingExpectations, run_slow_start

log = logging.getLogger(__name__)

JOBS = ("batch", "v1", "jobs")
PODS = ("", "v1", "pods")
COMPONENT = "job-controller"
#: kube's --concurrent-job-syncs default
WORKERS = 5
#: keys of pods whose tracking finalizer no Job will remove start with this (no Job key has a colon)
ORPHAN_POD = "orphan-pod:"
#: the patch kube sends to take the tracking finalizer off a pod (and nothing else)
REMOVE_FINALIZER_PATCH = {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}}
#: a pod create refused because the namespace is going away is expected, not an error worth an event
NAMESPACE_TERMINATING = "NamespaceTerminating"


def _meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _any_controller(obj: Mapping[str, Any]) -> dict[str, Any] | None:
    return next((ref for ref in _meta(obj).get("ownerReferences") or [] if ref.get("controller")), None)


def controller_reference(job: Mapping[str, Any]) -> dict[str, Any]:
    meta = _meta(job)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _has_finalizer(pod: Mapping[str, Any]) -> bool:
    return TRACKING_FINALIZER in (_meta(pod).get("finalizers") or [])


class JobController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clients = clients
        self.clock = clients.clock
        jobs = clients.informers.for_resource(JOBS)
        pods = clients.informers.for_resource(PODS)
        self.jobs = jobs.lister
        self.pods = pods.lister
        self.job_client = clients.resource(*JOBS)
        self.pod_client = clients.resource(*PODS)
        self.recorder = clients.recorder(COMPONENT)
        self.expectations = UIDTrackingExpectations(ttl=EXPECTATIONS_TTL_SECONDS)
        self.finalizers = FinalizerExpectations()
        self.writes = StatusWrites()
        self.controller = Controller(COMPONENT, self.reconcile, workers=WORKERS, clock=self.clock)
        self.controller.watch(jobs.informer)
        # one handler does the bookkeeping and the enqueueing, so a sync never runs before its observation counts
        self._pod_events = pods.informer.add_event_handler(
            ResourceEventHandlerFuncs(add=self._pod_added, update=self._pod_updated, delete=self._pod_deleted)
        )

    async def run(self) -> None:
        await wait_for_cache_sync(self._pod_events.has_synced, clock=self.clock)
        await self.controller.run()

    # ---- pod events ----

    def _job_key(self, pod: Mapping[str, Any]) -> str | None:
        """The key of the Job controlling the pod, when the cache has that Job (with the same uid)."""
        ref = controller_of(pod, "batch/v1", "Job")
        if ref is None:
            return None
        key = f"{_meta(pod).get('namespace')}/{ref.get('name')}"
        job = self.jobs.indexer.get_by_key(key)
        if job is None or _meta(job).get("uid") != ref.get("uid"):
            return None
        return key

    def _route(self, pod: Mapping[str, Any]) -> None:
        key = self._job_key(pod)
        if key is not None:
            self.controller.queue.add(key)
        elif _any_controller(pod) is None and not _meta(pod).get("deletionTimestamp"):
            # an orphan: the Jobs whose selector matches it may adopt it
            for found in self._matching_jobs(pod):
                self.controller.queue.add(meta_namespace_key(found))
        if key is None and _has_finalizer(pod):
            ref = controller_of(pod, "batch/v1", "Job")
            if ref is not None:
                # the Job may be one the cache has not seen yet: its own sync decides
                self.controller.queue.add(f"{_meta(pod).get('namespace')}/{ref.get('name')}")
            self.controller.queue.add(ORPHAN_POD + meta_namespace_key(pod))

    def _matching_jobs(self, pod: Mapping[str, Any]) -> list[dict[str, Any]]:
        labels = _meta(pod).get("labels") or {}
        if not labels:
            return []  # every Job's selector has a requirement: nothing matches a pod without labels
        found = []
        for job in self.jobs.namespace(str(_meta(pod).get("namespace"))).list():
            try:
                selector = label_selector_from_spec((job.get("spec") or {}).get("selector"))
            except SelectorError:
                continue
            if not selector.empty and selector.matches(labels):
                found.append(job)
        return found

    def _pod_added(self, pod: dict[str, Any]) -> None:
        key = self._job_key(pod)
        if key is not None:
            if _meta(pod).get("deletionTimestamp"):
                # a pod created already terminating (a restart of the informer): its deletion is what counts
                self.expectations.deletion_of_observed(key, meta_namespace_key(pod))
            else:
                self.expectations.creation_observed(key)
        self._route(pod)

    def _pod_updated(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        if _meta(old).get("resourceVersion") == _meta(new).get("resourceVersion"):
            return
        key = self._job_key(new)
        if key is not None:
            if _meta(new).get("deletionTimestamp") and not _meta(old).get("deletionTimestamp"):
                self.expectations.deletion_of_observed(key, meta_namespace_key(new))
            if not _has_finalizer(new):
                self.finalizers.observed(key, str(_meta(new).get("uid")))
        old_key = self._job_key(old)
        if old_key is not None and old_key != key:
            self.controller.queue.add(old_key)
        self._route(new)

    def _pod_deleted(self, obj: Any) -> None:
        pod = deleted_object(obj)
        if pod is None:
            return
        key = self._job_key(pod)
        if key is not None:
            self.expectations.deletion_of_observed(key, meta_namespace_key(pod))
            self.finalizers.observed(key, str(_meta(pod).get("uid")))
            self.controller.queue.add(key)
        elif not isinstance(obj, DeletedFinalStateUnknown):
            ref = controller_of(pod, "batch/v1", "Job")
            if ref is not None:
                self.controller.queue.add(f"{_meta(pod).get('namespace')}/{ref.get('name')}")

    # ---- the sync ----

    async def reconcile(self, key: str) -> float | None:
        if key.startswith(ORPHAN_POD):
            await self._cleanup_orphan(key[len(ORPHAN_POD) :])
            return None
        namespace, name = split_meta_namespace_key(key)
        job = self.jobs.indexer.get_by_key(key)
        if job is None:
            self.expectations.delete(key)
            self.finalizers.forget(key)
            self.writes.forget(key)
            await self._release_pods_of_missing_job(namespace, name)
            return None
        now = self.clock.monotonic()
        if self.writes.stale(key, str(_meta(job).get("resourceVersion")), now):
            return None  # the watch has not brought our last status yet; its event syncs again
        if not self.expectations.satisfied(key, now) or self.finalizers.pending(key, now):
            # the events still owed arrive on the pod informer and enqueue the Job; the TTL is the fallback
            return EXPECTATIONS_TTL_SECONDS
        pods = await self._claim_pods(job)
        plan = sync_job(job, pods, now_of(self.clock))
        await self._carry_out(key, with_kind(job, "batch/v1", "Job"), pods, plan)
        return plan.requeue_after

    async def _claim_pods(self, job: dict[str, Any]) -> list[dict[str, Any]]:
        """The pods the Job controls (kube's ClaimPods): its own that its selector still matches, and orphans
        it matches, adopted with the tracking finalizer; its own that the selector no longer matches are
        released, finalizer and all."""
        meta = _meta(job)
        namespace, uid = str(meta.get("namespace")), meta.get("uid")
        try:
            selector = label_selector_from_spec((job.get("spec") or {}).get("selector"))
        except SelectorError:
            selector = LabelSelector.nothing()
        claimed: list[dict[str, Any]] = []
        orphans: list[dict[str, Any]] = []
        released: list[dict[str, Any]] = []
        for pod in self.pods.namespace(namespace).list():
            ref = _any_controller(pod)
            matches = selector.matches(_meta(pod).get("labels") or {})
            if ref is not None:
                if ref.get("uid") != uid:
                    continue
                if matches:
                    claimed.append(pod)
                elif not _meta(pod).get("deletionTimestamp"):
                    released.append(pod)
            elif matches and not _meta(pod).get("deletionTimestamp") and not meta.get("deletionTimestamp"):
                orphans.append(pod)
        client = self.pod_client.namespace(namespace)
        if orphans and await self._can_adopt(job):
            patch_ref = controller_reference(job)
            for pod in orphans:
                patch = {
                    "metadata": {
                        "ownerReferences": [patch_ref],
                        "uid": _meta(pod).get("uid"),
                        "finalizers": [TRACKING_FINALIZER],
                    }
                }
                try:
                    claimed.append(await client.patch(str(_meta(pod).get("name")), patch, patch_type="strategic"))
                except NotFound:
                    pass
        for pod in released:
            patch = {
                "metadata": {
                    "ownerReferences": [{"$patch": "delete", "uid": uid}],
                    "$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER],
                    "uid": _meta(pod).get("uid"),
                }
            }
            try:
                await client.patch(str(_meta(pod).get("name")), patch, patch_type="strategic")
            except NotFound:
                pass
        return claimed

    async def _can_adopt(self, job: dict[str, Any]) -> bool:
        """Read the Job again before adopting (kube's RecheckDeletionTimestamp): not one being deleted, nor a
        new Job of the same name."""
        meta = _meta(job)
        try:
            fresh = await self.job_client.namespace(meta.get("namespace")).get(str(meta.get("name")))
        except NotFound:
            return False
        fresh_meta = _meta(fresh)
        return fresh_meta.get("uid") == meta.get("uid") and not fresh_meta.get("deletionTimestamp")

    async def _carry_out(self, key: str, job: dict[str, Any], pods: list[dict[str, Any]], plan: JobSync) -> None:
        namespace = str(_meta(job).get("namespace"))
        pod_client = self.pod_client.namespace(namespace)
        by_name = {str(_meta(pod).get("name")): pod for pod in pods}
        failed_deletes: set[str] = set()
        error: BaseException | None = None
        # kube records a sync's pod deletions and creations as it makes them, before the conditions' events
        leading = next((i for i, e in enumerate(plan.events) if e[1] != "SuccessfulDelete"), len(plan.events))
        events = list(plan.events[:leading])
        later = list(plan.events[leading:])

        held: set[str] = set()
        if plan.status_before_finalizers is not None:
            uncounted = plan.status_before_finalizers.get("uncountedTerminatedPods") or {}
            held = {*(uncounted.get("succeeded") or []), *(uncounted.get("failed") or [])}
        removed_first: set[str] = set()

        to_delete = [by_name[name] for name in plan.pods_to_delete if name in by_name]
        # what this sync asks for, before asking: the informer may bring the first pod before create() returns
        if to_delete:
            self.expectations.expect_deletions_of(
                key, [meta_namespace_key(pod) for pod in to_delete], self.clock.monotonic()
            )
            self.expectations.raise_expectations(key, len(plan.pods_to_create), 0)
        elif plan.pods_to_create:
            self.expectations.expect_creations(key, len(plan.pods_to_create), self.clock.monotonic())
        if to_delete:

            async def delete(pod: dict[str, Any]) -> None:
                pod_name = str(_meta(pod).get("name"))
                try:
                    # a pod the Job removes while running is not one of its outcomes: it goes uncounted
                    if pod_name in plan.finalizers_to_remove and _meta(pod).get("uid") not in held:
                        await self._remove_finalizer(pod_client, pod_name)
                        removed_first.add(pod_name)
                    await pod_client.delete(pod_name)
                except NotFound:
                    self.expectations.deletion_of_observed(key, meta_namespace_key(pod))
                except ApiError as exc:
                    self.expectations.deletion_of_observed(key, meta_namespace_key(pod))
                    failed_deletes.add(pod_name)
                    events.append(("Warning", "FailedDelete", f"Error deleting: {exc.message or exc}"))
                    raise

            results = await asyncio.gather(*(delete(pod) for pod in to_delete), return_exceptions=True)
            error = next((r for r in results if isinstance(r, BaseException)), None)
            events = [
                event
                for event in events
                if not (event[1] == "SuccessfulDelete" and event[2].removeprefix("Deleted pod: ") in failed_deletes)
            ]

        if plan.pods_to_create:
            failures = await self._create_pods(key, pod_client, plan.pods_to_create, events)
            error = error or (failures[0] if failures else None)

        current = job
        if plan.status_before_finalizers is not None:
            current = await self._write_status(key, current, plan.status_before_finalizers)

        remaining = [name for name in plan.finalizers_to_remove if name in by_name and name not in removed_first]
        if remaining:
            self.finalizers.expect_removals(
                key, [str(_meta(by_name[name]).get("uid")) for name in remaining], self.clock.monotonic()
            )
            results = await asyncio.gather(
                *(self._remove_finalizer(pod_client, name) for name in remaining), return_exceptions=True
            )
            for name, result in zip(remaining, results, strict=True):
                if isinstance(result, NotFound):
                    continue
                if isinstance(result, BaseException):
                    # not removed: the status must not count it; the next sync finds it still uncounted
                    self.finalizers.observed(key, str(_meta(by_name[name]).get("uid")))
                    error = error or result
        if error is None:
            if plan.update_status and plan.status != (current.get("status") or {}):
                current = await self._write_status(key, current, plan.status)
            # the conditions' events, once the status holding them is written
            events.extend(later)
        # else the status counts what did not happen: the retry works it out again from what did
        for event_type, reason, message in events:
            self.recorder.event(current, event_type, reason, message)
        if error is not None:
            raise error

    async def _create_pods(
        self, key: str, pod_client: Any, templates: list[dict[str, Any]], events: list[tuple[str, str, str]]
    ) -> list[BaseException]:
        """Create the pods in slow-start batches; returns the errors."""
        queue: Iterator[dict[str, Any]] = iter(templates)
        failures: list[BaseException] = []
        attempted = 0

        async def create() -> None:
            nonlocal attempted
            attempted += 1
            template = next(queue)
            try:
                created = await pod_client.create(template)
            except ApiError as exc:
                # the informer will never see this pod
                self.expectations.creation_observed(key)
                failures.append(exc)
                if not exc.has_cause(NAMESPACE_TERMINATING):
                    events.append(("Warning", "FailedCreate", f"Error creating: {exc.message or exc}"))
                raise
            events.append(created_pod_event(str(_meta(created).get("name"))))

        await run_slow_start(len(templates), create)
        for _ in range(len(templates) - attempted):
            self.expectations.creation_observed(key)
        return failures

    async def _write_status(self, key: str, job: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        body = {**job, "status": status}
        updated = await self.job_client.namespace(_meta(job).get("namespace")).update_status(body)
        self.writes.wrote(key, str(_meta(job).get("resourceVersion")), self.clock.monotonic())
        return with_kind(updated, "batch/v1", "Job")

    async def _remove_finalizer(self, pod_client: Any, name: str) -> None:
        await pod_client.patch(name, REMOVE_FINALIZER_PATCH, patch_type="strategic")

    # ---- pods no running Job will account for ----

    async def _release_pods_of_missing_job(self, namespace: str, name: str) -> None:
        for pod in self.pods.namespace(namespace).list():
            ref = controller_of(pod, "batch/v1", "Job")
            if ref is not None and ref.get("name") == name and _has_finalizer(pod):
                await self._cleanup_orphan(meta_namespace_key(pod))

    async def _cleanup_orphan(self, pod_key: str) -> None:
        pod = self.pods.indexer.get_by_key(pod_key)
        if pod is None or not _has_finalizer(pod):
            return
        ref = controller_of(pod, "batch/v1", "Job")
        if ref is not None:
            job = self.jobs.indexer.get_by_key(f"{_meta(pod).get('namespace')}/{ref.get('name')}")
            if job is not None and _meta(job).get("uid") == ref.get("uid"):
                return  # its Job's own sync accounts for it (a finished one removes its stragglers' finalizers)
        namespace, name = split_meta_namespace_key(pod_key)
        try:
            await self._remove_finalizer(self.pod_client.namespace(namespace), name)
        except NotFound:
            pass


def build(clients: ComponentClient) -> JobController:
    return JobController(clients)
