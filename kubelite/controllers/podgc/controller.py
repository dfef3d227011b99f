"""The pod garbage collector's loop, over HTTP as `system:kube-controller-manager`.

It is not driven by events: every `GC_CHECK_PERIOD` one work item ("sweep") runs the four sweeps of
`decisions` on the pod and node informers' contents. A failed sweep is retried with the queue's backoff,
then runs on its period again. A missing node is confirmed with a GET before its pods go, since the node
informer may simply lag behind.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.podgc import decisions

log = logging.getLogger(__name__)

PODS = ("", "v1", "pods")
NODES = ("", "v1", "nodes")
SWEEP = "sweep"


def _no_keys(_obj: Any) -> list[str]:
    # the informers are watched only so the controller waits for their caches
    return []


class PodGCController:
    def __init__(
        self,
        clients: ComponentClient,
        *,
        terminated_pod_threshold: int = decisions.DEFAULT_TERMINATED_POD_THRESHOLD,
        period: float = decisions.GC_CHECK_PERIOD,
        quarantine: float = decisions.QUARANTINE_TIME,
    ) -> None:
        self.clock = clients.clock
        self.threshold = terminated_pod_threshold
        self.period = period
        self.pods = clients.informers.for_resource(PODS)
        self.nodes = clients.informers.for_resource(NODES)
        self.pod_api = clients.resource(*PODS)
        self.node_api = clients.resource(*NODES)
        self.quarantine = decisions.Quarantine(quarantine)
        self.controller = Controller("pod-garbage-collector", self.reconcile, workers=1, clock=self.clock)
        self.controller.watch(self.pods.informer, keys=_no_keys)
        self.controller.watch(self.nodes.informer, keys=_no_keys)

    async def run(self) -> None:
        self.controller.queue.add(SWEEP)
        await self.controller.run()

    async def reconcile(self, key: str) -> float | None:
        await self.sweep()
        return self.period

    async def sweep(self) -> None:
        pods = self.pods.lister.list()
        nodes = {node["metadata"]["name"]: node for node in self.nodes.lister.list()}
        failures = 0
        for pod in decisions.terminated_to_delete(pods, self.threshold):
            failures += not await self._mark_failed_and_delete(pod, None)
        for pod in decisions.terminating_out_of_service(pods, nodes):
            failures += not await self._mark_failed_and_delete(pod, None)
        deleted_nodes = await self._deleted_nodes(pods, set(nodes))
        for pod in decisions.orphaned(pods, deleted_nodes):
            if await self._mark_failed_and_delete(pod, decisions.ORPHANED_CONDITION):
                log.info("forced deletion of orphaned pod %s succeeded", _ref(pod))
            else:
                failures += 1
        for pod in decisions.unscheduled_terminating(pods):
            if await self._mark_failed_and_delete(pod, None):
                log.info("forced deletion of unscheduled terminating pod %s succeeded", _ref(pod))
            else:
                failures += 1
        if failures:
            raise RuntimeError(f"{failures} pods could not be garbage collected")

    async def _deleted_nodes(self, pods: list[Obj], known: set[str]) -> set[str]:
        now = self.clock.monotonic()
        self.quarantine.add(decisions.missing_nodes(pods, known), now)
        deleted: set[str] = set()
        for name in self.quarantine.take_due(now):
            if name in known:
                continue
            try:
                await self.node_api.get(name)
            except NotFound:
                deleted.add(name)
            except Exception as exc:
                # checked again on a later sweep, if its pods are still there
                log.warning("pod GC could not get node %s: %s", name, exc)
        return deleted

    async def _mark_failed_and_delete(self, pod: Obj, condition: Any) -> bool:
        meta = pod["metadata"]
        pods = self.pod_api.namespace(meta["namespace"])
        log.info("pod GC is force deleting pod %s", _ref(pod))
        try:
            patch = decisions.failed_status_patch(pod, condition, datetime.fromtimestamp(self.clock.now(), UTC))
            if patch is not None:
                await pods.patch(meta["name"], patch, patch_type="strategic", subresource="status")
            await pods.delete(meta["name"], grace_period_seconds=0)
        except NotFound:
            return True
        except Exception as exc:
            log.warning("pod GC could not delete pod %s: %s", _ref(pod), exc)
            return False
        return True


def _ref(pod: Obj) -> str:
    return f"{pod['metadata'].get('namespace')}/{pod['metadata'].get('name')}"


def build_pod_gc_controller(clients: ComponentClient) -> PodGCController:
    return PodGCController(clients)
