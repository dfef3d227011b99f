"""A simulated node's kubelet, on the API: it registers its Node, keeps its Lease, and runs the pods bound to it.

What it does, as the kubelet does it (pkg/kubelet), through its own client as `system:node:<name>`:

- **Registration** (`registerWithAPIServer`): create the Node; if it exists (a restart), take it over: default
  labels and the attach-detach annotation put back, the pod CIDR set if missing, the status replaced by this
  machine's (capacity, addresses, nodeInfo), conditions keeping their transition times while they hold. Then
  the node events `kubectl describe node` shows: Starting, one per condition that is new or changed,
  NodeAllocatableEnforced.
- **Heartbeat**: the Lease `kube-node-lease/<name>` (`lease`), renewed every 10 s, retried quickly after a
  failure (re-read first: a conflict means another writer); the node status recomputed every 10 s and posted
  (a strategic merge patch, after reading the Node) when it changed or every 5 minutes (`node`).
- **Pods**: an informer of the pods whose `spec.nodeName` is this node. Each change, and each time
  `sync_pod` says something will change by itself (`next_sync_at`), syncs the pod: `admit` on first sight
  (`readmit` for a pod a previous run of the kubelet started), `sync_pod`, its Events written
  (`event_sink`), its status patched only when it differs from what the API has (`status_patch`, the
  status manager's `PatchPodStatus` with the uid precondition), and, for a pod being deleted whose containers
  have stopped, the pod deleted with grace period 0 and its uid as precondition. A pod's IP goes back to the
  node's range once the pod is terminal or gone; a restarted kubelet first holds again the addresses its
  pods' statuses show, so no two pods ever share one.

Every timer is an entry in one delaying work queue (the lease, the node status and each pod are keys of it),
waited on the component's clock: an idle node costs no task beyond its queue's, and a test steps a FakeClock.
The status the kubelet last wrote is kept per pod, and is what a sync starts from while the informer's copy is
older, so a quick second sync does not undo the first's transitions.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import AlreadyExists, ApiError, Conflict, NotFound
from kubelite.cluster.kubelet import events, lease
from kubelite.cluster.kubelet.event_sink import EventSink
from kubelite.cluster.kubelet.ip_allocator import PodIPAllocator
from kubelite.cluster.kubelet.node import (
    NODE_STATUS_UPDATE_FREQUENCY,
    NodeConfig,
    NodeHealth,
    build_node,
    node_conditions,
    refreshed_status,
    status_report_due,
)
from kubelite.cluster.kubelet.pod_lifecycle import PodRecord, admit, admitted_before, readmit, sync_pod
from kubelite.cluster.kubelet.simulation import DEFAULT_TIMING, SimulationTiming
from kubelite.cluster.kubelet.status_patch import node_status_patch, pod_status_patch

log = logging.getLogger(__name__)

PODS = ("", "v1", "pods")
NODES = ("", "v1", "nodes")
LEASES = ("coordination.k8s.io", "v1", "leases")

#: the queue's keys besides the pods' (`namespace/name`, which always hold a slash)
LEASE_KEY = "lease"
NODE_STATUS_KEY = "node-status"

#: pods synced side by side on one node
WORKERS = 2
#: registration retries: 100 ms doubling to 7 s, as the kubelet's
REGISTER_RETRY_INITIAL = 0.1
REGISTER_RETRY_MAX = 7.0
#: a failed node status report is tried again this soon, not a whole update period later
NODE_STATUS_RETRY = 1.0


@dataclass
class _PodState:
    """What the kubelet keeps of one pod between syncs."""

    record: PodRecord
    #: the status the last patch left on the server, and the resourceVersion it got
    written: Obj | None = None
    written_version: int = -1


def _version(obj: Obj) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or -1)
    except (TypeError, ValueError):
        return -1


def _default_labels_patch(existing: Obj, desired: Obj) -> Obj:
    """What a restarted kubelet puts back on its Node: its default labels (updateDefaultLabels), the
    attach-detach annotation, and the pod CIDR if none was set."""
    patch: Obj = {}
    have = existing.get("metadata") or {}
    want = desired["metadata"]
    labels = {k: v for k, v in want["labels"].items() if (have.get("labels") or {}).get(k) != v}
    annotations = {k: v for k, v in want["annotations"].items() if (have.get("annotations") or {}).get(k) != v}
    if labels or annotations:
        patch["metadata"] = {**({"labels": labels} if labels else {}),
                             **({"annotations": annotations} if annotations else {})}
    if desired["spec"].get("podCIDR") and not (existing.get("spec") or {}).get("podCIDR"):
        patch["spec"] = dict(desired["spec"])
    return patch


class Kubelet:
    def __init__(
        self,
        clients: ComponentClient,
        node: NodeConfig,
        *,
        timing: SimulationTiming = DEFAULT_TIMING,
        health: NodeHealth | None = None,
        workers: int = WORKERS,
    ) -> None:
        self.clients = clients
        self.config = node
        self.name = node.name
        self.timing = timing
        self.health = health or NodeHealth()
        self.clock: Clock = clients.clock
        self.workers = workers
        self._pod_client = clients.resource(*PODS)
        self._node_client = clients.resource(*NODES)
        self._lease_client = clients.resource(*LEASES).namespace(lease.NODE_LEASE_NAMESPACE)
        self._runs = 0
        self._start_over()

    def _start_over(self) -> None:
        """A run's state, all new: a kubelet that runs again (its cluster's leadership came back) starts as a
        restarted kubelet does, from what the API holds."""
        self._factory = self.clients.informer_factory(field_selector=f"spec.nodeName={self.name}")
        self.pods = self._factory.for_resource(PODS)
        self.controller = Controller(
            f"kubelet {self.name}", self._reconcile, workers=self.workers, max_retries=None, clock=self.clock
        )
        self.controller.watch(self.pods.informer)
        self.events = EventSink(self.clients.dynamic, name=f"kubelet {self.name}")
        #: the Node as the last write or read left it
        self.node: Obj | None = None
        self.allocator: PodIPAllocator | None = None
        self._states: dict[str, _PodState] = {}
        self._lease: Obj | None = None
        self._lease_failures = 0
        self._reported_status: Obj = {}
        self._reported_at = datetime.min.replace(tzinfo=UTC)

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now(), UTC)

    async def run(self) -> None:
        """Register, then keep the node and its pods until cancelled."""
        if self._runs:
            self._start_over()
        self._runs += 1
        try:
            await self._register()
            self._factory.start()
            await wait_for_cache_sync(self.pods.informer.has_synced, clock=self.clock)
            self._restore()
            self.controller.queue.add(LEASE_KEY)
            self.controller.queue.add_after(NODE_STATUS_KEY, NODE_STATUS_UPDATE_FREQUENCY.total_seconds())
            await self.controller.run()
        finally:
            self.controller.queue.shut_down()
            await self.events.close()
            await self._factory.shutdown()

    # -- registration ----------------------------------------------------------------------------------------

    async def _register(self) -> None:
        delay = REGISTER_RETRY_INITIAL
        while True:
            try:
                await self._try_register()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("kubelet %s: unable to register node with API server: %s", self.name, exc)
            await self.clock.sleep(delay)
            delay = min(delay * 2, REGISTER_RETRY_MAX)

    async def _try_register(self) -> None:
        now = self._now()
        desired = build_node(self.config, now, health=self.health)
        previous: list[Obj] = []
        try:
            node = await self._node_client.create(desired)
            log.info("kubelet %s: successfully registered node", self.name)
        except AlreadyExists:
            existing = await self._node_client.get(self.name)
            previous = list((existing.get("status") or {}).get("conditions") or [])
            node = await self._take_over(existing, desired, now)
        self.node = node
        self._reported_status = deep_copy(node.get("status") or {})
        self._reported_at = now
        spec = node.get("spec") or {}
        pod_cidr = spec.get("podCIDR") or self.config.pod_cidr
        self.allocator = PodIPAllocator(pod_cidr) if pod_cidr else None
        self._node_events(now, previous, (node.get("status") or {}).get("conditions") or [], starting=True)

    async def _take_over(self, existing: Obj, desired: Obj, now: datetime) -> Obj:
        meta_patch = _default_labels_patch(existing, desired)
        if meta_patch:
            existing = await self._node_client.patch(self.name, meta_patch, patch_type="strategic")
        old_status = existing.get("status") or {}
        status = dict(desired["status"])
        status["conditions"] = node_conditions(self.health, now, old_status.get("conditions"))
        patch = node_status_patch(old_status, status)
        if patch is None:
            return existing
        return await self._node_client.patch(self.name, patch, patch_type="strategic", subresource="status")

    def _node_events(self, now: datetime, previous: list[Obj], current: list[Obj], *, starting: bool) -> None:
        found: list[tuple[str, str]] = []
        if starting:
            found.append((events.STARTING, events.STARTING_MESSAGE))
        changed = events.node_condition_events(self.name, previous, current)
        # the pressure conditions, the allocatable limits, then readiness: the order of the kubelet's start
        found += [item for item in changed if item[0] not in ("NodeReady", "NodeNotReady")]
        if starting:
            found.append((events.ALLOCATABLE_ENFORCED, events.ALLOCATABLE_ENFORCED_MESSAGE))
        found += [item for item in changed if item[0] in ("NodeReady", "NodeNotReady")]
        at = self.clock.now()
        # all Normal, NodeNotReady too (recordNodeStatusEvent)
        for sequence, (reason, message) in enumerate(found):
            event = events.node_event(self.name, reason=reason, message=message, when=now, sequence=sequence)
            self.events.post(event, at)

    # -- the queue ---------------------------------------------------------------------------------------------

    async def _reconcile(self, key: str) -> float | None:
        if key == LEASE_KEY:
            return await self._renew_lease()
        if key == NODE_STATUS_KEY:
            return await self._update_node_status()
        return await self._sync(key)

    async def _renew_lease(self) -> float:
        now = self._now()
        node_uid = (self.node or {}).get("metadata", {}).get("uid")
        try:
            if self._lease is None:
                try:
                    current = await self._lease_client.get(self.name)
                except NotFound:
                    self._lease = await self._lease_client.create(lease.build_lease(self.name, now, node_uid=node_uid))
                else:
                    self._lease = await self._lease_client.update(lease.renewed_lease(current, now, node_uid=node_uid))
            else:
                self._lease = await self._lease_client.update(lease.renewed_lease(self._lease, now, node_uid=node_uid))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # read it again next time: whatever failed, the copy held may be stale
            self._lease = None
            self._lease_failures += 1
            delay = lease.retry_delay(self._lease_failures)
            log.info("kubelet %s: failed to update lease, will retry after %s: %s", self.name, delay, exc)
            return delay.total_seconds()
        self._lease_failures = 0
        return lease.RENEW_INTERVAL.total_seconds()

    async def _update_node_status(self) -> float:
        period = NODE_STATUS_UPDATE_FREQUENCY.total_seconds()
        if self.node is None:
            return period
        now = self._now()
        current = refreshed_status(self.node, now, health=self.health)
        if not status_report_due(self._reported_status, current, self._reported_at, now):
            return period
        try:
            # the status is computed over the Node as the API has it, not as this kubelet last left it
            fresh = await self._node_client.get(self.name)
            old_status = fresh.get("status") or {}
            status = refreshed_status(fresh, now, health=self.health)
            patch = node_status_patch(old_status, status)
            if patch is not None:
                fresh = await self._node_client.patch(self.name, patch, patch_type="strategic", subresource="status")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("kubelet %s: error updating node status, will retry: %s", self.name, exc)
            return NODE_STATUS_RETRY
        self.node = fresh
        self._reported_status = deep_copy(fresh.get("status") or {})
        self._reported_at = now
        self._node_events(now, old_status.get("conditions") or [], status.get("conditions") or [], starting=False)
        return period

    # -- pods --------------------------------------------------------------------------------------------------

    def _restore(self) -> None:
        """Hold the addresses of the pods a previous run of this kubelet started, before any new pod gets one."""
        assert self.node is not None
        now = self._now()
        for pod in self.pods.informer.indexer.list():
            if not admitted_before(pod):
                continue
            key = f"{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}"
            try:
                record = readmit(pod, self.node, now, self.allocator)
            except Exception as exc:  # no address left: the pod's sync will try again
                log.warning("kubelet %s: cannot restore pod %s: %s", self.name, key, exc)
                continue
            self._states[key] = _PodState(record)

    def _forget(self, key: str) -> None:
        state = self._states.pop(key, None)
        if state is not None and self.allocator is not None:
            self.allocator.release(state.record.uid)

    async def _sync(self, key: str) -> float | None:
        assert self.node is not None
        pod = self.pods.informer.indexer.get_by_key(key)
        if pod is None:
            self._forget(key)
            return None
        metadata = pod["metadata"]
        uid = metadata["uid"]
        state = self._states.get(key)
        if state is not None and state.record.uid != uid:
            # a new pod under the old one's name
            self._forget(key)
            state = None
        now = self._now()
        if state is None:
            first_sight = readmit if admitted_before(pod) else admit
            state = _PodState(first_sight(pod, self.node, now, self.allocator))
            self._states[key] = state
        view = pod
        if state.written is not None:
            if _version(pod) < state.written_version:
                view = {**pod, "status": state.written}
            else:
                # the informer caught up: its copy is as new, and the kubelet need not keep its own
                state.written = None
        result = sync_pod(view, self.node, state.record, now, timing=self.timing)
        state.record = result.record
        at = self.clock.now()
        for event in result.events:
            self.events.post(event, at)
        namespace, name = metadata.get("namespace", ""), metadata["name"]
        pods = self._pod_client.namespace(namespace)
        patch = pod_status_patch(uid, view.get("status") or {}, result.status)
        if patch is not None:
            try:
                written = await pods.patch(name, patch, patch_type="strategic", subresource="status")
            except (NotFound, Conflict) as exc:
                # gone, or another pod now: the informer brings the news
                log.info("kubelet %s: status of pod %s not written: %s", self.name, key, exc)
                return None
            state.written = written.get("status") or {}
            state.written_version = _version(written)
        if result.release_ip and self.allocator is not None:
            self.allocator.release(uid)
        if result.delete:
            try:
                await pods.delete(name, grace_period_seconds=0, preconditions={"uid": uid})
            except (NotFound, Conflict):
                pass
            except ApiError as exc:
                log.info("kubelet %s: deleting pod %s failed, will retry: %s", self.name, key, exc)
                raise
            return None
        if result.next_sync_at is None:
            return None
        return max((result.next_sync_at - self._now()).total_seconds(), 0.0)
