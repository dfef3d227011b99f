"""What each object charges to a ResourceQuota, and a quota's observed usage (kube's pkg/quota/v1 and
pkg/quota/v1/evaluator/core). No I/O: the controller and the admission plugin hand objects in.

An evaluator knows one group/resource: which quota resource names it tracks (`matching`), whether a quota's
scopes take an object in (`matches_scope`), what one object uses (`usage`), which writes can change usage
(`handles`) and what a pod must declare where cpu or memory is quota'd (`constraints`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.resourcequota.resources import (
    ONE,
    ZERO,
    ResourceList,
    accumulate,
    add,
    mapping,
    mask,
    maximum,
    parse_list,
    quantity,
    to_json,
)

GroupResource = tuple[str, str]

STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"
_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
_REQUESTS_PREFIX = "requests."
_HUGEPAGES_PREFIX = "hugepages-"
_NATIVE_DOMAIN = "kubernetes.io/"
#: the compute resources a pod must declare on every container when a quota names them (kube's validationSet)
_VALIDATION_SET = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
#: object counts kube has always had a bare name for
LEGACY_COUNT_ALIASES: dict[GroupResource, str] = {
    ("", "configmaps"): "configmaps",
    ("", "resourcequotas"): "resourcequotas",
    ("", "replicationcontrollers"): "replicationcontrollers",
    ("", "secrets"): "secrets",
}

Requirement = dict[str, Any]


def count_name(gr: GroupResource) -> str:
    """ObjectCountQuotaResourceNameFor: `count/pods`, `count/deployments.apps`."""
    group, resource = gr
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def count_target(name: str) -> GroupResource | None:
    """The group/resource a `count/<resource>[.<group>]` name counts."""
    if not name.startswith("count/") or len(name) == len("count/"):
        return None
    resource, _, group = name[len("count/") :].partition(".")
    return (group, resource)


def scope_requirements(quota: Obj) -> list[Requirement]:
    """getScopeSelectorsFromQuota: each scope as an Exists requirement, then the scope selector's."""
    spec = mapping(quota.get("spec"))
    found: list[Requirement] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    for req in mapping(spec.get("scopeSelector")).get("matchExpressions") or []:
        if isinstance(req, dict):
            found.append(req)
    return found


class Evaluator:
    """The object count evaluator (kube's generic.objectCountEvaluator): one per object, on create."""

    def __init__(self, gr: GroupResource, alias: str | None = None) -> None:
        self.gr = gr
        self.names = [count_name(gr)] + ([alias] if alias else [])

    def matching(self, names: Iterable[str]) -> list[str]:
        return [name for name in names if name in self.names]

    def handles(self, operation: str, subresource: str, obj: Obj | None, old: Obj | None) -> bool:
        return operation == "CREATE" and not subresource

    def matches_scope(self, requirement: Requirement, obj: Obj) -> bool:
        return False  # only pods have scopes

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        return {name: ONE for name in self.names}

    def constraints(self, required: list[str], obj: Obj) -> str | None:
        return None

    def matches(self, quota: Obj, obj: Obj) -> bool:
        """generic.Matches: the quota limits something of this evaluator, and every scope takes the object."""
        hard = parse_list(mapping(quota.get("status")).get("hard"))
        return bool(self.matching(hard)) and all(self.matches_scope(r, obj) for r in scope_requirements(quota))


# -- pods -----------------------------------------------------------------------------------------------------

_POD_RESOURCES = (
    "count/pods",
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
)
_POD_PREFIXES = ("hugepages-", "requests.hugepages-")


def _native(name: str) -> bool:
    """helper.IsNativeResource: no domain, or one under kubernetes.io."""
    return "/" not in name or _NATIVE_DOMAIN in name


def _extended_for_quota(name: str) -> bool:
    return name.startswith(_REQUESTS_PREFIX) and not _native(name)


