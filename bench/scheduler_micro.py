"""The scheduler's decisions alone, in process: N pods scheduled one by one onto M nodes through the queue, the
decision and the snapshot's assume, as the scheduling loop runs them. Prints the time per pod.

    .venv/bin/python -m bench.scheduler_micro [PODS] [NODES]     (default 10,000 pods onto 1,000 nodes)
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from kubelite.cluster.scheduler.queue import SchedulingQueue
from kubelite.cluster.scheduler.schedule import Scheduler
from kubelite.cluster.scheduler.snapshot import Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod
from kubelite.util.clock import FakeClock


def run(pods: int, nodes: int) -> tuple[float, Counter[str]]:
    """Seconds taken, and how many pods each node got."""
    snapshot = Snapshot.of(
        [
            make_node(f"node-{i:04}", cpu="16", memory="64Gi", labels={"topology.kubernetes.io/zone": f"zone-{i % 3}"})
            for i in range(nodes)
        ],
        [],
    )
    queue = SchedulingQueue(FakeClock())
    for index in range(pods):
        queue.add(make_pod(f"pod-{index:05}", cpu="100m", memory="256Mi"))
    scheduler = Scheduler(seed=0)
    placed: Counter[str] = Counter()
    started = time.perf_counter()
    while (info := queue.pop_nowait()) is not None:
        decision = scheduler.schedule(info.pod, snapshot)
        if decision.node_name is None:
            raise AssertionError(decision.message)
        snapshot.assume_pod(info.pod, decision.node_name)
        queue.done(info.uid)
        placed[decision.node_name] += 1
    return time.perf_counter() - started, placed


def main() -> None:
    pods = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000
    elapsed, placed = run(pods, nodes)
    print(
        f"scheduled {pods} pods onto {nodes} nodes in {elapsed:.2f} s ({elapsed / pods * 1e6:.0f} µs per pod; "
        f"{len(placed)} nodes used, at most {max(placed.values())} pods on one)"
    )


if __name__ == "__main__":
    main()
