"""File-path and downward-API field checks shared by volumes and containers (kube's
validateLocalDescendingPath, ValidateLocalNonReservedPath, validateObjectFieldSelector and
validateContainerResourceFieldSelector)."""

from __future__ import annotations

import posixpath
from typing import Any, Final

from kubelite.apimachinery.validation import FieldError
from kubelite.registry.validation.common import qualified_name, text
from kubelite.registry.validation.resources import quantity

FILE_MODE_ERROR: Final = "must be a number between 0 and 0777 (octal), both inclusive"

VOLUME_FIELD_PATHS: Final = frozenset(
    {"metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid"}
)
ENV_FIELD_PATHS: Final = frozenset(
    {
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "spec.nodeName",
        "spec.serviceAccountName",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)
RESOURCE_FIELD_PATHS: Final = frozenset(
    {
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
    }
)
_HUGEPAGE_FIELD_PREFIXES: Final = ("requests.hugepages-", "limits.hugepages-")
_CONVERTIBLE_LABELS: Final = frozenset(
    {
        "metadata.annotations",
        "metadata.labels",
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)
_BYTE_DIVISORS: Final = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_BYTE_DIVISOR_LIST: Final = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def file_mode(mode: Any, path: str) -> list[FieldError]:
    if isinstance(mode, int) and not isinstance(mode, bool) and not 0 <= mode <= 0o777:
        return [FieldError.invalid(path, mode, FILE_MODE_ERROR)]
    return []


def no_backsteps(target: str, path: str) -> list[FieldError]:
    """validatePathNoBacksteps: one error, however many `..` elements."""
    if ".." in target.replace("\\", "/").split("/"):
        return [FieldError.invalid(path, target, "must not contain '..'")]
    return []


def local_descending_path(target: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if posixpath.isabs(target):
        errs.append(FieldError.invalid(path, target, "must be a relative path"))
    errs.extend(no_backsteps(target, path))
    return errs


def local_non_reserved_path(target: str, path: str) -> list[FieldError]:
    errs = local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(FieldError.invalid(path, target, "must not start with '..'"))
    return errs


def split_subscripted(field_path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['key']` -> (`metadata.labels`, `key`)."""
    if not field_path.endswith("']"):
        return None
    head, sep, subscript = field_path[:-2].partition("['")
    if not sep or not head:
        return None
    return head, subscript


def _convert_field_label(version: str, label: str) -> tuple[str | None, str]:
    # pods.ConvertDownwardAPIFieldLabel
    if version != "v1":
        return None, f"unsupported pod version: {version}"
    split = split_subscripted(label)
    if split is not None:
        if split[0] in ("metadata.annotations", "metadata.labels"):
            return label, ""
        return None, f"field label does not support subscript: {label}"
    if label in _CONVERTIBLE_LABELS:
        return label, ""
    if label == "spec.host":
        return "spec.nodeName", ""
    return None, f"field label not supported: {label}"


def object_field_selector(selector: dict[str, Any], expressions: frozenset[str], path: str) -> list[FieldError]:
    """validateObjectFieldSelector."""
    api_version, field_path = text(selector, "apiVersion"), text(selector, "fieldPath")
    if not api_version:
        return [FieldError.required(f"{path}.apiVersion", "")]
    if not field_path:
        return [FieldError.required(f"{path}.fieldPath", "")]
    internal, problem = _convert_field_label(api_version, field_path)
    if internal is None:
        return [FieldError.invalid(f"{path}.fieldPath", field_path, f"error converting fieldPath: {problem}")]
    split = split_subscripted(internal)
    if split is not None:
        head, subscript = split
        if head == "metadata.annotations":
            return qualified_name(subscript.lower(), path)
        if head == "metadata.labels":
            return qualified_name(subscript, path)
        return [FieldError.invalid(path, head, "does not support subscript")]
    if internal not in expressions:
        return [FieldError.not_supported(f"{path}.fieldPath", internal, sorted(expressions))]
    return []


def resource_field_selector(selector: dict[str, Any], path: str, volume: bool) -> list[FieldError]:
    """validateContainerResourceFieldSelector with kube's divisor rules."""
    errs: list[FieldError] = []
    resource = text(selector, "resource")
    if volume and not text(selector, "containerName"):
        errs.append(FieldError.required(f"{path}.containerName", ""))
    elif not resource:
        errs.append(FieldError.required(f"{path}.resource", ""))
    elif resource not in RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGE_FIELD_PREFIXES):
        errs.append(FieldError.not_supported(f"{path}.resource", resource, sorted(RESOURCE_FIELD_PATHS)))
    divisor_raw = selector.get("divisor")
    if divisor_raw is None:
        return errs
    divisor = quantity(divisor_raw)
    if divisor.is_zero():
        return errs
    shown = str(divisor)
    divisor_path = f"{path}.divisor"
    if resource in ("limits.cpu", "requests.cpu"):
        if shown not in ("1m", "1"):
            errs.append(
                FieldError.invalid(
                    divisor_path, resource, "only divisor's values 1m and 1 are supported with the cpu resource"
                )
            )
    elif resource in ("limits.memory", "requests.memory"):
        if shown not in _BYTE_DIVISORS:
            errs.append(
                FieldError.invalid(
                    divisor_path,
                    resource,
                    f"only divisor's values {_BYTE_DIVISOR_LIST} are supported with the memory resource",
                )
            )
    elif resource in ("limits.ephemeral-storage", "requests.ephemeral-storage"):
        if shown not in _BYTE_DIVISORS:
            errs.append(
                FieldError.invalid(
                    divisor_path,
                    resource,
                    f"only divisor's values {_BYTE_DIVISOR_LIST} are supported with the local ephemeral storage "
                    "resource",
                )
            )
    if resource.startswith(_HUGEPAGE_FIELD_PREFIXES) and shown not in _BYTE_DIVISORS:
        errs.append(
            FieldError.invalid(
                divisor_path,
                resource,
                f"only divisor's values {_BYTE_DIVISOR_LIST} are supported with the hugepages resource",
            )
        )
    return errs
