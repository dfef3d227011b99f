"""Which nodes a DaemonSet's pod belongs on, and the pod it puts there (kube's pkg/controller/daemon
NodeShouldRunDaemonPod, and daemon/util: AddOrUpdateDaemonPodTolerations, CreatePodTemplate,
ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName).

A node is judged against the pod the DaemonSet would run there: its template with `nodeName` set to the node
and the tolerations every daemon pod gets, so a node that is merely not ready, unreachable, under pressure or
cordoned still gets its daemon. The pod must match the node by name (a template's own nodeName), by
nodeSelector and required node affinity, and tolerate the node's NoSchedule and NoExecute taints. A node
whose untolerated taints are all NoSchedule keeps a pod already there (`should_continue_running`).

The node-affinity matching is component-helpers' (the scheduler's filter agrees with it, but the controller
manager may not import the scheduler): terms are ORed, a term's requirements ANDed, a term with nothing in
it or with a requirement kube would reject matches no node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.util.tolerations import tolerates

#: the pod label naming the ControllerRevision a daemon pod was made from (apps.DefaultDaemonSetUniqueLabelKey)
REVISION_HASH_LABEL = "controller-revision-hash"
#: the pod label of the template generation, kept for DaemonSets older than revisions
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
#: the DaemonSet annotation holding that generation (apps.DeprecatedTemplateGeneration)
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
#: the node field daemon pods are pinned by (metav1.ObjectNameField)
NODE_NAME_FIELD = "metadata.name"

TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


# -- tolerations ---------------------------------------------------------------------------------------------


def _toleration(key: str, effect: str) -> Obj:
    return {"key": key, "operator": "Exists", "effect": effect}


def daemon_tolerations(host_network: bool) -> list[Obj]:
    """The tolerations every daemon pod carries, in kube's order (network-unavailable only with hostNetwork)."""
    found = [
        _toleration(TAINT_NOT_READY, "NoExecute"),
        _toleration(TAINT_UNREACHABLE, "NoExecute"),
        _toleration(TAINT_DISK_PRESSURE, "NoSchedule"),
        _toleration(TAINT_MEMORY_PRESSURE, "NoSchedule"),
        _toleration(TAINT_PID_PRESSURE, "NoSchedule"),
        _toleration(TAINT_UNSCHEDULABLE, "NoSchedule"),
    ]
    if host_network:
        found.append(_toleration(TAINT_NETWORK_UNAVAILABLE, "NoSchedule"))
    return found


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    # Toleration.MatchToleration: key, operator, value and effect, as written
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value", "effect"))


def add_or_update_toleration(tolerations: list[Obj], toleration: Obj) -> list[Obj]:
    """AddOrUpdateTolerationInPodSpec: replace the pod's matching toleration (dropping, say, its
    tolerationSeconds) or append it."""
    result: list[Obj] = []
    replaced = False
    for existing in tolerations:
        if _same_toleration(existing, toleration):
            if existing == toleration:
                return tolerations
            result.append(dict(toleration))
            replaced = True
            continue
        result.append(existing)
    if not replaced:
        result.append(dict(toleration))
    return result


def add_daemon_tolerations(spec: Obj) -> None:
    """AddOrUpdateDaemonPodTolerations, in place on a pod spec."""
    tolerations: list[Obj] = list(spec.get("tolerations") or [])
    for toleration in daemon_tolerations(bool(spec.get("hostNetwork"))):
        tolerations = add_or_update_toleration(tolerations, toleration)
    spec["tolerations"] = tolerations


def untolerated_taint(
    taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]], effects: frozenset[str]
) -> Mapping[str, Any] | None:
    """FindMatchingUntoleratedTaint over the taints of the given effects."""
    for taint in taints:
        if (taint.get("effect") or "") not in effects:
            continue
        if not any(tolerates(toleration, taint) for toleration in tolerations):
            return taint
    return None


# -- node affinity -------------------------------------------------------------------------------------------


def _as_int(text: Any) -> int | None:
    try:
        return int(str(text))
    except ValueError:
        return None