def _containers(pod_spec: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    return [c for c in pod_spec.get(key) or [] if isinstance(c, dict)]


def _resources(container: Mapping[str, Any], which: str) -> ResourceList:
    return parse_list(mapping(container.get("resources")).get(which))


def _pod_aggregate(pod: Obj, which: str) -> ResourceList:
    """resourcehelper.PodRequests / PodLimits: the containers' sum, sidecars (restartable init containers)
    added, raised to the largest init container (with the sidecars started before it), pod-level values
    taking the place of cpu and memory, then the overhead."""
    spec = mapping(pod.get("spec"))
    total: ResourceList = {}
    for container in _containers(spec, "containers"):
        accumulate(total, _resources(container, which))
    sidecars: ResourceList = {}
    init_max: ResourceList = {}
    for container in _containers(spec, "initContainers"):
        own = _resources(container, which)
        if container.get("restartPolicy") == "Always":
            accumulate(total, own)
            accumulate(sidecars, own)
            own = dict(sidecars)
        else:
            own = add(own, sidecars)
        maximum(init_max, own)
    maximum(total, init_max)
    pod_level = parse_list(mapping(spec.get("resources")).get(which))
    for name in ("cpu", "memory"):
        if name in pod_level:
            total[name] = pod_level[name]
    overhead = parse_list(spec.get("overhead"))
    if which == "requests":
        accumulate(total, overhead)
    else:  # limits: only where a limit exists
        for name, value in overhead.items():
            if name in total:
                accumulate(total, {name: value})
    return total


def compute_usage(requests: Mapping[str, Any], limits: Mapping[str, Any]) -> ResourceList:
    """podComputeUsageHelper."""
    result: ResourceList = {"pods": ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            result[name] = requests[name]
            result[_REQUESTS_PREFIX + name] = requests[name]
        if name in limits:
            result["limits." + name] = limits[name]
    for name, value in requests.items():
        if name.startswith(_HUGEPAGES_PREFIX):
            result[name] = value
            result[_REQUESTS_PREFIX + name] = value
        elif not _native(name) and not name.startswith(_REQUESTS_PREFIX):
            result[_REQUESTS_PREFIX + name] = value
    return result


def is_terminating(pod: Obj) -> bool:
    deadline = mapping(pod.get("spec")).get("activeDeadlineSeconds")
    return isinstance(deadline, int) and not isinstance(deadline, bool) and deadline >= 0


def is_best_effort(pod: Obj) -> bool:
    """qos.GetPodQOS == BestEffort: the recorded class, else no cpu or memory request or limit anywhere."""
    recorded = mapping(pod.get("status")).get("qosClass")
    if recorded:
        return bool(recorded == "BestEffort")
    spec = mapping(pod.get("spec"))
    sources = [mapping(c.get("resources")) for k in ("containers", "initContainers") for c in _containers(spec, k)]
    sources.append(mapping(spec.get("resources")))
    for resources in sources:
        for which in ("requests", "limits"):
            listed = parse_list(resources.get(which))
            if any(name in ("cpu", "memory") and not q.is_zero() for name, q in listed.items()):
                return False
    return True


def _parse_time(raw: object) -> datetime | None:
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def charge_ends_at(pod: Obj) -> datetime | None:
    """When a deleted pod stops being charged (its deletion time plus its grace period, kube's QuotaV1Pod)."""
    meta = mapping(pod.get("metadata"))
    deleted, grace = _parse_time(meta.get("deletionTimestamp")), meta.get("deletionGracePeriodSeconds")
    if deleted is None or not isinstance(grace, int):
        return None
    return datetime.fromtimestamp(deleted.timestamp() + grace, UTC)


def charged(pod: Obj, now: datetime) -> bool:
    """QuotaV1Pod: terminal pods, and pods whose deletion's grace has run out, use no compute quota."""
    if mapping(pod.get("status")).get("phase") in ("Failed", "Succeeded"):
        return False
    ends = charge_ends_at(pod)
    return ends is None or now <= ends


def _priority_class_matches(pod: Obj, requirement: Requirement) -> bool:
    """ScopedResourceSelectorRequirementsAsSelector over {PriorityClass: the pod's class} (empty without one)."""
    name = mapping(pod.get("spec")).get("priorityClassName") or ""
    operator, values = requirement.get("operator"), requirement.get("values") or []
    if operator == "Exists":
        return bool(name)
    if operator == "DoesNotExist":
        return not name
    if operator == "In":
        return bool(name) and name in values
    if operator == "NotIn":
        return not name or name not in values
    return False


def _cross_namespace(pod: Obj) -> bool:
    affinity = mapping(mapping(pod.get("spec")).get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = mapping(affinity.get(kind))
        required = [t for t in terms.get("requiredDuringSchedulingIgnoredDuringExecution") or [] if isinstance(t, dict)]
        preferred = [
            mapping(t.get("podAffinityTerm"))
            for t in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            if isinstance(t, dict)
        ]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in required + preferred):
            return True
    return False


class PodEvaluator(Evaluator):
    def __init__(self) -> None:
        super().__init__(("", "pods"))

    def matching(self, names: Iterable[str]) -> list[str]:
        return [
            name
            for name in names
            if name in _POD_RESOURCES or name.startswith(_POD_PREFIXES) or _extended_for_quota(name)
        ]

    def handles(self, operation: str, subresource: str, obj: Obj | None, old: Obj | None) -> bool:
        if subresource:
            return False
        if operation == "UPDATE" and obj is not None and old is not None:
            return is_terminating(obj) != is_terminating(old)  # the pod moved between scopes
        return operation == "CREATE"

    def matches_scope(self, requirement: Requirement, obj: Obj) -> bool:
        scope = requirement.get("scopeName")
        if scope == "Terminating":
            return is_terminating(obj)
        if scope == "NotTerminating":
            return not is_terminating(obj)
        if scope == "BestEffort":
            return is_best_effort(obj)
        if scope == "NotBestEffort":
            return not is_best_effort(obj)
        if scope == "PriorityClass":
            return _priority_class_matches(obj, requirement)
        if scope == "CrossNamespacePodAffinity":
            return _cross_namespace(obj)
        return False

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        # count/pods counts every stored pod; the rest only pods still running or about to
        result: ResourceList = {"count/pods": ONE}
        if not charged(obj, now):
            return result
        return add(result, compute_usage(_pod_aggregate(obj, "requests"), _pod_aggregate(obj, "limits")))

    def constraints(self, required: list[str], obj: Obj) -> str | None:
        """Every container declares the cpu and memory requests or limits a quota names (kube keeps this for
        compatibility); pod-level resources make the containers' optional."""
        spec = mapping(obj.get("spec"))
        if mapping(spec.get("resources")).get("requests") or mapping(spec.get("resources")).get("limits"):
            return None
        needed = set(required) & _VALIDATION_SET
        missing: dict[str, set[str]] = {}
        for key in ("containers", "initContainers"):
            for container in _containers(spec, key):
                declared = compute_usage(_resources(container, "requests"), _resources(container, "limits"))
                for name in needed - set(declared):
                    missing.setdefault(name, set()).add(str(container.get("name", "")))
        if not missing:
            return None
        parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
        return "must specify " + "; ".join(parts)


# -- services and claims --------------------------------------------------------------------------------------

_SERVICE_RESOURCES = ("count/services", "services", "services.nodeports", "services.loadbalancers")


class ServiceEvaluator(Evaluator):
    def __init__(self) -> None:
        super().__init__(("", "services"))

    def matching(self, names: Iterable[str]) -> list[str]:
        return [name for name in names if name in _SERVICE_RESOURCES]

    def handles(self, operation: str, subresource: str, obj: Obj | None, old: Obj | None) -> bool:
        return operation in ("CREATE", "UPDATE") and not subresource

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        spec = mapping(obj.get("spec"))
        ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
        result: ResourceList = {
            "count/services": ONE,
            "services": ONE,
            "services.loadbalancers": ZERO,
            "services.nodeports": ZERO,
        }
        kind = spec.get("type")
        if kind == "NodePort":
            result["services.nodeports"] = quantity(len(ports))
        elif kind == "LoadBalancer":
            if spec.get("allocateLoadBalancerNodePorts") is False:
                # no node ports are allocated then: only those asked for by number count
                result["services.nodeports"] = quantity(sum(1 for p in ports if p.get("nodePort")))
            else:
                result["services.nodeports"] = quantity(len(ports))
            result["services.loadbalancers"] = ONE
        return result


_CLAIM_RESOURCES = ("persistentvolumeclaims", "requests.storage")


def claim_class(claim: Obj) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName."""
    annotations = mapping(mapping(claim.get("metadata")).get("annotations"))
    if _BETA_STORAGE_CLASS in annotations:
        return str(annotations[_BETA_STORAGE_CLASS])
    return str(mapping(claim.get("spec")).get("storageClassName") or "")


class ClaimEvaluator(Evaluator):
    def __init__(self) -> None:
        super().__init__(("", "persistentvolumeclaims"))

    def matching(self, names: Iterable[str]) -> list[str]:
        return [
            name
            for name in names
            if name == "count/persistentvolumeclaims"
            or name in _CLAIM_RESOURCES
            or any(name.endswith(STORAGE_CLASS_SUFFIX + r) for r in _CLAIM_RESOURCES)
        ]

    def handles(self, operation: str, subresource: str, obj: Obj | None, old: Obj | None) -> bool:
        return operation in ("CREATE", "UPDATE") and not subresource

    def usage(self, obj: Obj, now: datetime) -> ResourceList:
        result: ResourceList = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
        storage_class = claim_class(obj)
        if storage_class:
            result[storage_class + STORAGE_CLASS_SUFFIX + "persistentvolumeclaims"] = ONE
        requested = parse_list(mapping(mapping(obj.get("spec")).get("resources")).get("requests")).get("storage")
        allocated = parse_list(mapping(obj.get("status")).get("allocatedResources")).get("storage")
        if allocated is not None and (requested is None or allocated.value > requested.value):
            requested = allocated  # an expansion in progress is charged at its larger size
        if requested is not None:
            result["requests.storage"] = requested
            if storage_class:
                result[storage_class + STORAGE_CLASS_SUFFIX + "requests.storage"] = requested
        return result


CORE_EVALUATORS: dict[GroupResource, Evaluator] = {
    ("", "pods"): PodEvaluator(),
    ("", "services"): ServiceEvaluator(),
    ("", "persistentvolumeclaims"): ClaimEvaluator(),
    **{gr: Evaluator(gr, alias) for gr, alias in LEGACY_COUNT_ALIASES.items()},
}


def evaluator_for(gr: GroupResource) -> Evaluator:
    """The evaluator of a group/resource: a core one, else an object count (kube's admission adds those on
    first sight)."""
    return CORE_EVALUATORS.get(gr) or Evaluator(gr)


def evaluators_for(names: Iterable[str]) -> list[Evaluator]:
    """The core evaluators and an object count for every other resource a `count/` name asks about."""
    found = dict(CORE_EVALUATORS)
    for name in names:
        target = count_target(name)
        if target is not None and target not in found:
            found[target] = Evaluator(target)
    return list(found.values())


# -- a quota's usage (the controller) ------------------------------------------------------------------------

#: the objects of a group/resource in the quota's namespace; None when they cannot be listed (not served)
ListObjects = Callable[[GroupResource], list[Obj] | None]


def calculate_usage(quota: Obj, list_objects: ListObjects, now: datetime) -> tuple[ResourceList, list[str]]:
    """quota.CalculateUsage: the usage observed for each hard resource some evaluator tracks (zero when
    nothing uses it), and those names."""
    hard = list(parse_list(mapping(quota.get("spec")).get("hard")))
    requirements = scope_requirements(quota)
    used: ResourceList = {}
    tracked: list[str] = []
    for evaluator in evaluators_for(hard):
        names = evaluator.matching(hard)
        if not names:
            continue
        objects = list_objects(evaluator.gr)
        if objects is None:
            continue
        tracked.extend(names)
        stats: ResourceList = {name: ZERO for name in names}
        for obj in objects:
            if all(evaluator.matches_scope(r, obj) for r in requirements):
                stats = add(stats, evaluator.usage(obj, now))
        used = add(used, mask(stats, names))
    return used, tracked


def quota_status(quota: Obj, list_objects: ListObjects, now: datetime) -> dict[str, Any]:
    """syncResourceQuota: status.hard is spec.hard; status.used is the recorded usage updated with what was
    observed, for exactly the hard resources."""
    hard = parse_list(mapping(quota.get("spec")).get("hard"))
    used = parse_list(mapping(quota.get("status")).get("used"))
    observed, _ = calculate_usage(quota, list_objects, now)
    used.update(observed)
    return {"hard": to_json(hard), "used": to_json(mask(used, hard))}
