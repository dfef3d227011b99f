"""A micro-benchmark, printed and not asserted: 10,000 pods scheduled one by one onto 1,000 nodes through the
queue, the decision and the snapshot's assume, as the scheduling loop will run them. It checks only that every
pod was placed and no node is over its allocatable cpu. Run with -s to see the timing."""

from __future__ import annotations

import time
from collections import Counter

from kubelite.cluster.scheduler.queue import SchedulingQueue
from kubelite.cluster.scheduler.schedule import Scheduler
from kubelite.cluster.scheduler.snapshot import Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod
from kubelite.util.clock import FakeClock

NODES = 1_000
PODS = 10_000


def test_schedule_ten_thousand_pods_onto_a_thousand_nodes() -> None:
    snapshot = Snapshot.of([make_node(f"node-{i:04}", cpu="16", memory="64Gi",
                                      labels={"topology.kubernetes.io/zone": f"zone-{i % 3}"})
                            for i in range(NODES)], [])
    queue = SchedulingQueue(FakeClock())
    for index in range(PODS):
        queue.add(make_pod(f"pod-{index:05}", cpu="100m", memory="256Mi"))
    scheduler = Scheduler(seed=0)
    placed: Counter[str] = Counter()
    started = time.perf_counter()
    while (info := queue.pop_nowait()) is not None:
        decision = scheduler.schedule(info.pod, snapshot)
        assert decision.node_name is not None, decision.message
        snapshot.assume_pod(info.pod, decision.node_name)
        queue.done(info.uid)
        placed[decision.node_name] += 1
    elapsed = time.perf_counter() - started
    print(f"\nscheduled {PODS} pods onto {NODES} nodes in {elapsed:.2f} s "
          f"({elapsed / PODS * 1e6:.0f} us per pod; {len(placed)} nodes used, at most {max(placed.values())} pods "
          f"on one)")
    assert sum(placed.values()) == PODS
    assert all(node.requested["cpu"] <= node.allocatable["cpu"] for node in snapshot.nodes())
