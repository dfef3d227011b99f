"""kube-controller-manager's CronJob controller, over the API: informers on CronJobs and Jobs feed CronJob keys
into a work queue; each reconcile reads the CronJob and the Jobs it controls from the caches, asks
`cronjob.sync_cronjob` what to do at the clock's time, and does it through the API as
`system:kube-controller-manager`, recording events as `cronjob-controller`.

A sync deletes the Jobs to go (Replace, then the history limits; Background propagation, with the Job's uid
as precondition), creates the Job of the start time that is due, and writes the status through the status
subresource with the CronJob's resourceVersion, the created Job's reference added from the create's reply.
It is queued again at the next start time (plus kube's 100 ms) on the injected clock, so a test steps a
`FakeClock` across a schedule instead of waiting for it.

A Job is named after its start time, so a sync run again on a stale cache cannot start the same run twice
(the create is AlreadyExists); syncs still wait until the cache shows the status they last wrote.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kubelite.client.cache.handlers import deleted_object
from kubelite.client.cache.keys import split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import AlreadyExists, ApiError, NotFound
from kubelite.controllers.batch.cronjob import CronJobSync, sync_cronjob, with_created_job
from kubelite.controllers.batch.loop_support import StatusWrites, controller_of, now_of, with_kind

log = logging.getLogger(__name__)

CRONJOBS = ("batch", "v1", "cronjobs")
JOBS = ("batch", "v1", "jobs")
COMPONENT = "cronjob-controller"
#: kube's --concurrent-cron-job-syncs default
WORKERS = 5
NAMESPACE_TERMINATING = "NamespaceTerminating"


def _meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


class CronJobController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clients = clients
        self.clock = clients.clock
        cronjobs = clients.informers.for_resource(CRONJOBS)
        jobs = clients.informers.for_resource(JOBS)
        self.cronjobs = cronjobs.lister
        self.jobs = jobs.lister
        self.cronjob_client = clients.resource(*CRONJOBS)
        self.job_client = clients.resource(*JOBS)
        self.recorder = clients.recorder(COMPONENT)
        self.writes = StatusWrites()
        self.controller = Controller(COMPONENT, self.reconcile, workers=WORKERS, clock=self.clock)
        self.controller.watch(cronjobs.informer)
        self.controller.watch(jobs.informer, keys=self._owner_keys)

    @staticmethod
    def _owner_keys(job: Any) -> list[str]:
        target = deleted_object(job)
        ref = controller_of(target, "batch/v1", "CronJob") if target is not None else None
        if ref is None:
            return []
        return [f"{_meta(target).get('namespace')}/{ref.get('name')}"]

    async def run(self) -> None:
        await self.controller.run()

    async def reconcile(self, key: str) -> float | None:
        namespace, _ = split_meta_namespace_key(key)
        cronjob = self.cronjobs.indexer.get_by_key(key)
        if cronjob is None:
            self.writes.forget(key)
            return None
        if self.writes.stale(key, str(_meta(cronjob).get("resourceVersion")), self.clock.monotonic()):
            return None  # the watch has not brought our last status yet; its event syncs again
        uid = _meta(cronjob).get("uid")
        jobs = [
            job
            for job in self.jobs.namespace(namespace).list()
            if (ref := controller_of(job, "batch/v1", "CronJob")) is not None and ref.get("uid") == uid
        ]
        plan = sync_cronjob(cronjob, jobs, now_of(self.clock))
        await self._carry_out(key, with_kind(cronjob, "batch/v1", "CronJob"), plan)
        return plan.requeue_after

    async def _carry_out(self, key: str, cronjob: dict[str, Any], plan: CronJobSync) -> None:
        events = list(plan.events)
        status = plan.status
        error: BaseException | None = None

        for namespace, name, uid in plan.jobs_to_delete:
            try:
                await self.job_client.namespace(namespace).delete(
                    name, propagation_policy="Background", preconditions={"uid": uid}
                )
            except NotFound:
                pass
            except ApiError as exc:
                log.info("cronjob %s: could not delete job %s: %s", key, name, exc)
                events = [e for e in events if e != ("Normal", "SuccessfulDelete", f"Deleted job {name}")]
                events.append(("Warning", "FailedDelete", f"Deleted job: {exc.message or exc}"))
                error = error or exc

        if plan.job_to_create is not None:
            job = plan.job_to_create
            name = str(_meta(job).get("name"))
            try:
                created = await self.job_client.namespace(_meta(job).get("namespace")).create(job)
            except ApiError as exc:
                # not started: the start time stays unmet, the next sync tries it again
                events = [e for e in events if e != ("Normal", "SuccessfulCreate", f"Created job {name}")]
                previous = (cronjob.get("status") or {}).get("lastScheduleTime")
                status = {k: v for k, v in status.items() if k != "lastScheduleTime"}
                if previous is not None:
                    status["lastScheduleTime"] = previous
                if not isinstance(exc, AlreadyExists) and not exc.has_cause(NAMESPACE_TERMINATING):
                    events.append(("Warning", "FailedCreate", f"Error creating job: {exc.message or exc}"))
                error = error or exc
            else:
                status = with_created_job(status, created)

        if not status.get("active"):
            # CronJobStatus.active is omitempty: no runs is no field, as kube writes it
            status = {k: v for k, v in status.items() if k != "active"}
        current = cronjob
        if plan.update_status and status != (cronjob.get("status") or {}):
            body = {**cronjob, "status": status}
            updated = await self.cronjob_client.namespace(_meta(cronjob).get("namespace")).update_status(body)
            self.writes.wrote(key, str(_meta(cronjob).get("resourceVersion")), self.clock.monotonic())
            current = with_kind(updated, "batch/v1", "CronJob")
        for event_type, reason, message in events:
            self.recorder.event(current, event_type, reason, message)
        if error is not None:
            raise error


def build(clients: ComponentClient) -> CronJobController:
    return CronJobController(clients)
