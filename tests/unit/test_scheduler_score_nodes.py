"""The resource scores computed for all nodes at once give each node's own score: nodes of every size and
fill (overcommitted, empty, without cpu or memory), pods with and without requests."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from kubelite.cluster.scheduler.plugins import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubelite.cluster.scheduler.plugins.base import CycleState
from kubelite.cluster.scheduler.snapshot import PodInfo, Snapshot
from kubelite.cluster.scheduler.testing import make_node, make_pod


def cluster(seed: int) -> Snapshot:
    rng = random.Random(seed)
    nodes: list[Mapping[str, Any]] = [
        make_node(f"n{i}", cpu=rng.choice(["0", "1", "2500m", "16"]), memory=rng.choice(["0", "1Gi", "3Gi", "64Gi"]))
        for i in range(40)
    ]
    placed: list[Mapping[str, Any]] = [
        make_pod(f"p{i}", node_name=f"n{rng.randrange(40)}", cpu=rng.choice([None, "100m", "1", "3"]),
                 memory=rng.choice([None, "100Mi", "2Gi"]))
        for i in range(120)
    ]  # fmt: skip
    return Snapshot.of(nodes, placed)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("requests", [(None, None), ("250m", None), (None, "512Mi"), ("2", "4Gi")])
def test_score_nodes_is_score_of_each_node(seed: int, requests: tuple[str | None, str | None]) -> None:
    snapshot = cluster(seed)
    state = CycleState(PodInfo(make_pod("new", cpu=requests[0], memory=requests[1])), snapshot)
    nodes = snapshot.nodes()
    for plugin in (NodeResourcesFit(), NodeResourcesBalancedAllocation()):
        assert plugin.score_nodes(state, nodes) == [plugin.score(state, node) for node in nodes]


@pytest.mark.parametrize("seed", range(5))
def test_the_filter_answers_as_before(seed: int) -> None:
    """Nodes that fit pass; the others name every resource short, the pod limit first."""
    snapshot = cluster(seed)
    plugin = NodeResourcesFit()
    state = CycleState(PodInfo(make_pod("new", cpu="1", memory="1Gi")), snapshot)
    plugin.pre_filter(state)
    for node in snapshot.nodes():
        room_cpu = node.allocatable.get("cpu", 0) - node.requested.get("cpu", 0)
        room_memory = node.allocatable.get("memory", 0) - node.requested.get("memory", 0)
        short = [name for name, room, want in (("cpu", room_cpu, 1000), ("memory", room_memory, 2**30)) if want > room]
        status = plugin.filter(state, node)
        if not short:
            assert status is None
        else:
            assert status is not None and list(status.reasons) == [f"Insufficient {name}" for name in short]
