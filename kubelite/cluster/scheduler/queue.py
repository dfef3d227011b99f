"""The scheduling queue: which pending pod is tried next, and when a pod that did not fit is tried again
(kube-scheduler's PriorityQueue, internal/queue/scheduling_queue.go).

Three places hold a pod waiting for a cycle:
- activeQ, a heap ordered by priority (higher first), then by the time the pod entered the queue (earlier first,
  kube's PrioritySort); `pop` takes from here and waits while it is empty.
- backoffQ, a heap ordered by when each pod's backoff ends: 1 s after its first failed attempt, doubling with each
  attempt up to 10 s (podInitialBackoffDuration, podMaxBackoffDuration). `flush_backoff_completed` moves the
  pods whose backoff is over to activeQ; `run` calls it every second, as kube does.
- unschedulablePods, pods the last cycle found no node for. A cluster event that may make room (`move_on_event`:
  a node added or changed, an assigned pod added or deleted) moves the pods the event can help, judged by the
  plugins that rejected them, to backoffQ if still backing off, else to activeQ; `flush_unschedulable_left_over`
  moves those that waited longer than 5 min (podMaxInUnschedulablePodsDuration) whatever happened, and `run` calls
  it every 30 s.
A pod with `spec.schedulingGates` waits in unschedulablePods, whatever the events, until an update lifts its
gates (kube's SchedulingGates PreEnqueue plugin). A popped pod is in flight until `done`; if a cluster event
came while it was being scheduled, a failure sends it to backoffQ rather than unschedulablePods, so the event is
not lost (kube's moveRequestCycle).

Invariant: a pod's uid is in at most one of `_active`, `_backoff`, `_unschedulable`, and never in one of them
while in `_in_flight`. The heaps are lazy: an entry whose uid maps to another entry object is stale and skipped.
Every call does work in proportion to the pods it moves (heap operations are O(log n)); only a cluster event scans
the unschedulable pods, as kube's does. Time is read from the injected clock only.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from kubelite.util.clock import Sleeper

INITIAL_BACKOFF_SECONDS: Final = 1.0
MAX_BACKOFF_SECONDS: Final = 10.0
MAX_IN_UNSCHEDULABLE_SECONDS: Final = 300.0
BACKOFF_FLUSH_PERIOD: Final = 1.0
UNSCHEDULABLE_FLUSH_PERIOD: Final = 30.0

# cluster events, and the plugins whose rejection each may undo (kube's EventsToRegister, coarsened)
NODE_ADD: Final = "NodeAdd"
NODE_UPDATE: Final = "NodeUpdate"
ASSIGNED_POD_ADD: Final = "AssignedPodAdd"
ASSIGNED_POD_DELETE: Final = "AssignedPodDelete"
_ALL_PLUGINS: Final = None
EVENT_HELPS: Final[Mapping[str, frozenset[str] | None]] = {
    NODE_ADD: _ALL_PLUGINS,
    NODE_UPDATE: frozenset((
        "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
        "InterPodAffinity",
    )),
    # a pod placed may satisfy another's affinity or even out a spread
    ASSIGNED_POD_ADD: frozenset(("InterPodAffinity", "PodTopologySpread")),
    ASSIGNED_POD_DELETE: frozenset(("NodeResourcesFit", "NodePorts", "InterPodAffinity", "PodTopologySpread")),
}


GATED: Final = frozenset(("SchedulingGates",))


class Clock(Sleeper, Protocol):
    """What the queue reads of a clock: monotonic time and sleeping (the server's and the client's clocks both
    serve)."""

    def monotonic(self) -> float: ...


class QueueClosedError(Exception):
    """`pop` on a queue that was closed."""


def pod_uid(pod: Mapping[str, Any]) -> str:
    metadata = pod.get("metadata") or {}
    return str(metadata.get("uid") or f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}")


def _gated(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("spec") or {}).get("schedulingGates"))


def _priority(pod: Mapping[str, Any]) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


@dataclass(eq=False, slots=True)
class QueuedPodInfo:
    """A pending pod with its queue bookkeeping (kube's QueuedPodInfo)."""

    pod: Mapping[str, Any]
    uid: str
    timestamp: float  # when it last entered a queue
    initial_attempt_timestamp: float | None = None
    attempts: int = 0
    unschedulable_plugins: frozenset[str] = field(default_factory=frozenset)

    @property
    def priority(self) -> int:
        return _priority(self.pod)


class SchedulingQueue:
    def __init__(self, clock: Clock, *, initial_backoff: float = INITIAL_BACKOFF_SECONDS,
                 max_backoff: float = MAX_BACKOFF_SECONDS,
                 max_in_unschedulable: float = MAX_IN_UNSCHEDULABLE_SECONDS) -> None:
        if initial_backoff <= 0 or max_backoff < initial_backoff:
            raise ValueError("backoff needs 0 < initial_backoff <= max_backoff")
        self._clock = clock
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._max_in_unschedulable = max_in_unschedulable
        self._sequence = itertools.count()
        self._active: dict[str, tuple[Any, ...]] = {}
        self._active_heap: list[tuple[Any, ...]] = []
        self._backoff: dict[str, tuple[Any, ...]] = {}
        self._backoff_heap: list[tuple[Any, ...]] = []
        # insertion order is arrival order, so the pods waiting longest come first
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._in_flight: dict[str, QueuedPodInfo] = {}
        self._updated_in_flight: set[str] = set()
        self._scheduling_cycle = 0
        self._move_request_cycle = -1
        self._wakeup = asyncio.Event()
        self._closed = False

    # -- reading -----------------------------------------------------------------------------------------

    @property
    def scheduling_cycle(self) -> int:
        return self._scheduling_cycle

    def where(self, uid: str) -> str | None:
        """Which part of the queue holds the pod: "active", "backoff", "unschedulable", "in-flight" or None."""
        if uid in self._active:
            return "active"
        if uid in self._backoff:
            return "backoff"
        if uid in self._unschedulable:
            return "unschedulable"
        if uid in self._in_flight:
            return "in-flight"
        return None

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._unschedulable)

    def backoff_duration(self, info: QueuedPodInfo) -> float:
        duration = self._initial_backoff
        for _ in range(1, info.attempts):
            duration *= 2
            if duration >= self._max_backoff:
                return self._max_backoff
        return duration

    def backoff_expiry(self, info: QueuedPodInfo) -> float:
        return info.timestamp + self.backoff_duration(info)

    # -- the heaps ---------------------------------------------------------------------------------------

    def _push_active(self, info: QueuedPodInfo) -> None:
        entry = (-info.priority, info.timestamp, next(self._sequence), info)
        self._active[info.uid] = entry
        heapq.heappush(self._active_heap, entry)
        self._wakeup.set()

    def _push_backoff(self, info: QueuedPodInfo) -> None:
        entry = (self.backoff_expiry(info), next(self._sequence), info)
        self._backoff[info.uid] = entry
        heapq.heappush(self._backoff_heap, entry)

    def _take(self, uid: str) -> QueuedPodInfo | None:
        """Remove the pod from whichever waiting place holds it."""
        if (entry := self._active.pop(uid, None)) is not None:
            return entry[-1]
        if (entry := self._backoff.pop(uid, None)) is not None:
            return entry[-1]
        return self._unschedulable.pop(uid, None)

    def _requeue(self, info: QueuedPodInfo) -> None:
        """To backoffQ while the pod's backoff lasts, else to activeQ; a gated pod back to unschedulablePods."""
        if _gated(info.pod):
            info.unschedulable_plugins = GATED
            self._unschedulable[info.uid] = info
        elif info.attempts and self._clock.monotonic() < self.backoff_expiry(info):
            self._push_backoff(info)
        else:
            self._push_active(info)

    # -- pod events --------------------------------------------------------------------------------------

    def add(self, pod: Mapping[str, Any]) -> None:
        """A new pending pod: straight to activeQ."""
        uid = pod_uid(pod)
        if self.where(uid) is not None:
            self.update(pod, pod)
            return
        self._requeue(QueuedPodInfo(pod, uid, self._clock.monotonic()))

    def update(self, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> None:
        """A pending pod changed. In activeQ or backoffQ it stays (re-sorted); in unschedulablePods a change may
        make it fit, so it moves on (backoffQ or activeQ); in flight it is kept for its return."""
        uid = pod_uid(new)
        if uid in self._in_flight:
            self._in_flight[uid].pod = new
            self._updated_in_flight.add(uid)
            return
        place = self.where(uid)
        info = self._take(uid)
        if info is None:
            self.add(new)
            return
        info.pod = new
        if place == "active":
            self._push_active(info)
        elif place == "backoff":
            self._push_backoff(info)
        elif old is not None and _spec_changed(old, new):
            if info.unschedulable_plugins is GATED:
                info.unschedulable_plugins = frozenset()
            self._requeue(info)
        else:
            self._unschedulable[uid] = info

    def delete(self, pod: Mapping[str, Any]) -> None:
        uid = pod_uid(pod)
        self._take(uid)
        self._in_flight.pop(uid, None)
        self._updated_in_flight.discard(uid)

    # -- the cycle ---------------------------------------------------------------------------------------

    def pop_nowait(self) -> QueuedPodInfo | None:
        while self._active_heap:
            entry = heapq.heappop(self._active_heap)
            info: QueuedPodInfo = entry[-1]
            if self._active.get(info.uid) is not entry:
                continue
            del self._active[info.uid]
            info.attempts += 1
            if info.initial_attempt_timestamp is None:
                info.initial_attempt_timestamp = self._clock.monotonic()
            self._scheduling_cycle += 1
            self._in_flight[info.uid] = info
            return info
        return None

    async def pop(self) -> QueuedPodInfo:
        """The next pod to schedule, waiting for one; raises QueueClosedError once closed."""
        while True:
            if self._closed:
                raise QueueClosedError("the scheduling queue is closed")
            info = self.pop_nowait()
            if info is not None:
                return info
            self._wakeup.clear()
            await self._wakeup.wait()

    def done(self, uid: str) -> None:
        """The cycle for a popped pod is over (bound, or handed back with `add_unschedulable`)."""
        self._in_flight.pop(uid, None)
        self._updated_in_flight.discard(uid)

    def requeue_in_flight(self) -> int:
        """Hand every popped pod back as if its cycle had failed with an error (to backoffQ): the scheduling loop
        stopped before finishing them (a scheduler that lost its lease). Returns how many."""
        infos = list(self._in_flight.values())
        for info in infos:
            self.add_unschedulable(info, self._scheduling_cycle)
        return len(infos)

    def add_unschedulable(self, info: QueuedPodInfo, scheduling_cycle: int,
                          rejected_by: Iterable[str] = ()) -> None:
        """Hand back a popped pod its cycle could not place. With no rejecting plugin (an error, not a verdict)
        or after a cluster event or an update during its cycle, it goes to backoffQ; otherwise it waits in
        unschedulablePods for an event."""
        uid = info.uid
        if uid not in self._in_flight:
            return  # deleted while it was being scheduled
        updated = uid in self._updated_in_flight
        self.done(uid)
        info.timestamp = self._clock.monotonic()
        info.unschedulable_plugins = frozenset(rejected_by)
        if not info.unschedulable_plugins or updated or self._move_request_cycle >= scheduling_cycle:
            self._push_backoff(info)
        else:
            self._unschedulable[uid] = info

    # -- moving pods on -----------------------------------------------------------------------------------

    def move_on_event(self, event: str) -> int:
        """A cluster event: move the unschedulable pods it may help on. Returns how many moved."""
        helps = EVENT_HELPS.get(event, _ALL_PLUGINS)
        moving = [info for info in self._unschedulable.values() if info.unschedulable_plugins is not GATED and (
            helps is None or not info.unschedulable_plugins or info.unschedulable_plugins & helps)]
        for info in moving:
            del self._unschedulable[info.uid]
            self._requeue(info)
        self._move_request_cycle = self._scheduling_cycle
        return len(moving)

    def flush_backoff_completed(self) -> int:
        now = self._clock.monotonic()
        moved = 0
        while self._backoff_heap and self._backoff_heap[0][0] <= now:
            entry = heapq.heappop(self._backoff_heap)
            info: QueuedPodInfo = entry[-1]
            if self._backoff.get(info.uid) is not entry:
                continue
            del self._backoff[info.uid]
            self._push_active(info)
            moved += 1
        return moved

    def flush_unschedulable_left_over(self) -> int:
        now = self._clock.monotonic()
        stale: list[QueuedPodInfo] = []
        for info in self._unschedulable.values():
            if now - info.timestamp <= self._max_in_unschedulable:
                break  # arrival order: the rest came later
            if info.unschedulable_plugins is not GATED:
                stale.append(info)
        for info in stale:
            del self._unschedulable[info.uid]
            self._requeue(info)
        return len(stale)

    async def run(self) -> None:
        """The queue's two timers, on the injected clock, until `close` (or cancellation)."""
        since_left_over_flush = 0.0
        while not self._closed:
            await self._clock.sleep(BACKOFF_FLUSH_PERIOD)
            self.flush_backoff_completed()
            since_left_over_flush += BACKOFF_FLUSH_PERIOD
            if since_left_over_flush >= UNSCHEDULABLE_FLUSH_PERIOD:
                since_left_over_flush = 0.0
                self.flush_unschedulable_left_over()

    def close(self) -> None:
        self._closed = True
        self._wakeup.set()


def _spec_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """kube's isPodUpdated: a change beyond resourceVersion, generation and status counts."""

    def strip(pod: Mapping[str, Any]) -> tuple[Any, Any, Any]:
        metadata = {k: v for k, v in (pod.get("metadata") or {}).items()
                    if k not in ("resourceVersion", "generation", "managedFields")}
        return metadata, pod.get("spec"), None

    return strip(old) != strip(new)
