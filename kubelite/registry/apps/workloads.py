"""What the workloads with a pod template share (deployments, replicasets, statefulsets, daemonsets,
replication controllers, jobs, cronjobs): quantities decoded and the template's pod spec defaulted before each
kind's own defaults, and the selector the scale subresource reports. Each kind's strategy is in its own
resource module.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import SelectorError, label_selector_from_spec
from kubelite.registry.core.pods import default_pod_spec
from kubelite.registry.strategy import Strategy
from kubelite.registry.validation.quantities import decode_quantities


def template_labels(spec: dict[str, Any]) -> dict[str, Any] | None:
    template = spec.get("template")
    meta = template.get("metadata") if isinstance(template, dict) else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else None


class WorkloadStrategy(Strategy):
    """What every workload kind shares: quantities decoded and the pod template defaulted."""

    tracks_generation = True
    selectable_fields: tuple[str, ...] = ()

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        pod_spec = self.pod_spec(spec)
        if pod_spec is not None:
            default_pod_spec(pod_spec)
        self.default_spec(obj, spec)

    def pod_spec(self, spec: dict[str, Any]) -> dict[str, Any] | None:
        template = spec.get("template")
        pod_spec = template.get("spec") if isinstance(template, dict) else None
        return pod_spec if isinstance(pod_spec, dict) else None

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        pass


def scale_selector(obj: Obj) -> str:
    """status.selector of a Scale: the workload's selector in label selector syntax."""
    selector = (obj.get("spec") or {}).get("selector")
    if not selector:
        return ""
    if obj.get("kind") == "ReplicationController":
        return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))
    try:
        return str(label_selector_from_spec(selector))
    except SelectorError:
        return ""
