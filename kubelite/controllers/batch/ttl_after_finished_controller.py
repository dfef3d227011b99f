"""kube-controller-manager's TTL-after-finished controller, over the API: a finished Job with
`ttlSecondsAfterFinished` is deleted that many seconds after its Complete or Failed condition turned True.

Only Jobs that need cleaning up are queued (`job.ttl_expiry` decides). One whose time has not come is queued
again for the time left, on the injected clock. One that is due is read again from the API first, as kube's
controller does, so a TTL changed since the cache last saw the Job is honoured; then it is deleted with
Foreground propagation (its pods go first) and its uid as precondition, so a new Job of the same name is
never the one deleted. The controller records no events, as kube's does not.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kubelite.client.cache.keys import split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import Conflict, NotFound
from kubelite.controllers.batch.job import is_finished, ttl_expiry
from kubelite.controllers.batch.loop_support import now_of

log = logging.getLogger(__name__)

JOBS = ("batch", "v1", "jobs")
COMPONENT = "ttl-after-finished-controller"
#: kube's --concurrent-ttl-after-finished-syncs default
WORKERS = 5


def needs_cleanup(job: Mapping[str, Any]) -> bool:
    """A finished Job with a TTL, not already being deleted."""
    meta = job.get("metadata") or {}
    ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
    return ttl is not None and not meta.get("deletionTimestamp") and is_finished(dict(job))


class TTLAfterFinishedController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clock = clients.clock
        jobs = clients.informers.for_resource(JOBS)
        self.jobs = jobs.lister
        self.job_client = clients.resource(*JOBS)
        self.controller = Controller(COMPONENT, self.reconcile, workers=WORKERS, clock=self.clock)
        self.controller.watch(jobs.informer, predicate=needs_cleanup)

    async def run(self) -> None:
        await self.controller.run()

    async def reconcile(self, key: str) -> float | None:
        cached = self.jobs.indexer.get_by_key(key)
        if cached is None:
            return None
        due, remaining = ttl_expiry(cached, now_of(self.clock))
        if not due:
            return remaining
        namespace, name = split_meta_namespace_key(key)
        client = self.job_client.namespace(namespace)
        try:
            fresh = await client.get(name)
        except NotFound:
            return None
        due, remaining = ttl_expiry(fresh, now_of(self.clock))
        if not due:
            return remaining
        uid = str((fresh.get("metadata") or {}).get("uid"))
        log.info("deleting job %s: its ttlSecondsAfterFinished has passed", key)
        try:
            await client.delete(name, propagation_policy="Foreground", preconditions={"uid": uid})
        except (NotFound, Conflict):
            pass  # gone already, or replaced by another Job of the same name
        return None


def build(clients: ComponentClient) -> TTLAfterFinishedController:
    return TTLAfterFinishedController(clients)
