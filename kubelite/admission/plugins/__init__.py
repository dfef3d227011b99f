"""Built-in admission plugins."""

from __future__ import annotations

from typing import Any

from kubelite.admission.chain import Attributes
from kubelite.apimachinery.meta import Obj


def created_pod_spec(attrs: Attributes, obj: Obj | None) -> dict[str, Any] | None:
    """The spec of a pod being created (not a subresource write), for plugins that only touch new pods."""
    spec = attrs.spec
    if obj is None or attrs.operation != "CREATE" or attrs.subresource or (spec.group, spec.resource) != ("", "pods"):
        return None
    pod_spec = obj.get("spec")
    return pod_spec if isinstance(pod_spec, dict) else None
