"""Resource lists (kube's `corev1.ResourceList` helpers in pkg/quota/v1/resources.go): maps of resource name to
Quantity, added, subtracted, masked and compared as kube's quota code does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from kubelite.apimachinery.quantity import Quantity, QuantityError, quantity_from_json

ResourceList = dict[str, Quantity]

ZERO = Quantity(Fraction(0), "DecimalSI")
ONE = Quantity(Fraction(1), "DecimalSI")


def quantity(value: int) -> Quantity:
    """resource.NewQuantity(value, DecimalSI)."""
    return Quantity(Fraction(value), "DecimalSI")


def parse_list(raw: object) -> ResourceList:
    """A decoded ResourceList; entries that are not quantities are left out (validation refused them already)."""
    if not isinstance(raw, Mapping):
        return {}
    out: ResourceList = {}
    for name, value in raw.items():
        try:
            out[str(name)] = quantity_from_json(value)
        except QuantityError:
            continue
    return out


def to_json(resources: Mapping[str, Quantity]) -> dict[str, str]:
    return {name: str(value) for name, value in sorted(resources.items())}


def plus(a: Quantity, b: Quantity) -> Quantity:
    """Quantity.Add: the sum, printed canonically, in the format of the first addend unless that is zero."""
    return Quantity(a.value + b.value, b.format if a.value == 0 else a.format)


def minus(a: Quantity, b: Quantity) -> Quantity:
    """Quantity.Sub: the difference, in the format of the minuend unless that is zero."""
    return Quantity(a.value - b.value, b.format if a.value == 0 else a.format)


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    result: ResourceList = {name: plus(value, b[name]) if name in b else value for name, value in a.items()}
    for name, value in b.items():
        result.setdefault(name, value)
    return result


def subtract_non_negative(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """quota.SubtractWithNonNegativeResult: a - b per name of a, never below zero."""
    result: ResourceList = {}
    for name, value in a.items():
        diff = minus(value, b[name]) if name in b else value
        result[name] = diff if diff.value > 0 else Quantity(Fraction(0), diff.format)
    return result


def mask(resources: Mapping[str, Quantity], names: Iterable[str]) -> ResourceList:
    keep = set(names)
    return {name: value for name, value in resources.items() if name in keep}


def remove_zeros(resources: Mapping[str, Quantity]) -> ResourceList:
    return {name: value for name, value in resources.items() if not value.is_zero()}


def negative(resources: Mapping[str, Quantity]) -> list[str]:
    return sorted(name for name, value in resources.items() if value.value < 0)


def less_than_or_equal(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> tuple[bool, list[str]]:
    """quota.LessThanOrEqual: whether every name of a that b limits stays within it, and those that do not."""
    exceeded = [name for name, value in a.items() if name in b and value.value > b[name].value]
    return not exceeded, exceeded


def equals(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> bool:
    return a.keys() == b.keys() and all(a[name].value == b[name].value for name in a)


def pretty(resources: Mapping[str, Quantity]) -> str:
    """kube's prettyPrint: `name=value` by name, comma separated."""
    return ",".join(f"{name}={resources[name]}" for name in sorted(resources))


def maximum(into: ResourceList, other: Mapping[str, Quantity]) -> None:
    """maxResourceList: each name of `other` raised into `into` where larger (or missing)."""
    for name, value in other.items():
        if name not in into or value.value > into[name].value:
            into[name] = value


def accumulate(into: ResourceList, other: Mapping[str, Quantity]) -> None:
    """addResourceList."""
    for name, value in other.items():
        into[name] = plus(into[name], value) if name in into else value


def mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}
