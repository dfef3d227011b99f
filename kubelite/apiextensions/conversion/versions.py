"""Group/version strings as k8s.io/apimachinery's runtime/schema parses and prints them.

Conversion errors name objects by their GroupVersionKind (`stable.example.com/v1, Kind=CronTab`) and compare
group/versions parsed from apiVersion strings; these helpers keep those comparisons and texts in one place.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import parse_group_version as group_version


def parse_group_version(api_version: Any) -> tuple[str, str] | None:
    """schema.ParseGroupVersion of an object's apiVersion; a value that is no string reads as the empty one."""
    return group_version(api_version) if isinstance(api_version, str) else ("", "")


def group_version_string(api_version: Any) -> str:
    """GroupVersion.String() of an object's apiVersion: an unparseable one reads as the empty GroupVersion."""
    parsed = parse_group_version(api_version)
    if parsed is None:
        return ""
    group, version = parsed
    return f"{group}/{version}" if group else version


def gvk_string(obj: Obj, *, kind_suffix: str = "") -> str:
    """GroupVersionKind.String() of an object: `group/version, Kind=Kind`."""
    parsed = parse_group_version(obj.get("apiVersion")) or ("", "")
    kind = obj.get("kind")
    return f"{parsed[0]}/{parsed[1]}, Kind={kind if isinstance(kind, str) else ''}{kind_suffix}"


def conversion_failed(message: str) -> StatusError:
    """What a client receives for a failed conversion: kube's handlers turn the converter's plain error into a
    500 Status without a reason (StatusReasonUnknown), its message the error's text."""
    return StatusError(500, "", message)
