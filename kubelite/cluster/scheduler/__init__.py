"""kube-scheduler's framework in miniature. As pure logic: the scheduling queue (`queue`), the cluster state a
cycle reads (`snapshot`) and the lifetime of assumed pods around it (`cache`), the filter and score plugins
(`plugins`), the decision (`schedule`), what is written back (`binding`) and how repeated events fold into a
series (`events.EventSeries`). On top, the component that talks to the API (`component.SchedulerComponent`):
it watches pods, nodes and namespaces, feeds the cache and the queue, and sends bindings, PodScheduled
conditions and events.k8s.io events (`events.EventWriter`).

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
