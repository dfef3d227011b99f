"""kube-controller-manager's taint eviction controller (pkg/controller/tainteviction), over HTTP.

It follows the NoExecute taints of every node and the tolerations of every pod: a pod on a tainted node
that does not tolerate every NoExecute taint is deleted at once, one that does is deleted after the shortest
tolerationSeconds of the tolerations it uses (`eviction.plan`), unless the taints go first. Before deleting
it the controller adds the pod's DisruptionTarget condition; the deletion uses the pod's own grace period.
Each eviction is announced (`TaintManagerEviction`, "Marking for deletion Pod ns/name"), as is each one
called off ("Cancelling deletion of Pod ns/name"), also, as in kube, one that ran, once the pod is gone.

Deadlines are kept on the controller's clock and reached through its work queue (`add_after`).
"""

from __future__ import annotations

import logging
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client import errors
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.controllers.nodelifecycle import taints as nodetaints
from kubelite.controllers.nodelifecycle.controller import NODE_NAME_INDEX, NODES, PODS, add_node_name_index
from kubelite.controllers.nodelifecycle.eviction import Eviction, plan
from kubelite.controllers.nodelifecycle.health import stamp
from kubelite.controllers.nodelifecycle.pods import disruption_target_patch

log = logging.getLogger(__name__)

NAME = "taint-eviction-controller"
#: tries of one eviction's status patch and delete before it is given up (until the next change)
DELETE_RETRIES = 5
WORKERS = 8


def _pod_reference(key: str) -> Obj:
    namespace, name = split_meta_namespace_key(key)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}}


class TaintEvictionController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.pod_client = clients.resource(*PODS)
        self.recorder = clients.recorder(NAME)
        self.nodes = clients.informers.for_resource(NODES, namespaced=False)
        self.pods = clients.informers.for_resource(PODS)
        add_node_name_index(self.pods.informer)
        self.controller = Controller(NAME, self.reconcile, workers=WORKERS, clock=self.clock)
        # registered for the caches' sync; the handlers below decide what is queued
        self.controller.watch(self.nodes.informer, predicate=lambda _: False)
        self.controller.watch(self.pods.informer, predicate=lambda _: False)
        self.pods.informer.add_event_handler(
            ResourceEventHandlerFuncs(
                add=lambda pod: self._pod_updated(None, pod),
                update=self._pod_updated,
                delete=lambda pod: self._pod_updated(deleted_object(pod), None),
            )
        )
        self.nodes.informer.add_event_handler(
            ResourceEventHandlerFuncs(
                add=lambda node: self._node_updated(None, node),
                update=self._node_updated,
                delete=lambda node: self._node_updated(deleted_object(node), None),
            )
        )
        #: node name -> its NoExecute taints, for the nodes that have some
        self.tainted: dict[str, list[nodetaints.Taint]] = {}
        #: pod key -> its scheduled (or run) eviction
        self.evictions: dict[str, Eviction] = {}

    async def run(self) -> None:
        await self.controller.run()

    def _pod_updated(self, old: Obj | None, new: Obj | None) -> None:
        if old is not None and new is not None:
            same_node = (old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName")
            if same_node and _tolerations(old) == _tolerations(new):
                return
        pod = new if new is not None else old
        if pod is not None:
            self.controller.queue.add(f"pod:{meta_namespace_key(pod)}")

    def _node_updated(self, old: Obj | None, new: Obj | None) -> None:
        if old is not None and new is not None and _no_execute(old) == _no_execute(new):
            return
        node = new if new is not None else old
        if node is not None:
            self.controller.queue.add(f"node:{node['metadata']['name']}")

    async def reconcile(self, key: str) -> float | None:
        kind, _, rest = key.partition(":")
        if kind == "node":
            self.handle_node(rest)
        elif kind == "pod":
            self.handle_pod(rest)
        elif kind == "evict":
            return await self.fire(rest)
        return None

    # -- decisions ------------------------------------------------------------------------------------------

    def handle_node(self, name: str) -> None:
        node = self.nodes.informer.indexer.get_by_key(name)
        if node is None:
            self.tainted.pop(name, None)
            return
        taints = _no_execute(node)
        if taints:
            self.tainted[name] = taints
        else:
            self.tainted.pop(name, None)
        pods = self.pods.informer.indexer.by_index(NODE_NAME_INDEX, name)
        for pod in pods:
            key = meta_namespace_key(pod)
            if not taints:
                self.cancel(key)
            else:
                self.process(key, pod, taints)

    def handle_pod(self, key: str) -> None:
        pod = self.pods.informer.indexer.get_by_key(key)
        if pod is None:
            self.cancel(key)
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        taints = self.tainted.get(node_name)
        if taints is None:
            return
        self.process(key, pod, taints)

    def process(self, key: str, pod: Obj, taints: list[nodetaints.Taint]) -> None:
        decision = plan(_tolerations(pod), taints, self.clock.now(), self.evictions.get(key))
        if decision.cancel:
            self.cancel(key)
        if decision.schedule is not None and key not in self.evictions:
            self.evictions[key] = decision.schedule
            self.controller.queue.add_after(f"evict:{key}", max(0.0, decision.schedule.fire_at - self.clock.now()))

    def cancel(self, key: str) -> None:
        if self.evictions.pop(key, None) is not None:
            reference = _pod_reference(key)
            self.recorder.event(reference, "Normal", "TaintManagerEviction", f"Cancelling deletion of Pod {key}")

    # -- the eviction itself ------------------------------------------------------------------------------

    async def fire(self, key: str) -> float | None:
        eviction = self.evictions.get(key)
        if eviction is None or eviction.fired:
            return None
        remaining = eviction.fire_at - self.clock.now()
        if remaining > 0:
            return remaining  # woken early (a work queue wakes at its own pace): wait the rest
        self.recorder.event(_pod_reference(key), "Normal", "TaintManagerEviction", f"Marking for deletion Pod {key}")
        namespace, name = split_meta_namespace_key(key)
        client = self.pod_client.namespace(namespace)
        for attempt in range(DELETE_RETRIES):
            try:
                await self._condition_and_delete(client, name)
            except errors.ApiError as exc:
                if isinstance(exc, errors.NotFound) or attempt + 1 == DELETE_RETRIES:
                    log.info("%s: evicting pod %s failed: %s", NAME, key, exc)
                    if self.evictions.get(key) is eviction:
                        del self.evictions[key]
                    return None
                await self.clock.sleep(0.01)
                continue
            break
        if self.evictions.get(key) is eviction:
            eviction.fired = True
        return None

    async def _condition_and_delete(self, client: Any, name: str) -> None:
        pod = await client.get(name)
        patch = disruption_target_patch(pod, stamp(self.clock.now()))
        if patch is not None:
            await client.patch(name, patch, patch_type="strategic", subresource="status")
        await client.delete(name)


def _tolerations(pod: Obj) -> list[Any]:
    tolerations = (pod.get("spec") or {}).get("tolerations")
    return list(tolerations) if isinstance(tolerations, list) else []


def _no_execute(node: Obj) -> list[nodetaints.Taint]:
    return nodetaints.with_effect(nodetaints.node_taints(node), nodetaints.NO_EXECUTE)
