"""The ResourceQuota admission check (kube's CheckRequest in plugin/pkg/admission/resourcequota): which quotas
of the namespace a write concerns, whether it fits in them, and their usage once it is charged. No I/O: the
admission plugin reads the quotas, calls `check_request`, and writes the charged usage back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.resourcequota.resources import (
    add,
    mapping,
    mask,
    negative,
    parse_list,
    pretty,
    remove_zeros,
    subtract_non_negative,
    to_json,
)
from kubelite.controllers.resourcequota.usage import evaluator_for


@dataclass
class Verdict:
    #: why the write is refused (the text after `is forbidden: `), None when it may go on
    refusal: str | None = None
    #: the new status.used of each charged quota, by its index in the quotas given
    charged: dict[int, dict[str, str]] = field(default_factory=dict)


def handles(operation: str, group: str, resource: str, subresource: str, obj: Obj, old: Obj | None) -> bool:
    """Whether the write can change usage of the resource's evaluator (kube's Evaluator.Handles)."""
    return evaluator_for((group, resource)).handles(operation, subresource, obj, old)


def check_request(
    quotas: list[Obj],
    operation: str,
    group: str,
    resource: str,
    subresource: str,
    obj: Obj | None,
    old: Obj | None,
    now: datetime,
) -> Verdict:
    evaluator = evaluator_for((group, resource))
    if obj is None or not evaluator.handles(operation, subresource, obj, old):
        return Verdict()
    interesting: list[int] = []
    for index, quota in enumerate(quotas):
        if not evaluator.matches(quota, obj):
            continue
        status = mapping(quota.get("status"))
        hard = parse_list(status.get("hard"))
        restricted = evaluator.matching(hard)
        name = mapping(quota.get("metadata")).get("name", "")
        problem = evaluator.constraints(restricted, obj)
        if problem is not None:
            return Verdict(f"failed quota: {name}: {problem}")
        used = parse_list(status.get("used"))
        if any(resource_name not in used for resource_name in hard if resource_name in restricted):
            return Verdict(f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}")
        interesting.append(index)
    if not interesting:
        return Verdict()

    delta = evaluator.usage(obj, now)
    below_zero = negative(delta)
    if below_zero:
        return Verdict(f"quota usage is negative for resource(s): {','.join(below_zero)}")
    if operation == "UPDATE":
        if old is None:
            return Verdict("unable to get previous usage since prior version of object was not found")
        if mapping(old.get("metadata")).get("resourceVersion"):
            # an update of a stored object is charged only what it adds
            delta = subtract_non_negative(delta, evaluator.usage(old, now))
    delta = remove_zeros(delta)
    if not delta:
        return Verdict()

    verdict = Verdict()
    for index in interesting:
        quota = quotas[index]
        status = mapping(quota.get("status"))
        hard, used = parse_list(status.get("hard")), parse_list(status.get("used"))
        requested = mask(delta, hard)
        new_used = add(used, requested)
        exceeded = [n for n in requested if n in hard and new_used[n].value > hard[n].value]
        if exceeded:
            name = mapping(quota.get("metadata")).get("name", "")
            return Verdict(
                f"exceeded quota: {name}, requested: {pretty(mask(requested, exceeded))}, "
                f"used: {pretty(mask(used, exceeded))}, limited: {pretty(mask(hard, exceeded))}"
            )
        if requested:
            verdict.charged[index] = to_json(new_used)
    return verdict