def _label_requirement(requirement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    operator = requirement.get("operator")
    values = [str(v) for v in requirement.get("values") or ()]
    key = str(requirement.get("key") or "")
    value = labels.get(key)
    if not key:
        return False
    if operator in ("In", "NotIn"):
        if not values:
            return False
        return (value is not None and value in values) == (operator == "In")
    if operator in ("Exists", "DoesNotExist"):
        if values:
            return False
        return (value is not None) == (operator == "Exists")
    if operator in ("Gt", "Lt"):
        bound = _as_int(values[0]) if len(values) == 1 else None
        have = _as_int(value) if value is not None else None
        if bound is None or have is None:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def _field_requirement(requirement: Mapping[str, Any], node_name: str) -> bool:
    operator = requirement.get("operator")
    values = [str(v) for v in requirement.get("values") or ()]
    if operator not in ("In", "NotIn") or len(values) != 1:
        return False
    # a node's only field is metadata.name; a selector on any other field sees an empty value
    value = node_name if requirement.get("key") == NODE_NAME_FIELD else ""
    return (value == values[0]) == (operator == "In")


def term_matches(term: Mapping[str, Any], node_name: str, labels: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions") or ()
    fields = term.get("matchFields") or ()
    if not expressions and not fields:
        return False
    return all(_label_requirement(r, labels) for r in expressions) and all(
        _field_requirement(r, node_name) for r in fields
    )


def required_affinity_matches(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): the nodeSelector, then the required terms."""
    meta = node.get("metadata") or {}
    labels: Mapping[str, str] = meta.get("labels") or {}
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        return True
    name = str(meta.get("name") or "")
    return any(term_matches(term, name, labels) for term in required.get("nodeSelectorTerms") or ())


# -- the daemon pod and where it goes ------------------------------------------------------------------------


def daemon_pod_spec(ds: Mapping[str, Any], node_name: str) -> Obj:
    """NewPod's spec: the template's, on the node, with the daemon tolerations."""
    spec: Obj = deep_copy(((ds.get("spec") or {}).get("template") or {}).get("spec") or {})
    spec["nodeName"] = node_name
    add_daemon_tolerations(spec)
    return spec


_BLOCKING = frozenset(("NoSchedule", "NoExecute"))
_EVICTING = frozenset(("NoExecute",))


@dataclass(frozen=True)
class Placement:
    #: a pod should be created on the node if none runs there
    should_run: bool
    #: a pod already on the node may stay
    should_continue_running: bool


def node_should_run_daemon_pod(node: Mapping[str, Any], ds: Mapping[str, Any]) -> Placement:
    """NodeShouldRunDaemonPod."""
    node_name = str((node.get("metadata") or {}).get("name") or "")
    template_node = (((ds.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeName") or ""
    if template_node and template_node != node_name:
        return Placement(False, False)
    spec = daemon_pod_spec(ds, node_name)
    if not required_affinity_matches(spec, node):
        return Placement(False, False)
    taints = (node.get("spec") or {}).get("taints") or ()
    tolerations = spec.get("tolerations") or ()
    if untolerated_taint(taints, tolerations, _BLOCKING) is not None:
        return Placement(False, untolerated_taint(taints, tolerations, _EVICTING) is None)
    return Placement(True, True)


def template_generation(ds: Mapping[str, Any]) -> int | None:
    """GetTemplateGeneration: the deprecated annotation's value, None when absent or unparsable."""
    raw = ((ds.get("metadata") or {}).get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def create_pod_template(template: Mapping[str, Any], generation: int | None, revision_hash: str) -> Obj:
    """CreatePodTemplate: the template with the daemon tolerations and the generation and hash labels."""
    result: Obj = deep_copy(dict(template))
    metadata = result.setdefault("metadata", {})
    spec = result.setdefault("spec", {})
    add_daemon_tolerations(spec)
    labels = dict(metadata.get("labels") or {})
    if generation is not None:
        labels[TEMPLATE_GENERATION_LABEL] = str(generation)
    if revision_hash:
        labels[REVISION_HASH_LABEL] = revision_hash
    metadata["labels"] = labels
    return result


def node_name_affinity(affinity: Mapping[str, Any] | None, node_name: str) -> Obj:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes one term selecting the
    node by name; preferred terms and pod (anti-)affinity stay."""
    terms = [{"matchFields": [{"key": NODE_NAME_FIELD, "operator": "In", "values": [node_name]}]}]
    result: Obj = deep_copy(dict(affinity or {}))
    node_affinity = result.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        node_affinity = result["nodeAffinity"] = {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    else:
        required["nodeSelectorTerms"] = terms
    return result


class NoTargetNode(ValueError):
    pass


def target_node_name(pod: Mapping[str, Any]) -> str:
    """GetTargetNodeName: the pod's node, else the node its required affinity pins it to by name."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    meta = pod.get("metadata") or {}
    where = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        raise NoTargetNode(
            f"no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod {where}"
        )
    terms = required.get("nodeSelectorTerms") or ()
    if not terms:
        raise NoTargetNode(f"no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod {where}")
    for term in terms:
        for requirement in term.get("matchFields") or ():
            if requirement.get("key") == NODE_NAME_FIELD and requirement.get("operator") == "In":
                values: list[Any] = list(requirement.get("values") or ())
                if len(values) != 1:
                    raise NoTargetNode(f"the matchFields value of '{NODE_NAME_FIELD}' is not unique for pod {where}")
                return str(values[0])
    raise NoTargetNode(f"no node name found for pod {where}")
