"""Workloads with a pod template (deployments, replicasets, statefulsets, daemonsets, replication
controllers, jobs, cronjobs): template defaults, selector rules, and what the scale subresource reads."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import SelectorError, label_selector_from_spec
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.pods import default_pod_spec
from kubelite.registry.strategy import Strategy


def _template_spec(obj: Obj) -> dict[str, Any] | None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return None
    if obj.get("kind") == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    template = spec.get("template")
    if not isinstance(template, dict):
        return None
    pod_spec = template.get("spec")
    return pod_spec if isinstance(pod_spec, dict) else None


class WorkloadStrategy(Strategy):
    tracks_generation = True
    #: kinds whose selector must match the template labels and may not change (apps/v1)
    immutable_selector = True
    selectable_fields: tuple[str, ...] = ()

    def default(self, obj: Obj) -> None:
        pod_spec = _template_spec(obj)
        if pod_spec is not None:
            default_pod_spec(pod_spec)
        spec = obj.get("spec")
        if isinstance(spec, dict) and obj.get("kind") in (
            "Deployment",
            "ReplicaSet",
            "StatefulSet",
            "ReplicationController",
        ):
            spec.setdefault("replicas", 1)
        if isinstance(spec, dict):
            self.default_spec(spec)

    def default_spec(self, spec: dict[str, Any]) -> None:
        pass

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return [FieldError.required("spec", "")]
        errs: list[FieldError] = []
        replicas = spec.get("replicas")
        if replicas is not None and (not isinstance(replicas, int) or replicas < 0):
            errs.append(FieldError.invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
        if self.immutable_selector and obj.get("kind") not in ("Job", "CronJob", "ReplicationController"):
            selector = spec.get("selector")
            if not selector:
                errs.append(FieldError.required("spec.selector", ""))
            else:
                labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
                try:
                    matches = label_selector_from_spec(selector).matches(labels)
                except SelectorError as exc:
                    errs.append(FieldError.invalid("spec.selector", selector, str(exc)))
                    matches = True
                if not matches:
                    errs.append(
                        FieldError.invalid(
                            "spec.template.metadata.labels", labels, "`selector` does not match template `labels`"
                        )
                    )
        pod_spec = _template_spec(obj)
        if obj.get("kind") != "CronJob" and "template" not in spec:
            errs.append(FieldError.required("spec.template", ""))
        elif pod_spec is not None and not pod_spec.get("containers"):
            path = (
                "spec.jobTemplate.spec.template.spec.containers"
                if obj.get("kind") == "CronJob"
                else "spec.template.spec.containers"
            )
            errs.append(FieldError.required(path, ""))
        return errs

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        errs = self.validate(new)
        if self.immutable_selector and new.get("kind") in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
            if (new.get("spec") or {}).get("selector") != (old.get("spec") or {}).get("selector"):
                errs.append(
                    FieldError.invalid("spec.selector", (new.get("spec") or {}).get("selector"), "field is immutable")
                )
        return errs


class DeploymentStrategy(WorkloadStrategy):
    #: kube's deployment status strategy resets metadata.labels along with spec
    status_resets_labels = True

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {}  # every DeploymentStatus field is omitempty: kube answers `status: {}`

    def spec_changed(self, new: Obj, old: Obj) -> bool:
        # annotations are copied into the replica sets, so kube counts them as a new generation
        new_meta, old_meta = new.get("metadata") or {}, old.get("metadata") or {}
        annotations_changed = new_meta.get("annotations") != old_meta.get("annotations")
        return annotations_changed or super().spec_changed(new, old)

    def default_spec(self, spec: dict[str, Any]) -> None:
        strategy = spec.setdefault("strategy", {})
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            rolling.setdefault("maxUnavailable", "25%")
            rolling.setdefault("maxSurge", "25%")
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)


class StatefulSetStrategy(WorkloadStrategy):
    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("podManagementPolicy", "OrderedReady")
        update = spec.setdefault("updateStrategy", {"type": "RollingUpdate"})
        if update.get("type") == "RollingUpdate":
            update.setdefault("rollingUpdate", {"partition": 0})
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("persistentVolumeClaimRetentionPolicy", {"whenDeleted": "Retain", "whenScaled": "Retain"})


class DaemonSetStrategy(WorkloadStrategy):
    def default_spec(self, spec: dict[str, Any]) -> None:
        update = spec.setdefault("updateStrategy", {"type": "RollingUpdate"})
        if update.get("type") == "RollingUpdate":
            update.setdefault("rollingUpdate", {"maxUnavailable": 1, "maxSurge": 0})
        spec.setdefault("revisionHistoryLimit", 10)


class ReplicaSetStrategy(WorkloadStrategy):
    selectable_fields = ("status.replicas",)


class ReplicationControllerStrategy(WorkloadStrategy):
    immutable_selector = False
    selectable_fields = ("status.replicas",)

    def default_spec(self, spec: dict[str, Any]) -> None:
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        if not spec.get("selector") and labels:
            spec["selector"] = dict(labels)


def _generate_job_selector(obj: Obj, spec: dict[str, Any]) -> None:
    """kube's generateSelector: the pods of a job carry its name and uid (under the legacy keys too), and
    the job selects its uid. Labels and selector terms the user set are kept."""
    meta = obj.get("metadata") or {}
    template = spec.get("template")
    if not isinstance(template, dict):
        return
    labels = template.setdefault("metadata", {}).setdefault("labels", {})
    for key in ("job-name", "batch.kubernetes.io/job-name"):
        labels.setdefault(key, meta.get("name", ""))
    for key in ("controller-uid", "batch.kubernetes.io/controller-uid"):
        labels.setdefault(key, meta.get("uid", ""))
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    match = selector.get("matchLabels")
    if not isinstance(match, dict):
        match = selector["matchLabels"] = {}
    match.setdefault("batch.kubernetes.io/controller-uid", meta.get("uid", ""))


class JobStrategy(WorkloadStrategy):
    immutable_selector = False
    selectable_fields = ("status.successful",)

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        spec = obj.get("spec")
        if isinstance(spec, dict) and not spec.get("manualSelector"):
            _generate_job_selector(obj, spec)

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("parallelism", 1)
        spec.setdefault("completions", 1)
        spec.setdefault("backoffLimit", 6)
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
        pod_spec = (spec.get("template") or {}).get("spec")
        if isinstance(pod_spec, dict) and "restartPolicy" not in (spec.get("template") or {}).get("spec", {}):
            pod_spec["restartPolicy"] = "Never"


class CronJobStrategy(WorkloadStrategy):
    immutable_selector = False

    def default_spec(self, spec: dict[str, Any]) -> None:
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)

    def validate(self, obj: Obj) -> list[FieldError]:
        errs = super().validate(obj)
        if not (obj.get("spec") or {}).get("schedule"):
            errs.append(FieldError.required("spec.schedule", ""))
        return errs


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
