"""Pods: defaults, the fields selectors may use, graceful deletion once scheduled."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.strategy import Strategy

DEFAULT_GRACE_SECONDS = 30


def default_pod_spec(spec: dict[str, Any]) -> None:
    """SetDefaults for a PodSpec (also used by pod templates of workloads)."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                _default_container(container)


def _default_container(container: dict[str, Any]) -> None:
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("resources", {})
    if "imagePullPolicy" not in container:
        image = str(container.get("image") or "")
        tag = image.rsplit("/", 1)[-1]
        latest = "@" not in tag and (":" not in tag or tag.endswith(":latest"))
        container["imagePullPolicy"] = "Always" if latest else "IfNotPresent"
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


class PodStrategy(Strategy):
    tracks_generation = True
    return_deleted_object = True
    selectable_fields = (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    )

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {"phase": "Pending", "qosClass": _qos_class(obj.get("spec") or {})}

    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            default_pod_spec(spec)
            spec.setdefault("enableServiceLinks", True)
            spec.setdefault("serviceAccountName", spec.get("serviceAccount") or "default")
            spec.setdefault("serviceAccount", spec["serviceAccountName"])
            spec.setdefault("priority", 0)
            spec.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError.required("spec.containers", "")]
        containers = spec.get("containers")
        errs: list[FieldError] = []
        if not containers:
            errs.append(FieldError.required("spec.containers", ""))
            return errs
        seen: set[str] = set()
        for i, container in enumerate(containers):
            name = container.get("name") if isinstance(container, dict) else None
            if not name:
                errs.append(FieldError.required(f"spec.containers[{i}].name", ""))
            elif name in seen:
                errs.append(FieldError.duplicate(f"spec.containers[{i}].name", name))
            else:
                seen.add(name)
            if isinstance(container, dict) and not container.get("image"):
                errs.append(FieldError.required(f"spec.containers[{i}].image", ""))
        return errs

    def grace_period(self, obj: Obj, requested: int | None) -> int:
        spec = obj.get("spec") or {}
        phase = (obj.get("status") or {}).get("phase")
        if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            return 0  # nothing runs it: nothing to wait for
        if requested is not None:
            return max(requested, 0)
        return int(spec.get("terminationGracePeriodSeconds") or DEFAULT_GRACE_SECONDS)


def _qos_class(spec: dict[str, Any]) -> str:
    containers = [c for c in (spec.get("containers") or []) if isinstance(c, dict)]
    if not any(
        (c.get("resources") or {}).get("requests") or (c.get("resources") or {}).get("limits") for c in containers
    ):
        return "BestEffort"
    for container in containers:
        resources = container.get("resources") or {}
        limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
        for resource in ("cpu", "memory"):
            if resource not in limits or requests.get(resource, limits[resource]) != limits[resource]:
                return "Burstable"
    return "Guaranteed"
