"""What a pod asks of a node, computed as kube-scheduler computes it (k8s.io/component-helpers resource.PodRequests).

The effective request is the larger of the regular containers' sum and the init phase's peak (each ordinary init
container runs alone, but after the restartable "sidecar" init containers before it have started and keep
running), plus the sidecars themselves for the whole life of the pod, plus the RuntimeClass overhead. Scoring
uses the "non-zero" variant where a container that names no cpu or memory request counts as 100m and 200Mi, so
best-effort pods still spread. Amounts are integers: cpu in millicores, everything else in the quantity's own
unit (bytes, pods, devices).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from kubelite.apimachinery.quantity import QuantityError, parse_quantity

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# kube's DefaultMilliCPURequest and DefaultMemoryRequest (pkg/scheduler/util/pod_resources.go)
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

Resources = dict[str, int]


@lru_cache(maxsize=4096)
def amount(resource: str, text: str) -> int:
    """A quantity as the scheduler's integer: MilliValue for cpu, Value (rounded up) for the rest; bad text is 0."""
    try:
        quantity = parse_quantity(text)
    except QuantityError:
        return 0
    return quantity.milli_value() if resource == CPU else quantity.int_value()


def resource_list(raw: Mapping[str, Any] | None) -> Resources:
    """A ResourceList (name to quantity string) as integers."""
    if not raw:
        return {}
    return {str(name): amount(str(name), str(value)) for name, value in raw.items()}


def _add(into: Resources, more: Mapping[str, int]) -> None:
    for name, value in more.items():
        into[name] = into.get(name, 0) + value


def _max(into: Resources, other: Mapping[str, int]) -> None:
    for name, value in other.items():
        if value > into.get(name, 0):
            into[name] = value


def _container_requests(container: Mapping[str, Any], non_zero: bool) -> Resources:
    requests = resource_list((container.get("resources") or {}).get("requests"))
    if non_zero:
        requests.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
        requests.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
    return requests


def pod_requests(pod: Mapping[str, Any], *, non_zero: bool = False) -> Resources:
    """resource.PodRequests: containers, init containers (with sidecars) and overhead, as one ResourceList."""
    spec = pod.get("spec") or {}
    total: Resources = {}
    for container in spec.get("containers") or ():
        _add(total, _container_requests(container, non_zero))
    sidecars: Resources = {}
    init_peak: Resources = {}
    for container in spec.get("initContainers") or ():
        requests = _container_requests(container, non_zero)
        if container.get("restartPolicy") == "Always":
            # a sidecar keeps running beside the main containers, and beside every init container after it
            _add(total, requests)
            _add(sidecars, requests)
            during = dict(sidecars)
        else:
            during = dict(requests)
            _add(during, sidecars)
        _max(init_peak, during)
    _max(total, init_peak)
    _add(total, resource_list(spec.get("overhead")))
    return total


def total(requests: Iterable[Mapping[str, int]]) -> Resources:
    summed: Resources = {}
    for one in requests:
        _add(summed, one)
    return summed
