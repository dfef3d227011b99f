"""The framework's small vocabulary: a plugin's verdict (`Status`), the state one cycle shares between its
plugins (`CycleState`), and the two plugin shapes (`FilterPlugin`, `ScorePlugin`).

A filter's `pre_filter` runs once per cycle (kube's PreFilter): it prepares what the per-node `filter` reads, may
reject the pod for every node at once, or say the plugin has nothing to check (`SKIP`), so the node loop never
calls it. A score plugin's `pre_score` likewise prepares or skips; `score` rates one feasible node and
`normalize` maps the raw scores onto 0-100 in place. Codes follow kube: `UNSCHEDULABLE` may be fixed by
preemption, `UNRESOLVABLE` (UnschedulableAndUnresolvable) cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo, Snapshot

UNSCHEDULABLE: Final = "Unschedulable"
UNRESOLVABLE: Final = "UnschedulableAndUnresolvable"
MAX_NODE_SCORE: Final = 100


@dataclass(frozen=True, slots=True)
class Status:
    """A node does not fit: why (kube's reason texts, one histogram entry each), and whether preemption could help."""

    reasons: tuple[str, ...]
    code: str = UNSCHEDULABLE
    plugin: str = ""

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)


def unschedulable(plugin: str, *reasons: str) -> Status:
    return Status(reasons, UNSCHEDULABLE, plugin)


def unresolvable(plugin: str, *reasons: str) -> Status:
    return Status(reasons, UNRESOLVABLE, plugin)


class _Skip:
    """pre_filter / pre_score's answer that the plugin has nothing to do for this pod."""

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final = _Skip()


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """pre_filter's answer that only these nodes can fit (kube's PreFilterResult); the filter still runs on them."""

    node_names: frozenset[str]


@dataclass(slots=True)
class CycleState:
    """What one scheduling cycle knows: the pod, the snapshot, and each plugin's prepared data by plugin name."""

    pod: PodInfo
    snapshot: Snapshot
    data: dict[str, Any] = field(default_factory=dict)


class FilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState) -> Status | _Skip | PreFilterResult | None:
        """None: go on to `filter`; SKIP: nothing to check; a Status: no node fits, for this reason; a
        PreFilterResult: only the nodes it names are worth filtering."""
        ...

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        """None when `node` fits."""
        ...


class ScorePlugin(Protocol):
    name: str
    weight: int

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None: ...

    def score(self, state: CycleState, node: NodeInfo) -> int: ...

    def normalize(self, state: CycleState, scores: list[int]) -> None: ...


def default_normalize(scores: list[int], *, reverse: bool) -> None:
    """helper.DefaultNormalizeScore: scale so the best raw score is 100; `reverse` makes the lowest best."""
    highest = max(scores, default=0)
    if highest == 0:
        if reverse:
            scores[:] = [MAX_NODE_SCORE] * len(scores)
        return
    for index, raw in enumerate(scores):
        scaled = MAX_NODE_SCORE * raw // highest
        scores[index] = MAX_NODE_SCORE - scaled if reverse else scaled
