"""Completes graceful pod deletion once the grace period is over.

On a real cluster the kubelet stops a terminating pod's containers and then deletes the pod with a grace
period of zero. A pod on a node no simulated kubelet runs (a Node created by hand, a server with `--nodes=0`)
has nobody to take that step, so this controller stands in for it: a pod marked for deletion goes when its
deletionGracePeriodSeconds have passed (finalizers still hold it, as they would). On simulated nodes the
kubelet usually gets there first, once the containers stop.

The shared pod informer feeds the keys of terminating pods into a delaying work queue. Reconciling a key reads
the pod from the lister: before its deadline, the key is queued again for the time that remains; after it, the
pod is deleted with a grace period of zero and its uid as a precondition, so a new pod of the same name is
never touched. A pod that finalizers hold is left alone until an update removes the last of them.

Deadlines are read and waited for on the controller's clock (`kubelite.client.clock`): tests give it a
`FakeClock` and step time past a grace period instead of sleeping through it.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import parse_rfc3339
from kubelite.client.cache.keys import split_meta_namespace_key
from kubelite.client.cache.store import Indexer
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams

#: deletions run side by side when many pods reach their deadline together (a scaled-down workload)
WORKERS = 5


def is_terminating(pod: Any) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


class PodTerminationController:
    def __init__(
        self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None
    ) -> None:
        self.store = registry.store("", "pods")
        pods = informers.for_resource("", "pods")
        self.pods: Indexer = pods.informer.indexer
        self.controller = Controller("pod-termination", self.reconcile, workers=WORKERS, clock=clock)
        #: the deadlines are read on the controller's clock (its `now()`), and the waits sleep on it
        self.clock = self.controller.clock
        self.controller.watch(pods.informer, predicate=is_terminating)

    async def reconcile(self, key: str) -> float | None:
        """None when done with the pod; otherwise the seconds until its grace period ends."""
        pod = self.pods.get_by_key(key)
        if pod is None:
            return None
        meta = pod["metadata"]
        if not meta.get("deletionTimestamp") or meta.get("finalizers"):
            return None
        remaining = parse_rfc3339(meta["deletionTimestamp"]).timestamp() - self.clock.now()
        if remaining > 0:
            return remaining
        namespace, name = split_meta_namespace_key(key)
        at_once = DeleteParams(grace_period_seconds=0, precondition_uid=meta["uid"])
        try:
            await self.store.delete(namespace, name, at_once)
        except StatusError as exc:
            if exc.code not in (404, 409):  # already gone, or replaced by a new pod of the same name
                raise
        return None

    async def run(self) -> None:
        await self.controller.run()
