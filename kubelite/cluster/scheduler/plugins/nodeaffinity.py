"""NodeAffinity: `nodeSelector` and required node affinity decide which nodes a pod may use (filter); preferred
node affinity terms add their weights (score, scaled so the best node gets 100).

Node selector terms are ORed, a term's expressions ANDed; a term with no expressions and no fields matches no
node, an empty term list matches no node (v1helper / component-helpers nodeaffinity). `matchFields` knows only
`metadata.name`. A term kube would reject as invalid matches nothing.

When every required term names its nodes (`matchFields` metadata.name In, as the DaemonSet controller writes),
the pre-filter hands the union of those names to the cycle, which filters only them (kube's PreFilterResult).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.cluster.scheduler.plugins.base import (
    SKIP,
    CycleState,
    PreFilterResult,
    Status,
    _Skip,
    default_normalize,
    unresolvable,
)
from kubelite.cluster.scheduler.snapshot import NodeInfo, PodInfo

REASON = "node(s) didn't match Pod's node affinity/selector"
CONFLICT_REASON = "pod affinity terms conflict"


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def requirement_matches(requirement: Mapping[str, Any], value: str | None) -> bool:
    operator = requirement.get("operator")
    values: Sequence[Any] = requirement.get("values") or []
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt"):
        if value is None or len(values) != 1:
            return False
        have, bound = _as_int(value), _as_int(str(values[0]))
        if have is None or bound is None:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def term_matches(term: Mapping[str, Any], name: str, labels: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions") or ()
    fields = term.get("matchFields") or ()
    if not expressions and not fields:
        return False
    for requirement in expressions:
        if not requirement_matches(requirement, labels.get(str(requirement.get("key") or ""))):
            return False
    for requirement in fields:
        if requirement.get("key") != "metadata.name" or requirement.get("operator") not in ("In", "NotIn"):
            return False
        if not requirement_matches(requirement, name):
            return False
    return True


def named_nodes(terms: Sequence[Mapping[str, Any]]) -> frozenset[str] | None:
    """The nodes the terms can only match by name, or None when some term may match any node."""
    names: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for requirement in term.get("matchFields") or ():
            if requirement.get("key") == "metadata.name" and requirement.get("operator") == "In":
                values = {str(v) for v in requirement.get("values") or ()}
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names |= term_names
    return frozenset(names) if terms else None


class RequiredNodeAffinity:
    """The pod's nodeSelector and required node selector terms, ready to test against nodes."""

    __slots__ = ("node_selector", "terms")

    def __init__(self, pod: PodInfo) -> None:
        spec = pod.pod.get("spec") or {}
        self.node_selector: Mapping[str, str] = spec.get("nodeSelector") or {}
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        self.terms: Sequence[Mapping[str, Any]] | None = (
            None if required is None else (required.get("nodeSelectorTerms") or ()))

    @property
    def empty(self) -> bool:
        return not self.node_selector and self.terms is None

    def matches(self, node: NodeInfo) -> bool:
        labels = node.labels
        for key, value in self.node_selector.items():
            if labels.get(key) != value:
                return False
        if self.terms is None:
            return True
        return any(term_matches(term, node.name, labels) for term in self.terms)


class NodeAffinity:
    name = "NodeAffinity"
    weight = 2

    def pre_filter(self, state: CycleState) -> Status | _Skip | PreFilterResult | None:
        required = RequiredNodeAffinity(state.pod)
        if required.empty:
            return SKIP
        state.data[self.name] = required
        names = named_nodes(required.terms or ())
        if names is None:
            return None
        if not names:
            return unresolvable(self.name, CONFLICT_REASON)
        return PreFilterResult(names)

    def filter(self, state: CycleState, node: NodeInfo) -> Status | None:
        required: RequiredNodeAffinity = state.data[self.name]
        return None if required.matches(node) else unresolvable(self.name, REASON)

    def pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> _Skip | None:
        spec = state.pod.pod.get("spec") or {}
        preferred = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "preferredDuringSchedulingIgnoredDuringExecution") or ()
        terms = [(int(t.get("weight") or 0), t.get("preference") or {}) for t in preferred]
        terms = [(weight, term) for weight, term in terms if weight]
        if not terms:
            return SKIP
        state.data[self.name + "/preferred"] = terms
        return None

    def score(self, state: CycleState, node: NodeInfo) -> int:
        terms = state.data[self.name + "/preferred"]
        return sum(weight for weight, term in terms if term_matches(term, node.name, node.labels))

    def normalize(self, state: CycleState, scores: list[int]) -> None:
        default_normalize(scores, reverse=False)
