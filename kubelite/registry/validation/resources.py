"""Resource names and amounts (kube's validateResourceRequirements and friends): which names a container may
ask for, non-negative and whole-number amounts, requests not above limits, huge pages, and the rules shared
by volumes, quotas and limit ranges.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final

from kubelite.apimachinery.quantity import Quantity, QuantityError, quantity_from_json
from kubelite.apimachinery.validation import FieldError, is_qualified_name
from kubelite.registry.validation import badvalues
from kubelite.registry.validation.common import NEGATIVE, NOT_POSITIVE, items, mapping, text

HUGEPAGES_PREFIX: Final = "hugepages-"
REQUESTS_PREFIX: Final = "requests."

STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
STANDARD_RESOURCES: Final = frozenset(
    {
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
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INTEGER_RESOURCES: Final = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
POD_LEVEL_RESOURCES: Final = ("cpu", "memory")


def is_huge_page(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    if is_native(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return not is_qualified_name(REQUESTS_PREFIX + name)


def overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_huge_page(name)


def is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended(name)


def is_standard_resource(name: str) -> bool:
    return name in STANDARD_RESOURCES or is_huge_page(name) or name.startswith(REQUESTS_PREFIX + HUGEPAGES_PREFIX)


def quantity(raw: Any) -> Quantity:
    """A stored quantity; one that does not parse (it cannot, after decoding) reads as zero."""
    try:
        return quantity_from_json(raw)
    except QuantityError:
        return Quantity(Fraction(0))


def resource_name(name: str, path: str) -> list[FieldError]:
    """validateResourceName."""
    errs = [FieldError.invalid(path, name, msg) for msg in is_qualified_name(name)]
    if errs:
        return errs
    if "/" not in name and not is_standard_resource(name):
        errs.append(FieldError.invalid(path, name, "must be a standard resource type or fully qualified"))
    return errs


def container_resource_name(name: str, path: str) -> list[FieldError]:
    """validateContainerResourceName."""
    errs = resource_name(name, path)
    if "/" not in name:
        if name not in STANDARD_CONTAINER_RESOURCES and not is_huge_page(name):
            errs.append(FieldError.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native(name) and not is_extended(name):
        errs.append(FieldError.invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def pod_resource_name(name: str, path: str) -> list[FieldError]:
    """validatePodResourceName: only the resources pod-level resources support."""
    errs = resource_name(name, path)
    if errs:
        return errs
    if name not in POD_LEVEL_RESOURCES and not is_huge_page(name):
        errs.append(FieldError.not_supported(path, name, list(POD_LEVEL_RESOURCES)))
    return errs


def nonnegative_quantity(value: Quantity, path: str) -> list[FieldError]:
    if value.sign() < 0:
        return [FieldError.invalid(path, str(value), NEGATIVE)]
    return []


def positive_quantity(value: Quantity, path: str) -> list[FieldError]:
    if value.sign() <= 0:
        return [FieldError.invalid(path, str(value), NOT_POSITIVE)]
    return []


def quantity_value(name: str, value: Quantity, path: str) -> list[FieldError]:
    """ValidateResourceQuantityValue: not negative, and whole for countable resources."""
    errs = nonnegative_quantity(value, path)
    if is_integer_resource(name) and value.milli_value() % 1000 != 0:
        errs.append(FieldError.invalid(path, badvalues.quantity(str(value)), "must be an integer"))
    return errs


def basic_resource(value: Quantity, path: str) -> list[FieldError]:
    """validateBasicResource."""
    if value.int_value() < 0:
        return [FieldError.invalid(path, value.int_value(), "must be a valid resource quantity")]
    return []


def _huge_page_size(name: str) -> Quantity | None:
    try:
        size = quantity_from_json(name[len(HUGEPAGES_PREFIX) :])
    except QuantityError:
        return None
    return size if size.sign() > 0 else None


def _huge_page_error(name: str, value: Quantity, path: str) -> list[FieldError]:
    size = _huge_page_size(name)
    divisible = size is not None and value.int_value() % size.int_value() == 0 and value.sign() >= 0
    if divisible:
        return []
    return [FieldError.invalid(path, str(value), f"{value} is not positive integer multiple of {name}")]


NameCheck = Callable[[str, str], list[FieldError]]


def requirements(
    resources: dict[str, Any], claim_names: set[str], path: str, name_check: NameCheck = container_resource_name
) -> list[FieldError]:
    """validateResourceRequirements: names, amounts, requests against limits, huge pages, claims."""
    errs: list[FieldError] = []
    limits_path, requests_path = f"{path}.limits", f"{path}.requests"
    limits = {name: quantity(raw) for name, raw in mapping(resources, "limits").items()}
    requests = {name: quantity(raw) for name, raw in mapping(resources, "requests").items()}
    limits_cpu_memory = requests_cpu_memory = limits_huge = requests_huge = False
    for name, value in limits.items():
        item_path = f"{limits_path}[{name}]"
        errs.extend(name_check(name, item_path))
        errs.extend(quantity_value(name, value, item_path))
        if is_huge_page(name):
            limits_huge = True
            errs.extend(_huge_page_error(name, value, item_path))
        if name in ("cpu", "memory"):
            limits_cpu_memory = True
    for name, value in requests.items():
        item_path = f"{requests_path}[{name}]"
        errs.extend(name_check(name, item_path))
        errs.extend(quantity_value(name, value, item_path))
        limit = limits.get(name)
        if limit is not None:
            if value.cmp(limit) != 0 and not overcommit_allowed(name):
                errs.append(FieldError.invalid(requests_path, str(value), f"must be equal to {name} limit of {limit}"))
            elif value > limit:
                errs.append(
                    FieldError.invalid(
                        requests_path, str(value), f"must be less than or equal to {name} limit of {limit}"
                    )
                )
        elif not overcommit_allowed(name):
            errs.append(FieldError.required(limits_path, "Limit must be set for non overcommitable resources"))
        if is_huge_page(name):
            requests_huge = True
            errs.extend(_huge_page_error(name, value, item_path))
        if name in ("cpu", "memory"):
            requests_cpu_memory = True
    if not limits_cpu_memory and not requests_cpu_memory and (limits_huge or requests_huge):
        errs.append(FieldError.forbidden(path, "HugePages require cpu or memory"))
    errs.extend(_claim_names(items(resources, "claims"), claim_names, f"{path}.claims"))
    return errs


def _claim_names(claims: list[dict[str, Any]], pod_claims: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, claim in enumerate(claims):
        name, request = text(claim, "name"), text(claim, "request")
        item_path = f"{path}[{index}]"
        if not name:
            errs.append(FieldError.required(item_path, ""))
            continue
        if name in seen:
            errs.append(FieldError.duplicate(item_path, name))
        else:
            key = f"{name}/{request}" if request else name
            if key in seen:
                errs.append(FieldError.duplicate(item_path, key))
            seen.add(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(pod_claims)) if pod_claims else " which is empty"
            errs.append(FieldError("Not found", item_path, name, detail))
    return errs
