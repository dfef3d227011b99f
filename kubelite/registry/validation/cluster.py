"""Cluster-scoped kinds with simple rules: Namespaces (finalizer names) and Nodes (taints, resource amounts,
pod CIDRs, and the fields a node keeps once set), after kube's ValidateNamespace and ValidateNode*.
"""

from __future__ import annotations

from typing import Any, Final

from kubelite.apimachinery.validation import FieldError, is_qualified_name
from kubelite.registry.validation.common import (
    items,
    label_value,
    mapping,
    parse_ip,
    qualified_name,
    strings,
    text,
    valid_cidr,
)
from kubelite.registry.validation.resources import STANDARD_RESOURCES, quantity, quantity_value, resource_name

STANDARD_FINALIZERS: Final = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _finalizer(name: str, path: str) -> list[FieldError]:
    errs = [FieldError.invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name and name not in STANDARD_FINALIZERS:
        errs.append(
            FieldError.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")
        )
    return errs


def validate_namespace(namespace: dict[str, Any]) -> list[FieldError]:
    """ValidateNamespace after the metadata: spec.finalizers (kube reports them without an index)."""
    errs: list[FieldError] = []
    for name in strings(mapping(namespace, "spec"), "finalizers"):
        errs.extend(_finalizer(name, "spec.finalizers"))
    return errs


def validate_namespace_finalize(namespace: dict[str, Any]) -> list[FieldError]:
    """ValidateNamespaceFinalizeUpdate."""
    errs: list[FieldError] = []
    for index, name in enumerate(strings(mapping(namespace, "spec"), "finalizers")):
        errs.extend(_finalizer(name, f"spec.finalizers[{index}]"))
    return errs


def _taints(taints: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: dict[str, set[str]] = {}
    for index, taint in enumerate(taints):
        item_path = f"{path}[{index}]"
        key, value, effect = text(taint, "key"), text(taint, "value"), text(taint, "effect")
        errs.extend(qualified_name(key, f"{item_path}.key"))
        msgs = [e.detail for e in label_value(value, f"{item_path}.value")]
        if msgs:
            errs.append(FieldError.invalid(f"{item_path}.value", value, ";".join(msgs)))
        if not effect:
            errs.append(FieldError.required(f"{item_path}.effect", ""))
        elif effect not in TAINT_EFFECTS:
            errs.append(FieldError.not_supported(f"{item_path}.effect", effect, list(TAINT_EFFECTS)))
        if key in seen.get(effect, set()):
            errs.append(FieldError("Duplicate value", item_path, taint, "taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)
    return errs


def _node_resources(node: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    status = mapping(node, "status")
    for section in ("capacity", "allocatable"):
        for name, raw in mapping(status, section).items():
            errs.extend(quantity_value(name, quantity(raw), f"status.{section}.{name}"))
    return errs


def validate_node(node: dict[str, Any]) -> list[FieldError]:
    """ValidateNode after the metadata (kube reports taints under `metadata.taints`)."""
    spec = mapping(node, "spec")
    errs = _taints(items(spec, "taints"), "metadata.taints")
    errs.extend(_node_resources(node))
    cidrs = strings(spec, "podCIDRs")
    for index, cidr in enumerate(cidrs):
        errs.extend(valid_cidr(cidr, f"spec.podCIDRs[{index}]"))
    if len(cidrs) > 1:
        versions = {getattr(parse_ip(c.partition("/")[0]), "version", None) for c in cidrs}
        if len(versions) != len(cidrs) or len(cidrs) > 2:
            errs.append(
                FieldError.invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family")
            )
        seen: set[str] = set()
        for index, cidr in enumerate(cidrs):
            if cidr in seen:
                errs.append(FieldError.duplicate(f"spec.podCIDRs[{index}]", cidr))
            seen.add(cidr)
    return errs


def validate_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateNodeUpdate after the metadata update checks."""
    errs = _node_resources(new)
    spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    old_cidrs, new_cidrs = strings(old_spec, "podCIDRs"), strings(spec, "podCIDRs")
    message = 'node updates may not change podCIDR except from "" to valid'
    if old_cidrs:
        if len(old_cidrs) != len(new_cidrs):
            errs.append(FieldError.forbidden("spec.podCIDRs", message))
        else:
            errs.extend(
                FieldError.forbidden("spec.podCIDRs", message)
                for o, n in zip(old_cidrs, new_cidrs, strict=True)
                if o != n
            )
    old_provider = text(old_spec, "providerID")
    if old_provider and old_provider != text(spec, "providerID"):
        errs.append(
            FieldError.forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid')
        )
    errs.extend(_taints(items(spec, "taints"), "metadata.taints"))
    if text(spec, "externalID") != text(old_spec, "externalID"):
        errs.append(FieldError.forbidden("spec.externalID", "may not be updated"))
    return errs


#: the standard resource names a quota may name: every standard resource but the bare `storage`
_QUOTA_RESOURCES: Final = STANDARD_RESOURCES - {"storage"}
QUOTA_SCOPES: Final = frozenset(
    {
        "Terminating",
        "NotTerminating",
        "BestEffort",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
        "VolumeAttributesClass",
    }
)


def _quota_resource_name(name: str, path: str) -> list[FieldError]:
    """ValidateResourceQuotaResourceName."""
    errs = resource_name(name, path)
    if "/" not in name and name not in _QUOTA_RESOURCES and not name.startswith("requests.hugepages-"):
        errs.append(FieldError.invalid(path, name, "must be a standard resource for quota"))
    return errs


def validate_resource_quota(quota: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceQuota after the metadata: the hard limits' names and amounts, and the scopes."""
    errs: list[FieldError] = []
    spec = mapping(quota, "spec")
    for name, raw in mapping(spec, "hard").items():
        path = f"spec.hard[{name}]"
        errs.extend(_quota_resource_name(name, path))
        errs.extend(quantity_value(name, quantity(raw), path))
    scopes = strings(spec, "scopes")
    for scope in scopes:
        if scope not in QUOTA_SCOPES:
            errs.append(FieldError.invalid("spec.scopes", scopes, "unsupported scope"))
    for pair in (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")):
        if set(pair) <= set(scopes):
            errs.append(FieldError.invalid("spec.scopes", scopes, "conflicting scopes"))
    return errs
