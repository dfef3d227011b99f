"""The parsed forms of what pods say about other pods and nodes: inter-pod affinity terms, tolerations, host ports.

Parsed once per pod (when the snapshot learns of it, or once per cycle for the pod being scheduled) so the
per-node filter and score loops only compare prepared values. The rules are kube's: a term with neither
`namespaces` nor `namespaceSelector` means the pod's own namespace, an empty `namespaceSelector` means every
namespace, `matchLabelKeys` / `mismatchLabelKeys` fold the pod's own label values into the selector
(pkg/scheduler/framework/types.go AffinityTerm, v1helper.TolerationsTolerateTaint).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.selectors import (
    EQUALS,
    NOT_EQUALS,
    LabelSelector,
    Requirement,
    SelectorError,
    label_selector_from_spec,
)
from kubelite.util.tolerations import tolerates_taint


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    selector: LabelSelector
    topology_key: str
    namespaces: frozenset[str]
    # None: only `namespaces` count; otherwise also the namespaces whose labels it matches
    namespace_selector: LabelSelector | None
    weight: int = 0

    def matches(self, pod_namespace: str, pod_labels: Mapping[str, str], namespace_labels: NamespaceLabels) -> bool:
        if pod_namespace not in self.namespaces:
            if self.namespace_selector is None:
                return False
            if not self.namespace_selector.matches(namespace_labels(pod_namespace)):
                return False
        return self.selector.matches(pod_labels)


class NamespaceLabels:
    """The labels of namespaces, for terms with a namespaceSelector; an unknown namespace has none."""

    __slots__ = ("labels",)

    def __init__(self, labels: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.labels: dict[str, Mapping[str, str]] = dict(labels or {})

    def __call__(self, namespace: str) -> Mapping[str, str]:
        return self.labels.get(namespace, {})


def _selector(spec: Mapping[str, Any] | None, keys: Sequence[str], mismatch: Sequence[str],
              labels: Mapping[str, str]) -> LabelSelector:
    try:
        selector = label_selector_from_spec(spec)
    except SelectorError:
        return LabelSelector.nothing()
    extra = [Requirement.new(key, EQUALS, [labels[key]]) for key in keys if key in labels]
    extra += [Requirement.new(key, NOT_EQUALS, [labels[key]]) for key in mismatch if key in labels]
    if extra and spec is not None:
        selector = LabelSelector.from_requirements([*selector.requirements, *extra])
    return selector


def affinity_term(raw: Mapping[str, Any], namespace: str, labels: Mapping[str, str], weight: int = 0) -> AffinityTerm:
    namespaces = frozenset(str(ns) for ns in raw.get("namespaces") or ())
    namespace_selector: LabelSelector | None = None
    raw_ns_selector = raw.get("namespaceSelector")
    if raw_ns_selector is not None:
        try:
            namespace_selector = label_selector_from_spec(raw_ns_selector)
        except SelectorError:
            namespace_selector = LabelSelector.nothing()
    if not namespaces and raw_ns_selector is None:
        namespaces = frozenset((namespace,))
    selector = _selector(raw.get("labelSelector"), raw.get("matchLabelKeys") or (), raw.get("mismatchLabelKeys") or (),
                         labels)
    return AffinityTerm(selector, str(raw.get("topologyKey") or ""), namespaces, namespace_selector, weight)


Section = Mapping[str, Any] | None


def required_terms(section: Section, namespace: str, labels: Mapping[str, str]) -> tuple[AffinityTerm, ...]:
    if not section:
        return ()
    raw_terms = section.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
    return tuple(affinity_term(term, namespace, labels) for term in raw_terms)


def preferred_terms(section: Section, namespace: str, labels: Mapping[str, str]) -> tuple[AffinityTerm, ...]:
    if not section:
        return ()
    terms = []
    for weighted in section.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
        weight = int(weighted.get("weight") or 0)
        terms.append(affinity_term(weighted.get("podAffinityTerm") or {}, namespace, labels, weight))
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """A pod's four lists of inter-pod terms."""

    affinity: tuple[AffinityTerm, ...] = ()
    anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.affinity or self.anti_affinity or self.preferred_affinity or self.preferred_anti_affinity)


NO_POD_AFFINITY = PodAffinity()


def pod_affinity(pod: Mapping[str, Any]) -> PodAffinity:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    pod_section = affinity.get("podAffinity")
    anti_section = affinity.get("podAntiAffinity")
    if not pod_section and not anti_section:
        return NO_POD_AFFINITY
    metadata = pod.get("metadata") or {}
    namespace = str(metadata.get("namespace") or "")
    labels = metadata.get("labels") or {}
    return PodAffinity(
        required_terms(pod_section, namespace, labels),
        required_terms(anti_section, namespace, labels),
        preferred_terms(pod_section, namespace, labels),
        preferred_terms(anti_section, namespace, labels),
    )


# -- taints and tolerations ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


def node_taints(node: Mapping[str, Any]) -> tuple[Taint, ...]:
    raw = (node.get("spec") or {}).get("taints") or ()
    return tuple(Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or "")) for t in raw)


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    return tolerates_taint(toleration, taint.key, taint.value, taint.effect)


def tolerated(tolerations: Sequence[Mapping[str, Any]], taint: Taint) -> bool:
    return any(tolerates(toleration, taint) for toleration in tolerations)


# -- host ports ----------------------------------------------------------------------------------------

HostPort = tuple[str, str, int]  # (protocol, hostIP, hostPort)
WILDCARD_IP = "0.0.0.0"


def host_ports(pod: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """The host ports a pod's containers (and sidecars) ask for; protocol defaults to TCP, hostIP to 0.0.0.0."""
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or ())
    containers += [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
    ports: list[HostPort] = []
    for container in containers:
        for port in container.get("ports") or ():
            number = port.get("hostPort") or 0
            if isinstance(number, int) and number > 0:
                ports.append((str(port.get("protocol") or "TCP"), str(port.get("hostIP") or WILDCARD_IP), number))
    return tuple(ports)
