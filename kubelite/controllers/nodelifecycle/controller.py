"""kube-controller-manager's node lifecycle controller (pkg/controller/nodelifecycle), over HTTP.

Three loops on the controller's clock, as kube's:
- every `monitor_period` (5 s), each node's health (`health.check_health`): a node silent past the grace
  period gets its conditions Unknown; a node whose Ready condition left True gets the `NodeNotReady` event
  and its pods Ready=False; NoExecute taints follow the Ready condition as last observed (`unreachable` for
  Unknown, `not-ready` for False, both removed when True), added through each zone's rate-limited queue;
  then the zones' disruption states, which slow or stop those taints when many nodes fail at once (all
  nodes of every zone down looks like the control plane's own network failing, not the nodes');
- every 100 ms, the queued NoExecute taints the zones' rate limits allow;
- on every change of a node, its NoSchedule taints mirroring its conditions and spec.unschedulable (kube's
  TaintNodesByCondition), and on a pod's assignment to a node that is not Ready, that pod's Ready=False.

Taints are written with the node's resourceVersion as a precondition, retried from a fresh read on a
conflict; the taints the controller adds carry timeAdded.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client import errors
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs
from kubelite.client.cache.keys import meta_namespace_key
from kubelite.client.cache.shared_informer import SharedIndexInformer
from kubelite.client.cache.store import IndexConflictError
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.controllers.nodelifecycle import health as nodehealth
from kubelite.controllers.nodelifecycle import taints as nodetaints
from kubelite.controllers.nodelifecycle.pods import not_ready
from kubelite.controllers.nodelifecycle.tainter import (
    EVICTION_QPS,
    LARGE_CLUSTER_THRESHOLD,
    SECONDARY_EVICTION_QPS,
    ZoneTainter,
)

log = logging.getLogger(__name__)

NAME = "node-lifecycle-controller"
#: the events' source, as kube's
EVENT_SOURCE = "node-controller"
NODE_LEASE_NAMESPACE = "kube-node-lease"
#: kube's NodeEvictionPeriod: how often the NoExecute taint queues are tried
NODE_EVICTION_PERIOD = 0.1
#: tries of a node's health update, re-reading the node between them
NODE_HEALTH_UPDATE_RETRY = 5
TAINT_UPDATE_RETRY = 5
#: the label that keeps a node out of the zones' disruption counts
EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption"
NODE_NAME_INDEX = "spec.nodeName"

NODES = ("", "v1", "nodes")
PODS = ("", "v1", "pods")
LEASES = ("coordination.k8s.io", "v1", "leases")


def pod_node_index(pod: Obj) -> list[str]:
    node = (pod.get("spec") or {}).get("nodeName")
    return [node] if isinstance(node, str) and node else []


def add_node_name_index(informer: SharedIndexInformer) -> None:
    """The pods informer's index by spec.nodeName (both controllers ask for it; the first adds it)."""
    try:
        informer.add_indexers({NODE_NAME_INDEX: pod_node_index})
    except IndexConflictError:
        pass


