"""kube-scheduler, wired to the API: it watches pods, nodes and namespaces, places pending pods and binds them.

Everything goes through the API as the component's own user (the `ComponentClient` it is given):
- The pod informer leaves finished pods out (kube-scheduler's `status.phase!=Succeeded,status.phase!=Failed`).
  Pods with a node feed the cache (`SchedulerCache`); pods without one, naming this scheduler, not being deleted,
  wait in the `SchedulingQueue`. Nodes and namespaces feed the cache too.
- Cluster events move pods the queue holds as unschedulable on, as kube's queueing hints do: a node added, a
  node whose scheduling properties changed (not a heartbeat), an assigned pod added (affinity, spread) or gone
  (deleted or finished, freeing room).
- One scheduling loop (kube's scheduleOne): pop, decide on the cache's snapshot, and either
  - assume the pod on the chosen node and bind it in the background (POST pods/{name}/binding; the next cycle
    already counts the pod there), then record `Scheduled`; a binding that fails forgets the assumed pod, moves
    other pods on (the room it held is free again) and is handled as a failure with reason SchedulerError; or
  - record `FailedScheduling` with the decision's message, patch `PodScheduled=False` (reason Unschedulable)
    through pods/status, and hand the pod back to the queue as unschedulable, with the plugins that rejected it.
  A pod deleted or bound by someone else meanwhile is not handed back (kube re-reads it from the informer).
  When preemption makes room (`preemption.py`), the victims are marked DisruptionTarget, deleted and told so
  (`Preempted`), and the pod's status names the node (`nominatedNodeName`); it waits as unschedulable until the
  victims' deletions move it on. Pods nominated to a node count there for pods of no higher priority.
- Events are events.k8s.io/v1, as kube-scheduler writes them (`events.EventWriter`).

A failure in one cycle is logged and the pod retried with backoff; the loop goes on. `run()` lasts until cancelled.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Coroutine, Mapping
from typing import Any, Final

from kubelite.client.cache.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandlerFuncs,
    deleted_object,
)
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.component import ComponentClient
from kubelite.client.errors import ClientError, NotFound
from kubelite.cluster.scheduler import binding as writes
from kubelite.cluster.scheduler.cache import (
    ASSUMED_TTL,
    CLEANUP_PERIOD,
    SchedulerCache,
    assigned,
    node_update_may_help,
    terminal,
)
from kubelite.cluster.scheduler.events import EventWriter
from kubelite.cluster.scheduler.preemption import Candidate, nominations_to_clear
from kubelite.cluster.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    NODE_UPDATE,
    QueueClosedError,
    QueuedPodInfo,
    SchedulingQueue,
)
from kubelite.cluster.scheduler.schedule import Scheduler
from kubelite.cluster.scheduler.snapshot import PodInfo

log = logging.getLogger(__name__)

PODS: Final = ("", "v1", "pods")
NODES: Final = ("", "v1", "nodes")
NAMESPACES: Final = ("", "v1", "namespaces")
PDBS: Final = ("policy", "v1", "poddisruptionbudgets")
#: kube-scheduler's pod informer never sees finished pods
POD_FIELD_SELECTOR: Final = "status.phase!=Succeeded,status.phase!=Failed"
#: bindings and status patches in flight at once; past it the loop waits (kube bounds them by its goroutines)
MAX_IN_FLIGHT_WRITES: Final = 32
DEFAULT_BINDER: Final = "DefaultBinder"


def _unwrap(obj: Any) -> Mapping[str, Any] | None:
    target = deleted_object(obj)
    return target if isinstance(target, Mapping) else None


class SchedulerComponent:
    def __init__(self, clients: ComponentClient, *, scheduler_name: str = writes.SCHEDULER_NAME,
                 scheduler: Scheduler | None = None, assumed_ttl: float = ASSUMED_TTL,
                 host: str | None = None) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.scheduler_name = scheduler_name
        self.algorithm = scheduler or Scheduler()
        self.queue = SchedulingQueue(self.clock)
        self.cache = SchedulerCache(ttl=assumed_ttl)
        self.events = EventWriter(clients.dynamic, self.clock)
        self.instance = writes.reporting_instance(host)
        self._pods_api = clients.resource(*PODS)
        self.pods = clients.informer_factory(field_selector=POD_FIELD_SELECTOR).for_resource(PODS)
        self.nodes = clients.informers.for_resource(NODES, namespaced=False)
        self.namespaces = clients.informers.for_resource(NAMESPACES, namespaced=False)
        self.pdbs = clients.informers.for_resource(PDBS)
        #: pods waiting for the room preemption made them: node name -> uid -> pod (kube's nominator)
        self.nominated: dict[str, dict[str, PodInfo]] = {}
        self._nominated_node: dict[str, str] = {}
        self._writes = asyncio.Semaphore(MAX_IN_FLIGHT_WRITES)
        self._tasks: set[asyncio.Task[None]] = set()
        self._registrations = [
            self.pods.informer.add_event_handler(FilteringResourceEventHandler(
                lambda obj: (pod := _unwrap(obj)) is not None and assigned(pod),
                ResourceEventHandlerFuncs(add=self._assigned_pod_added, update=self._assigned_pod_updated,
                                          delete=self._assigned_pod_deleted))),
            self.pods.informer.add_event_handler(FilteringResourceEventHandler(
                lambda obj: (pod := _unwrap(obj)) is not None and self.responsible_for(pod),
                ResourceEventHandlerFuncs(add=self._pending_pod_added, update=self._pending_pod_updated,
                                          delete=self._pending_pod_deleted))),
            self.nodes.informer.add_event_handler(ResourceEventHandlerFuncs(
                add=self._node_added, update=self._node_updated, delete=self._node_deleted)),
            self.namespaces.informer.add_event_handler(ResourceEventHandlerFuncs(
                add=self.cache.set_namespace, update=lambda old, new: self.cache.set_namespace(new),
                delete=self._namespace_deleted)),
        ]

    def responsible_for(self, pod: Mapping[str, Any]) -> bool:
        """A pod this scheduler should place: no node yet, our name, not being deleted, not finished."""
        spec = pod.get("spec") or {}
        return (not spec.get("nodeName")
                and (spec.get("schedulerName") or writes.SCHEDULER_NAME) == self.scheduler_name
                and (pod.get("metadata") or {}).get("deletionTimestamp") is None
                and not terminal(pod))

    # -- running -----------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Schedule until cancelled. Run again after a cancellation (a lease lost, then won back), it picks up
        where it stopped: the cache and the queue were kept current meanwhile, and the pods whose cycle or
        binding the cancellation cut short were handed back."""
        self.clients.start_informers()
        self._writes = asyncio.Semaphore(MAX_IN_FLIGHT_WRITES)
        tasks: list[asyncio.Task[None]] = []
        try:
            await wait_for_cache_sync(
                self.pods.informer.has_synced, self.nodes.informer.has_synced, self.namespaces.informer.has_synced,
                self.pdbs.informer.has_synced,
                *(registration.has_synced for registration in self._registrations), clock=self.clock)
            log.info("%s: caches synced, scheduling", self.scheduler_name)
            tasks = [
                asyncio.create_task(self.queue.run(), name="scheduling queue timers"),
                asyncio.create_task(self.events.run(), name="scheduler events"),
                asyncio.create_task(self._expire_assumed(), name="assumed pod expiry"),
                asyncio.create_task(self._schedule_loop(), name="scheduling loop"),
            ]
            await asyncio.gather(*tasks)
        finally:
            pending = [*tasks, *self._tasks]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            # a binding cut short may or may not have landed: its pod is tried again unless the watch says bound
            self.cache.forget_unfinished()
            self.queue.requeue_in_flight()

    async def _schedule_loop(self) -> None:
        while True:
            try:
                info = await self.queue.pop()
            except QueueClosedError:
                return
            cycle = self.queue.scheduling_cycle
            try:
                await self.schedule_one(info, cycle)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("scheduling %s failed; retrying", _name(info.pod))
                self.cache.forget(info.pod)
                self.queue.add_unschedulable(info, cycle)
            # the informers' handlers and the writers run between cycles
            await asyncio.sleep(0)

    async def _expire_assumed(self) -> None:
        while True:
            await self.clock.sleep(CLEANUP_PERIOD)
            for pod in self.cache.cleanup(self.clock.monotonic()):
                log.warning("assumed pod %s expired: its binding was never observed", _name(pod))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.clock.now(), tz=dt.UTC)

    # -- one cycle ---------------------------------------------------------------------------------------

    async def schedule_one(self, info: QueuedPodInfo, cycle: int) -> None:
        pod = info.pod
        if (pod.get("metadata") or {}).get("deletionTimestamp") is not None or self.cache.knows(pod):
            # being deleted, or already assumed or bound (an update came back through the queue)
            self.queue.done(info.uid)
            return
        decision = self.algorithm.schedule(pod, self.cache.snapshot, nominated=self._nominated_pods(),
                                           pdbs=self.pdbs.lister.list() if decision_may_preempt(pod) else ())
        if decision.node_name is None:
            node = None
            if decision.preemption is not None:
                node = decision.preemption.node_name
                await self._preempt(pod, decision.preemption)
            await self._failed(info, cycle, decision.message, writes.UNSCHEDULABLE, decision.rejected_by,
                               nominate=node)
            return
        self.cache.assume(pod, decision.node_name)
        await self._writes.acquire()
        self._spawn(self._bind(info, cycle, decision.node_name))

    async def _bind(self, info: QueuedPodInfo, cycle: int, node_name: str) -> None:
        pod = info.pod
        metadata = pod.get("metadata") or {}
        error: Exception | None = None
        try:
            await self._pods_api.namespace(metadata.get("namespace")).create(
                writes.binding(pod, node_name), subresource="binding", name=metadata.get("name"))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # an API refusal or a transport failure alike: the pod is tried again
            error = exc
        finally:
            self._writes.release()
        if error is None:
            self.cache.finish_binding(pod, self.clock.monotonic())
            self.queue.done(info.uid)
            self.events.emit(writes.scheduled_event(pod, node_name, now=self._now(), instance=self.instance))
            return
        log.info("binding %s to %s failed: %s", _name(pod), node_name, error)
        self.cache.forget(pod)
        # the room the pod held is free again (kube treats the forgotten pod as an assigned pod deleted)
        self.queue.move_on_event(ASSIGNED_POD_DELETE)
        message = f'running Bind plugin "{DEFAULT_BINDER}": {error}'
        await self._failed(info, cycle, message, writes.SCHEDULER_ERROR, frozenset())

    async def _failed(self, info: QueuedPodInfo, cycle: int, message: str, reason: str,
                      rejected_by: frozenset[str], *, nominate: str | None = None) -> None:
        """kube's handleSchedulingFailure: back to the queue unless gone or bound meanwhile, then the event and
        the PodScheduled condition (with the node preemption nominated, if any)."""
        pod = info.pod
        latest = self._cached(pod)
        if latest is None or assigned(latest):
            self.queue.done(info.uid)
        else:
            info.pod = latest
            self.queue.add_unschedulable(info, cycle, rejected_by)
        self.events.emit(writes.failed_scheduling_event(pod, message, now=self._now(), instance=self.instance))
        condition = writes.unschedulable_condition(message, now=self._now(), reason=reason)
        patch = writes.pod_condition_patch(latest or pod, condition)
        if nominate is not None:
            self._nominate(PodInfo(latest or pod), nominate)
            patch = writes.nomination_patch(patch, nominate)
        if patch is not None:
            await self._writes.acquire()
            self._spawn(self._patch_status(pod, patch))

    async def _preempt(self, preemptor: Mapping[str, Any], candidate: Candidate) -> None:
        """prepareCandidate: evict the victims and take back the nominations the node can no longer honour."""
        for victim in candidate.victims:
            await self._writes.acquire()
            self._spawn(self._evict(victim.pod, preemptor, candidate.node_name))
        for displaced in nominations_to_clear(candidate.node_name, PodInfo(preemptor), self._nominated_pods()):
            self._forget_nomination(displaced.uid)
            await self._writes.acquire()
            self._spawn(self._patch_status(displaced.pod, writes.nomination_patch(None, None)))
        log.info("preempting %d pod(s) on %s for %s", len(candidate.victims), candidate.node_name, _name(preemptor))

    async def _evict(self, victim: Mapping[str, Any], preemptor: Mapping[str, Any], node_name: str) -> None:
        metadata = victim.get("metadata") or {}
        pods = self._pods_api.namespace(metadata.get("namespace"))
        name = str(metadata.get("name"))
        try:
            condition = writes.disruption_target_condition(self.scheduler_name, now=self._now())
            patch = writes.pod_condition_patch(victim, condition)
            if patch is not None:
                await pods.patch(name, patch, patch_type="strategic", subresource="status")
            uid = str(metadata.get("uid") or "")
            # the uid precondition: a new pod of the victim's name is never the one deleted
            await pods.delete(name, preconditions={"uid": uid} if uid else None)
        except NotFound:
            return  # gone already: nothing to preempt
        except ClientError as exc:
            log.info("could not preempt %s: %s", _name(victim), exc)
            return
        finally:
            self._writes.release()
        self.events.emit(writes.preempted_event(victim, preemptor, node_name, now=self._now(),
                                                instance=self.instance))

    # -- nominations -------------------------------------------------------------------------------------

    def _nominated_pods(self) -> dict[str, list[PodInfo]]:
        return {node: list(pods.values()) for node, pods in self.nominated.items()}

    def _nominate(self, info: PodInfo, node_name: str) -> None:
        self._forget_nomination(info.uid)
        self.nominated.setdefault(node_name, {})[info.uid] = info
        self._nominated_node[info.uid] = node_name

    def _forget_nomination(self, uid: str) -> None:
        node = self._nominated_node.pop(uid, None)
        if node is not None:
            pods = self.nominated.get(node)
            if pods is not None:
                pods.pop(uid, None)
                if not pods:
                    del self.nominated[node]

    def _track_nomination(self, pod: Mapping[str, Any]) -> None:
        info_node = str((pod.get("status") or {}).get("nominatedNodeName") or "")
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        if info_node:
            self._nominate(PodInfo(pod), info_node)
        elif uid in self._nominated_node:
            self._forget_nomination(uid)

    async def _patch_status(self, pod: Mapping[str, Any], patch: dict[str, Any]) -> None:
        metadata = pod.get("metadata") or {}
        try:
            await self._pods_api.namespace(metadata.get("namespace")).patch(
                str(metadata.get("name")), patch, patch_type="strategic", subresource="status")
        except ClientError as exc:
            log.info("could not set PodScheduled of %s: %s", _name(pod), exc)
        finally:
            self._writes.release()

    def _cached(self, pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The informer's current copy of the pod, if it is still the same pod."""
        metadata = pod.get("metadata") or {}
        try:
            current = self.pods.lister.namespace(str(metadata.get("namespace") or "")).get(
                str(metadata.get("name") or ""))
        except NotFound:
            return None
        if metadata.get("uid") and (current.get("metadata") or {}).get("uid") != metadata.get("uid"):
            return None
        return current

    # -- the watch ---------------------------------------------------------------------------------------

    def _pending_pod_added(self, pod: Mapping[str, Any]) -> None:
        self._track_nomination(pod)
        self.queue.add(pod)

    def _pending_pod_updated(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self._track_nomination(new)
        self.queue.update(old, new)

    def _assigned_pod_added(self, pod: Mapping[str, Any]) -> None:
        self._forget_nomination(str((pod.get("metadata") or {}).get("uid") or ""))
        self.cache.add_pod(pod)
        self.queue.move_on_event(ASSIGNED_POD_ADD)

    def _assigned_pod_updated(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self.cache.update_pod(new)
        if terminal(new) and not terminal(old):
            self.queue.move_on_event(ASSIGNED_POD_DELETE)

    def _assigned_pod_deleted(self, obj: Any) -> None:
        pod = _unwrap(obj)
        if pod is None:
            return
        self.cache.remove_pod(pod)
        self.queue.move_on_event(ASSIGNED_POD_DELETE)

    def _pending_pod_deleted(self, obj: Any) -> None:
        pod = _unwrap(obj)
        if pod is not None:
            self._forget_nomination(str((pod.get("metadata") or {}).get("uid") or ""))
            self.queue.delete(pod)

    def _node_added(self, node: Mapping[str, Any]) -> None:
        self.cache.add_node(node)
        self.queue.move_on_event(NODE_ADD)

    def _node_updated(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self.cache.update_node(new)
        if node_update_may_help(old, new):
            self.queue.move_on_event(NODE_UPDATE)

    def _node_deleted(self, obj: Any) -> None:
        node = _unwrap(obj)
        if node is not None:
            self.cache.remove_node(node)

    def _namespace_deleted(self, obj: Any) -> None:
        namespace = _unwrap(obj)
        if namespace is not None:
            self.cache.remove_namespace(namespace)


def decision_may_preempt(pod: Mapping[str, Any]) -> bool:
    """Whether budgets can matter to this pod's cycle (preemption is only for pods of some priority)."""
    spec = pod.get("spec") or {}
    return spec.get("preemptionPolicy") != "Never" and int(spec.get("priority") or 0) > 0


def _name(pod: Mapping[str, Any]) -> str:
    metadata = pod.get("metadata") or {}
    return f"{metadata.get('namespace')}/{metadata.get('name')}"
