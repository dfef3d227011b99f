"""One scheduling decision: filter the nodes, score the feasible ones, pick the best (kube's schedulePod).

The nodes are walked from where the previous cycle stopped, round-robin, and the walk ends once enough feasible
nodes are found (kube's percentageOfNodesToScore: every node in clusters under 100 nodes, otherwise
50% - nodes/125, at least 5% and at least 100 nodes), which keeps a cycle's cost flat as the cluster grows. A
single feasible node is taken without scoring. Among the best total scores one is picked uniformly at random
(reservoir sampling as kube's selectHost), from a seedable generator.

When no node fits, the message is kube's FitError text: "0/N nodes are available: " and the histogram of
reasons ("<count> <reason>", sorted as strings, comma-separated, then "."), then the PostFilter plugins' verdicts
joined by ", ": DynamicResources' "no new claims to deallocate" (it runs first and, since DRA is on by default
in 1.34, says so for every pod without claims), then DefaultPreemption's.
When no node fits and some pods are of lower priority, DefaultPreemption looks for victims (`preemption.py`):
`Decision.preemption` names the node and the pods to evict, and the message carries no PostFilter part, as
kube's. Otherwise its verdict is worked out as kube reaches it: "not eligible due to preemptionPolicy=Never.",
"not eligible due to a terminating pod on the nominated node.", or per node "Preemption is not helpful for
scheduling" (rejected unresolvably), "No preemption victims found for incoming pod" (no pod of lower
priority), or the reasons the node still fails for with all lower-priority pods gone (re-checked with the
cycle's prepared state, so inter-pod affinity and spread counts still include the removed pods; kube adjusts
them).

Pods nominated to a node (preemptors waiting for their victims to leave) count there for pods of no higher
priority than theirs, so the room made for them is not taken by others (kube's
RunFilterPluginsWithNominatedPods: a node must fit both with and without them).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubelite.cluster.scheduler import preemption
from kubelite.cluster.scheduler.plugins import default_filters, default_scores
from kubelite.cluster.scheduler.plugins.base import (
    SKIP,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    CycleState,
    FilterPlugin,
    PreFilterResult,
    ScorePlugin,
    Status,
)
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo, Snapshot

NO_NODES_MESSAGE = "no nodes available to schedule pods"
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NEVER_PREEMPTS = "not eligible due to preemptionPolicy=Never."
NO_CLAIMS = "no new claims to deallocate"


@dataclass(slots=True)
class Decision:
    """A cycle's outcome: the chosen node, or why none (`message`, and each evaluated node's `statuses`)."""

    node_name: str | None
    message: str = ""
    evaluated: int = 0
    feasible: int = 0
    statuses: dict[str, Status] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    preemption_might_help: bool = False
    #: where preemption makes room, and whom it evicts there (only when no node fits)
    preemption: preemption.Candidate | None = None
    # the plugins that rejected the pod somewhere, so the queue knows which cluster events may help it
    rejected_by: frozenset[str] = frozenset()

    @property
    def scheduled(self) -> bool:
        return self.node_name is not None


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """How many feasible nodes a cycle looks for before it stops filtering (0 percentage: kube's adaptive one)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage >= 100:
        return num_all_nodes
    if percentage <= 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def fit_error_message(num_all_nodes: int, statuses: Mapping[str, Status], *, pre_filter: str = "",
                      post_filter: str = "") -> str:
    message = f"0/{num_all_nodes} nodes are available:"
    if pre_filter:
        message += f" {pre_filter}."
    else:
        histogram: Counter[str] = Counter()
        for status in statuses.values():
            histogram.update(status.reasons)
        if histogram:
            message += " " + ", ".join(sorted(f"{count} {reason}" for reason, count in histogram.items())) + "."
    if post_filter:
        message += f" {post_filter}"
    return message


class Scheduler:
    """The decision-making part of one scheduler profile: its plugins, its random source and where its node walk
    resumes. Not thread-safe; one cycle at a time, as kube's scheduleOne."""

    def __init__(self, *, filters: Sequence[FilterPlugin] | None = None, scores: Sequence[ScorePlugin] | None = None,
                 seed: int | None = None, percentage_of_nodes_to_score: int = 0) -> None:
        self.filters = list(default_filters() if filters is None else filters)
        self.scores = list(default_scores() if scores is None else scores)
        self.random = random.Random(seed)
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self._nominated: Mapping[str, Sequence[PodInfo]] = {}
        self._pdbs: Sequence[Mapping[str, Any]] = ()

    def schedule(self, pod: Mapping[str, Any], snapshot: Snapshot, *,
                 nominated: Mapping[str, Sequence[PodInfo]] | None = None,
                 pdbs: Sequence[Mapping[str, Any]] = ()) -> Decision:
        """Decide for `pod`; `nominated` are the pods nominated to each node (by node name), `pdbs` the
        PodDisruptionBudgets preemption weighs."""
        nodes = snapshot.nodes()
        if not nodes:
            return Decision(None, NO_NODES_MESSAGE)
        state = CycleState(PodInfo(pod), snapshot)
        self._nominated = nominated or {}
        self._pdbs = pdbs
        active: list[FilterPlugin] = []
        allowed: frozenset[str] | None = None
        narrowing: list[str] = []
        for plugin in self.filters:
            verdict = plugin.pre_filter(state)
            if verdict is SKIP:
                continue
            if isinstance(verdict, PreFilterResult):
                narrowing.append(plugin.name)
                allowed = verdict.node_names if allowed is None else allowed & verdict.node_names
                if not allowed:
                    verdict = Status((_no_node_satisfies(narrowing),), UNSCHEDULABLE, plugin.name)
            if isinstance(verdict, Status):
                return self._rejected_in_pre_filter(state, nodes, verdict, active)
            active.append(plugin)

        absent: dict[str, Status] = {}
        candidates = nodes
        if allowed is not None:
            candidates = [node for node in nodes if node.name in allowed]
            left_out = Status((f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowing))}]",), UNRESOLVABLE,
                              narrowing[0])
            absent = {node.name: left_out for node in nodes if node.name not in allowed}
        feasible, statuses = self._find_feasible(state, candidates, active)
        statuses.update(absent)
        rejected_by = frozenset(status.plugin for status in statuses.values())
        evaluated = len(feasible) + len(statuses) - len(absent)
        if not feasible:
            post, candidate = self._post_filter(state, nodes, statuses, active)
            message = fit_error_message(len(nodes), statuses, post_filter=post)
            return Decision(None, message, evaluated, 0, statuses, preemption_might_help=post == "",
                            preemption=candidate, rejected_by=rejected_by)
        if len(feasible) == 1:
            return Decision(feasible[0].name, "", evaluated, 1, statuses, rejected_by=rejected_by)
        totals = self._score(state, feasible)
        chosen = self._select(feasible, totals)
        scores = {node.name: total for node, total in zip(feasible, totals, strict=True)}
        return Decision(chosen, "", evaluated, len(feasible), statuses, scores, rejected_by=rejected_by)

    # -- the phases --------------------------------------------------------------------------------------

    def _rejected_in_pre_filter(self, state: CycleState, nodes: list[NodeInfo], verdict: Status,
                                active: list[FilterPlugin]) -> Decision:
        statuses = {node.name: verdict for node in nodes}
        post, _ = self._post_filter(state, nodes, statuses, active)
        message = fit_error_message(len(nodes), statuses, pre_filter=verdict.message, post_filter=post)
        return Decision(None, message, len(nodes), 0, statuses, rejected_by=frozenset((verdict.plugin,)))

    def _find_feasible(self, state: CycleState, nodes: list[NodeInfo],
                       active: list[FilterPlugin]) -> tuple[list[NodeInfo], dict[str, Status]]:
        count = len(nodes)
        if not count:
            return [], {}
        wanted = num_feasible_nodes_to_find(count, self.percentage_of_nodes_to_score)
        start = self.next_start_node_index % count
        feasible: list[NodeInfo] = []
        statuses: dict[str, Status] = {}
        processed = 0
        nominated = self._nominated
        for offset in range(count):
            node = nodes[(start + offset) % count]
            processed += 1
            if nominated and node.name in nominated:
                status = self._filter_with_nominated(state, node, active)
                if status is not None:
                    statuses[node.name] = status
                    continue
            for plugin in active:
                status = plugin.filter(state, node)
                if status is not None:
                    statuses[node.name] = status
                    break
            else:
                feasible.append(node)
                if len(feasible) >= wanted:
                    break
        self.next_start_node_index = (start + processed) % count
        return feasible, statuses

    def _score(self, state: CycleState, feasible: list[NodeInfo]) -> list[int]:
        totals = [0] * len(feasible)
        for plugin in self.scores:
            if plugin.pre_score(state, feasible) is SKIP:
                continue
            scores = [plugin.score(state, node) for node in feasible]
            plugin.normalize(state, scores)
            weight = plugin.weight
            for index, score in enumerate(scores):
                totals[index] += score * weight
        return totals

    def _select(self, feasible: list[NodeInfo], totals: list[int]) -> str:
        best = totals[0]
        chosen = feasible[0].name
        ties = 1
        for node, total in zip(feasible[1:], totals[1:], strict=True):
            if total > best:
                best, chosen, ties = total, node.name, 1
            elif total == best:
                ties += 1
                if self.random.random() * ties < 1:  # keep this one with probability 1/ties
                    chosen = node.name
        return chosen

    def _filter_with_nominated(self, state: CycleState, node: NodeInfo, active: list[FilterPlugin]) -> Status | None:
        """The first failure on `node` with the pods nominated there of at least this pod's priority added."""
        pod = state.pod
        others = [info for info in self._nominated.get(node.name, ())
                  if info.priority >= pod.priority and info.uid != pod.uid and info.uid not in node.pods]
        if not others:
            return None
        crowded = _with(node, others)
        return next((s for s in (plugin.filter(state, crowded) for plugin in active) if s is not None), None)

    def _post_filter(self, state: CycleState, nodes: list[NodeInfo], statuses: Mapping[str, Status],
                     active: list[FilterPlugin]) -> tuple[str, preemption.Candidate | None]:
        """The PostFilter plugins (DynamicResources, DefaultPreemption): where preemption makes room and whom it
        evicts (message ""), or what they say when it cannot help."""
        pod = state.pod
        if (pod.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return f"{NO_CLAIMS}, preemption: {NEVER_PREEMPTS}", None
        if not preemption.eligible(pod, state.snapshot.node):
            return f"{NO_CLAIMS}, preemption: {preemption.TERMINATING_ON_NOMINATED}", None

        def fits(node: NodeInfo) -> bool:
            return all(plugin.filter(state, node) is None for plugin in active)

        verdicts: dict[str, Status] = {}
        candidates: list[preemption.Candidate] = []
        for node in nodes:
            status = statuses.get(node.name)
            if status is None or status.code == UNRESOLVABLE:
                verdicts[node.name] = Status((NOT_HELPFUL,), UNRESOLVABLE)
                continue
            candidate = preemption.select_victims(pod, node, fits, self._pdbs)
            if candidate is not None:
                candidates.append(candidate)
                continue
            victims = [p for p in node.pods.values() if p.priority < pod.priority]
            if not victims:
                verdicts[node.name] = Status((NO_VICTIMS,), UNRESOLVABLE)
                continue
            remaining = _without(node, victims)
            still = next((s for s in (plugin.filter(state, remaining) for plugin in active) if s is not None), None)
            verdicts[node.name] = still or Status((NOT_HELPFUL,), UNRESOLVABLE)
        if candidates:
            return "", preemption.pick_one(candidates)
        return f"{NO_CLAIMS}, preemption: " + fit_error_message(len(nodes), verdicts), None


def _with(node: NodeInfo, extra: list[PodInfo]) -> NodeInfo:
    """A copy of `node` with `extra` pods added, for filtering with nominated pods."""
    copy = NodeInfo(node.name)
    copy.set_node(node.node)
    for info in node.pods.values():
        copy.add_pod(info)
    for info in extra:
        copy.add_pod(info)
    return copy


def _without(node: NodeInfo, victims: list[PodInfo]) -> NodeInfo:
    """A copy of `node` without `victims`, for the preemption dry run."""
    copy = NodeInfo(node.name)
    copy.set_node(node.node)
    leaving = {victim.uid for victim in victims}
    for info in node.pods.values():
        if info.uid not in leaving:
            copy.add_pod(info)
    return copy


def _no_node_satisfies(plugins: list[str]) -> str:
    if len(plugins) == 1:
        return f"node(s) didn't satisfy plugin {plugins[0]}"
    return f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"


def schedule(pod: Mapping[str, Any], snapshot: Snapshot, *, seed: int | None = None) -> Decision:
    """One decision with the default plugins and a fresh node walk; long-lived callers keep a `Scheduler`."""
    return Scheduler(seed=seed).schedule(pod, snapshot)