class NodeLifecycleController:
    def __init__(
        self,
        clients: ComponentClient,
        *,
        monitor_period: float = nodehealth.NODE_MONITOR_PERIOD,
        grace_period: float = nodehealth.NODE_MONITOR_GRACE_PERIOD,
        startup_grace_period: float = nodehealth.NODE_STARTUP_GRACE_PERIOD,
        eviction_qps: float = EVICTION_QPS,
        secondary_eviction_qps: float = SECONDARY_EVICTION_QPS,
        large_cluster_threshold: int = LARGE_CLUSTER_THRESHOLD,
        unhealthy_zone_threshold: float = nodehealth.UNHEALTHY_ZONE_THRESHOLD,
    ) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.monitor_period = monitor_period
        self.grace_period = grace_period
        self.startup_grace_period = startup_grace_period
        self.eviction_qps = eviction_qps
        self.secondary_eviction_qps = secondary_eviction_qps
        self.large_cluster_threshold = large_cluster_threshold
        self.unhealthy_zone_threshold = unhealthy_zone_threshold
        self.node_client = clients.resource(*NODES)
        self.pod_client = clients.resource(*PODS)
        self.recorder = clients.recorder(EVENT_SOURCE)
        self.nodes = clients.informers.for_resource(NODES, namespaced=False)
        self.pods = clients.informers.for_resource(PODS)
        self.leases = clients.informers.for_resource(LEASES)
        add_node_name_index(self.pods.informer)
        self.controller = Controller(NAME, self.reconcile, workers=4, clock=self.clock)
        # node changes: the NoSchedule taints; the other two informers only need to be synced
        self.controller.watch(self.nodes.informer, keys=lambda node: [f"node:{node['metadata']['name']}"])
        self.controller.watch(self.leases.informer, predicate=lambda _: False)
        self.controller.watch(self.pods.informer, predicate=lambda _: False)
        self.pods.informer.add_event_handler(
            ResourceEventHandlerFuncs(
                add=lambda pod: self._pod_updated(None, pod),
                update=self._pod_updated,
                delete=lambda _: None,
            )
        )
        self.health: dict[str, nodehealth.NodeHealth] = {}
        self.known: dict[str, Obj] = {}
        self.zone_states: dict[str, str] = {}
        self.tainters: dict[str, ZoneTainter] = {}
        #: nodes whose pods could not all be marked not Ready: tried again at the next pass
        self.retry: set[str] = set()

    # -- the loops ---------------------------------------------------------------------------------------

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self.controller.run(), name=f"{NAME} workers")
            group.create_task(self._every(self.monitor_period, self.monitor), name=f"{NAME} monitor")
            group.create_task(self._every(NODE_EVICTION_PERIOD, self.taint_pass), name=f"{NAME} tainting")

    async def _every(self, period: float, action: Callable[[], Awaitable[None]]) -> None:
        await wait_for_cache_sync(self.controller.has_synced, clock=self.clock)
        while True:
            try:
                await action()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: %s failed", NAME, getattr(action, "__name__", "a pass"))
            await self.clock.sleep(period)

    def _pod_updated(self, old: Obj | None, new: Obj) -> None:
        node = (new.get("spec") or {}).get("nodeName")
        if node and (old is None or (old.get("spec") or {}).get("nodeName") != node):
            self.controller.queue.add(f"pod:{meta_namespace_key(new)}")

    async def reconcile(self, key: str) -> float | None:
        kind, _, name = key.partition(":")
        if kind == "node":
            await self.no_schedule_taint_pass(name)
        elif kind == "pod":
            await self.process_pod(name)
        return None

    # -- NoSchedule taints from conditions (TaintNodesByCondition) ---------------------------------------

    async def no_schedule_taint_pass(self, name: str) -> None:
        node = self.nodes.informer.indexer.get_by_key(name)
        if node is None:
            return
        wanted: list[nodetaints.Taint] = []
        for cond in (node.get("status") or {}).get("conditions") or ():
            key = nodetaints.CONDITION_TAINTS.get(cond.get("type"), {}).get(cond.get("status"))
            if key is not None:
                wanted.append({"key": key, "effect": nodetaints.NO_SCHEDULE})
        if (node.get("spec") or {}).get("unschedulable"):
            wanted.append({"key": nodetaints.UNSCHEDULABLE, "effect": nodetaints.NO_SCHEDULE})
        owned = [
            t
            for t in nodetaints.with_effect(nodetaints.node_taints(node), nodetaints.NO_SCHEDULE)
            if t.get("key") == nodetaints.UNSCHEDULABLE or t.get("key") in nodetaints.CONDITION_TAINT_KEYS
        ]
        add, remove = nodetaints.diff(wanted, owned)
        if add or remove:
            await self.swap_taints(name, add, remove)

    # -- pods assigned to a node that is not Ready --------------------------------------------------------

    async def process_pod(self, key: str) -> None:
        pod = self.pods.informer.indexer.get_by_key(key)
        if pod is None:
            return
        node_name = (pod.get("spec") or {}).get("nodeName") or ""
        known = self.health.get(node_name)
        if known is None or self.nodes.informer.indexer.get_by_key(node_name) is None:
            return
        if known.ready is None or known.ready.get("status") == "True":
            return
        await self.mark_pods_not_ready([pod], node_name)

    async def mark_pods_not_ready(self, pods: list[Obj], node_name: str) -> None:
        """MarkPodsNotReady: Ready=False on each of the node's pods still Ready, each with an event; raises
        when some could not be written (the pass tries the node again)."""
        failures: list[Exception] = []
        for pod in pods:
            changed = not_ready(pod, node_name, nodehealth.stamp(self.clock.now()))
            if changed is None:
                continue
            try:
                written = await self.pod_client.update_status(changed)
            except errors.NotFound:
                continue
            except errors.ApiError as exc:
                log.info("%s: failed to mark pod %s not Ready: %s", NAME, meta_namespace_key(pod), exc)
                failures.append(exc)
                written = changed
            self.recorder.event(written, "Warning", "NodeNotReady", "Node is not ready")
        if failures:
            raise failures[0]

    # -- taints ---------------------------------------------------------------------------------------------

    async def swap_taints(self, name: str, add: list[nodetaints.Taint], remove: list[nodetaints.Taint]) -> bool:
        """SwapNodeControllerTaint: add (stamped with timeAdded) and remove taints in one write, from the
        cached node first and a fresh read after a conflict. Whether it succeeded."""
        at = nodehealth.stamp(self.clock.now())
        stamped = [{**t, "timeAdded": at} for t in add]
        node = self.nodes.informer.indexer.get_by_key(name)
        for attempt in range(TAINT_UPDATE_RETRY):
            try:
                if node is None or attempt > 0:
                    node = await self.node_client.get(name)
                new = nodetaints.swapped(nodetaints.node_taints(node), stamped, remove)
                if new is None:
                    return True
                changed = copy.deepcopy(node)
                changed.setdefault("spec", {})["taints"] = new
                if not new:
                    changed["spec"].pop("taints")
                await self.node_client.update(changed)
                return True
            except errors.NotFound:
                return False
            except errors.Conflict:
                continue
            except errors.ApiError as exc:
                log.info("%s: failed to change the taints of node %s: %s", NAME, name, exc)
                return False
        return False

    async def mark_reachable(self, node: Obj) -> bool:
        name = node["metadata"]["name"]
        ok = await self.swap_taints(name, [], [nodetaints.UNREACHABLE_NO_EXECUTE, nodetaints.NOT_READY_NO_EXECUTE])
        tainter = self.tainters.get(nodehealth.zone_key(node))
        if tainter is not None:
            tainter.remove(name)
        return ok

    def _mark_for_tainting(self, node: Obj, status: str) -> None:
        tainter = self._tainter(node)
        name, taints = node["metadata"]["name"], nodetaints.node_taints(node)
        wanted = nodetaints.NOT_READY_NO_EXECUTE if status == "False" else nodetaints.UNREACHABLE_NO_EXECUTE
        if not nodetaints.exists(taints, wanted):
            tainter.remove(name)  # a taint to change: queued afresh
        tainter.add(name, self.clock.monotonic())

    def _tainter(self, node: Obj) -> ZoneTainter:
        zone = nodehealth.zone_key(node)
        tainter = self.tainters.get(zone)
        if tainter is None:
            self.zone_states[zone] = nodehealth.INITIAL
            tainter = self.tainters[zone] = ZoneTainter(self.clock.monotonic(), self.eviction_qps)
        return tainter

    async def process_taint_based_eviction(self, node: Obj, observed: dict[str, Any]) -> None:
        taints = nodetaints.node_taints(node)
        status = observed.get("status")
        if status == "False":
            if nodetaints.exists(taints, nodetaints.UNREACHABLE_NO_EXECUTE):
                # already tainted for the other reason: swapped at once, no new eviction wave
                await self.swap_taints(
                    node["metadata"]["name"], [nodetaints.NOT_READY_NO_EXECUTE], [nodetaints.UNREACHABLE_NO_EXECUTE]
                )
            else:
                self._mark_for_tainting(node, "False")
        elif status == "Unknown":
            if nodetaints.exists(taints, nodetaints.NOT_READY_NO_EXECUTE):
                await self.swap_taints(
                    node["metadata"]["name"], [nodetaints.UNREACHABLE_NO_EXECUTE], [nodetaints.NOT_READY_NO_EXECUTE]
                )
            else:
                self._mark_for_tainting(node, "Unknown")
        elif status == "True":
            await self.mark_reachable(node)

    async def taint_pass(self) -> None:
        """doNoExecuteTaintingPass: the queued nodes each zone's limiter lets through get their taint."""
        for tainter in list(self.tainters.values()):
            while (name := tainter.take(self.clock.monotonic())) is not None:
                node = self.nodes.informer.indexer.get_by_key(name)
                if node is None:
                    tainter.finished(name)
                    continue
                ready = nodehealth.ready_condition(node)
                if ready is None:
                    tainter.retry(name, self.clock.monotonic() + 0.05)
                    continue
                if ready.get("status") == "False":
                    add, opposite = nodetaints.NOT_READY_NO_EXECUTE, nodetaints.UNREACHABLE_NO_EXECUTE
                elif ready.get("status") == "Unknown":
                    add, opposite = nodetaints.UNREACHABLE_NO_EXECUTE, nodetaints.NOT_READY_NO_EXECUTE
                else:
                    tainter.finished(name)  # Ready again: nothing to taint
                    continue
                if await self.swap_taints(name, [add], [opposite]):
                    tainter.finished(name)
                else:
                    tainter.retry(name, self.clock.monotonic())

    # -- the health pass ------------------------------------------------------------------------------------

    async def monitor(self) -> None:
        """monitorNodeHealth: one pass over every node."""
        nodes = [n for n in self.nodes.lister.list() if (n.get("metadata") or {}).get("name")]
        names = {n["metadata"]["name"] for n in nodes}
        for node in nodes:
            name = node["metadata"]["name"]
            if name in self.known:
                self._tainter(node)
                continue
            message = f"Node {name} event: Registered Node {name} in Controller"
            self.recorder.event(node, "Normal", "RegisteredNode", message)
            self.known[name] = node
            self._tainter(node)
            await self.mark_reachable(node)
        for name in [n for n in self.known if n not in names]:
            gone = self.known.pop(name)
            message = f"Node {name} event: Removing Node {name} from Controller"
            self.recorder.event(gone, "Normal", "RemovingNode", message)
            self.health.pop(name, None)
            self.retry.discard(name)
        zones: dict[str, list[str | None]] = {}
        for node in nodes:
            await self._monitor_node(node, zones)
        await self.handle_disruption(zones, nodes)

    async def _monitor_node(self, node: Obj, zones: dict[str, list[str | None]]) -> None:
        name = node["metadata"]["name"]
        current = node
        check: nodehealth.HealthCheck | None = None
        for attempt in range(NODE_HEALTH_UPDATE_RETRY):
            lease = self.leases.informer.indexer.get_by_key(f"{NODE_LEASE_NAMESPACE}/{name}")
            check = nodehealth.check_health(
                current,
                lease,
                self.health.get(name),
                self.clock.now(),
                grace_period=self.grace_period,
                startup_grace_period=self.startup_grace_period,
            )
            self.health[name] = check.health
            if check.status_update is None:
                break
            try:
                written = await self.node_client.update_status(check.status_update)
            except errors.ApiError as exc:
                if attempt + 1 == NODE_HEALTH_UPDATE_RETRY or isinstance(exc, errors.NotFound):
                    log.info("%s: updating the health of node %s failed, no pods evicted: %s", NAME, name, exc)
                    return
                try:
                    current = await self.node_client.get(name)
                except errors.ApiError:
                    return
                continue
            self.health[name] = nodehealth.after_status_update(check, written, self.clock.now())
            current = check.status_update
            break
        assert check is not None
        labels = (node.get("metadata") or {}).get("labels") or {}
        if EXCLUDE_DISRUPTION not in labels:
            ready = check.current_ready
            zones.setdefault(nodehealth.zone_key(node), []).append(ready.get("status") if ready else None)
        if check.current_ready is None:
            self.retry.discard(name)
            return
        await self.process_taint_based_eviction(current, check.observed_ready)
        observed, now_status = check.observed_ready.get("status"), check.current_ready.get("status")
        became_not_ready = now_status != "True" and observed == "True"
        if became_not_ready:
            self.recorder.event(current, "Normal", "NodeNotReady", f"Node {name} status is now: NodeNotReady")
        if became_not_ready or (name in self.retry and observed != "True"):
            pods = self.pods.informer.indexer.by_index(NODE_NAME_INDEX, name)
            try:
                await self.mark_pods_not_ready(pods, name)
            except errors.ApiError as exc:
                log.info("%s: marking the pods of node %s not Ready failed, will retry: %s", NAME, name, exc)
                self.retry.add(name)
                return
        self.retry.discard(name)

    async def handle_disruption(self, zones: dict[str, list[str | None]], nodes: list[Obj]) -> None:
        new_states: dict[str, str] = {}
        all_fully_disrupted = True
        for zone, statuses in zones.items():
            _, state = nodehealth.zone_state(statuses, self.unhealthy_zone_threshold)
            if state != nodehealth.FULL_DISRUPTION:
                all_fully_disrupted = False
            new_states[zone] = state
            self.zone_states.setdefault(zone, nodehealth.INITIAL)
        all_were_fully_disrupted = True
        for zone in list(self.zone_states):
            if zone not in zones:
                del self.zone_states[zone]
                continue
            if self.zone_states[zone] != nodehealth.FULL_DISRUPTION:
                all_were_fully_disrupted = False
                break
        if all_fully_disrupted and all_were_fully_disrupted:
            return
        now = self.clock.monotonic()
        if all_fully_disrupted:
            log.info("%s: every node is not Ready; entering master disruption mode", NAME)
            for node in nodes:
                await self.mark_reachable(node)
            for zone in self.zone_states:
                self.tainters[zone].swap_limiter(0, now)
                self.zone_states[zone] = nodehealth.FULL_DISRUPTION
            return
        if all_were_fully_disrupted:
            log.info("%s: some nodes are Ready; leaving master disruption mode", NAME)
            wall = self.clock.now()
            for name, known in list(self.health.items()):
                self.health[name] = nodehealth.NodeHealth(wall, wall, known.ready, known.lease_renew_time)
            for zone in self.zone_states:
                self._set_limiter(zone, len(zones.get(zone, ())), new_states[zone], now)
                self.zone_states[zone] = new_states[zone]
            return
        for zone, state in list(self.zone_states.items()):
            wanted = new_states[zone]
            if state != wanted:
                log.info("%s: zone %r is now %s", NAME, zone, wanted)
                self._set_limiter(zone, len(zones.get(zone, ())), wanted, now)
                self.zone_states[zone] = wanted

    def _set_limiter(self, zone: str, size: int, state: str, now: float) -> None:
        tainter = self.tainters.get(zone)
        if tainter is None:
            return
        if state == nodehealth.NORMAL or state == nodehealth.FULL_DISRUPTION:
            qps = self.eviction_qps
        elif state == nodehealth.PARTIAL_DISRUPTION:
            qps = self.secondary_eviction_qps if size > self.large_cluster_threshold else 0.0
        else:
            return
        tainter.swap_limiter(qps, now)
