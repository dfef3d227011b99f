"""A pod's QoS class, as `v1qos.GetPodQOS` decides it from the containers' cpu and memory requests and limits.

BestEffort: no container (init containers included) requests or limits cpu or memory. Guaranteed: every
container limits both, and every request it states equals its limit (the API server defaults missing requests to
the limits). Anything else is Burstable.
"""

from __future__ import annotations

from fractions import Fraction

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.quantity import QuantityError, quantity_from_json

_COMPUTE = ("cpu", "memory")


def _compute(resources: dict[str, object] | None) -> dict[str, Fraction]:
    """The nonzero cpu and memory amounts of a requests or limits map (what fails to parse counts as absent)."""
    found = {}
    for name in _COMPUTE:
        if resources and name in resources:
            try:
                amount = quantity_from_json(resources[name]).value
            except QuantityError:
                continue
            if amount != 0:
                found[name] = amount
    return found


def qos_class(pod: Obj) -> str:
    spec = pod.get("spec") or {}
    containers = list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
    anything = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = _compute(resources.get("requests"))
        limits = _compute(resources.get("limits"))
        anything = anything or bool(requests) or bool(limits)
        if set(limits) != set(_COMPUTE) or any(limits[name] != value for name, value in requests.items()):
            guaranteed = False
    if not anything:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
