"""kube-scheduler's framework in miniature, as pure logic: the scheduling queue (`queue`), the cluster state a
cycle reads (`snapshot`), the filter and score plugins (`plugins`), the decision (`schedule`) and what is written
back (`binding`). No API calls are made here; the component that watches pods and nodes, feeds the snapshot and
the queue, and sends bindings and events is built on top.

Preemption is not performed (the decision only reports what kube's DefaultPreemption would say when it cannot
help); volume, DRA and image-locality plugins and the cluster-wide default topology spread are not included.
"""

from kubelite.cluster.scheduler.queue import QueuedPodInfo, SchedulingQueue
from kubelite.cluster.scheduler.schedule import Decision, Scheduler, schedule
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo, Snapshot

__all__ = [
    "Decision",
    "NodeInfo",
    "PodInfo",
    "QueuedPodInfo",
    "Scheduler",
    "SchedulingQueue",
    "Snapshot",
    "schedule",
]
