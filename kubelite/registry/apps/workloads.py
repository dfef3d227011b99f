"""Workloads with a pod template (deployments, replicasets, statefulsets, daemonsets, replication
controllers, jobs, cronjobs): kube's defaults for each kind and its template, the validation each kind's
strategy runs (in `registry.validation.workloads`), a Job's generated selector, and what the scale
subresource reads.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import SelectorError, label_selector_from_spec
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.persistentvolumes import default_claim_spec
from kubelite.registry.core.pods import default_pod_spec
from kubelite.registry.strategy import Strategy
from kubelite.registry.validation import workloads as rules
from kubelite.registry.validation.quantities import decode_quantities

_INT32_MAX = 2**31 - 1


def _template_labels(spec: dict[str, Any]) -> dict[str, Any] | None:
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

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_Deployment."""
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        strategy = spec.get("strategy")
        if not isinstance(strategy, dict):
            strategy = spec["strategy"] = {}
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if not isinstance(rolling, dict):
                rolling = strategy["rollingUpdate"] = {}
            if rolling.get("maxUnavailable") is None:
                rolling["maxUnavailable"] = "25%"
            if rolling.get("maxSurge") is None:
                rolling["maxSurge"] = "25%"
        if spec.get("revisionHistoryLimit") is None:
            spec["revisionHistoryLimit"] = 10
        if spec.get("progressDeadlineSeconds") is None:
            spec["progressDeadlineSeconds"] = 600

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_deployment(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_deployment(new) + rules.immutable_selector(new, old)


class ReplicaSetStrategy(WorkloadStrategy):
    selectable_fields = ("status.replicas",)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        if spec.get("replicas") is None:
            spec["replicas"] = 1

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_replica_set(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_replica_set(new) + rules.immutable_selector(new, old)


class StatefulSetStrategy(WorkloadStrategy):
    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_StatefulSet, and the claim defaults of its volume claim templates."""
        if not spec.get("podManagementPolicy"):
            spec["podManagementPolicy"] = "OrderedReady"
        update = spec.get("updateStrategy")
        if not isinstance(update, dict):
            update = spec["updateStrategy"] = {}
        if not update.get("type"):
            update["type"] = "RollingUpdate"
            if not isinstance(update.get("rollingUpdate"), dict):
                update["rollingUpdate"] = {}
        rolling = update.get("rollingUpdate")
        if update["type"] == "RollingUpdate" and isinstance(rolling, dict) and rolling.get("partition") is None:
            rolling["partition"] = 0
        retention = spec.get("persistentVolumeClaimRetentionPolicy")
        if not isinstance(retention, dict):
            retention = spec["persistentVolumeClaimRetentionPolicy"] = {}
        for key in ("whenDeleted", "whenScaled"):
            if not retention.get(key):
                retention[key] = "Retain"
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        if spec.get("revisionHistoryLimit") is None:
            spec["revisionHistoryLimit"] = 10
        for claim in spec.get("volumeClaimTemplates") if isinstance(spec.get("volumeClaimTemplates"), list) else []:
            if not isinstance(claim, dict):
                continue
            # the templates are whole PersistentVolumeClaims: kube writes their type and defaults
            claim.setdefault("apiVersion", "v1")
            claim.setdefault("kind", "PersistentVolumeClaim")
            if isinstance(claim.get("spec"), dict):
                default_claim_spec(claim["spec"])
            status = claim.get("status")
            if not isinstance(status, dict):
                status = claim["status"] = {}
            if not status.get("phase"):
                status["phase"] = "Pending"

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_stateful_set(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_stateful_set_update(new, old) + rules.immutable_selector(new, old)


class DaemonSetStrategy(WorkloadStrategy):
    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_DaemonSet."""
        update = spec.get("updateStrategy")
        if not isinstance(update, dict):
            update = spec["updateStrategy"] = {}
        if not update.get("type"):
            update["type"] = "RollingUpdate"
        if update["type"] == "RollingUpdate":
            rolling = update.get("rollingUpdate")
            if not isinstance(rolling, dict):
                rolling = update["rollingUpdate"] = {}
            if rolling.get("maxUnavailable") is None:
                rolling["maxUnavailable"] = 1
            if rolling.get("maxSurge") is None:
                rolling["maxSurge"] = 0
        if spec.get("revisionHistoryLimit") is None:
            spec["revisionHistoryLimit"] = 10

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_daemon_set(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_daemon_set(new) + rules.immutable_selector(new, old)


class ReplicationControllerStrategy(WorkloadStrategy):
    selectable_fields = ("status.replicas",)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_ReplicationController: selector and labels from the template's labels."""
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        labels = _template_labels(spec)
        if labels is not None:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = obj.get("metadata")
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(labels)

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_replication_controller(obj)


def _generate_job_selector(obj: Obj, spec: dict[str, Any]) -> None:
    """kube's generateSelector: the pods of a job carry its name and uid (under the legacy keys too), and
    the job selects its uid. Labels and selector terms the user set are kept."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    template = spec.get("template")
    if not isinstance(template, dict):
        return
    if not isinstance(template.get("metadata"), dict):
        template["metadata"] = {}
    labels = template["metadata"].get("labels")
    if not isinstance(labels, dict):
        labels = template["metadata"]["labels"] = {}
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


def default_job_spec(spec: dict[str, Any]) -> None:
    """The JobSpec part of SetDefaults_Job."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = _INT32_MAX if spec.get("backoffLimitPerIndex") is not None else 6
    if not spec.get("completionMode"):
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    failure_policy = spec.get("podFailurePolicy")
    if isinstance(failure_policy, dict):
        for rule in failure_policy.get("rules") or []:
            for pattern in (rule.get("onPodConditions") or []) if isinstance(rule, dict) else []:
                if isinstance(pattern, dict) and not pattern.get("status"):
                    pattern["status"] = "True"
    if not spec.get("podReplacementPolicy"):
        spec["podReplacementPolicy"] = "Failed" if isinstance(failure_policy, dict) else "TerminatingOrFailed"


class JobStrategy(WorkloadStrategy):
    selectable_fields = ("status.successful",)

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        spec = obj.get("spec")
        if isinstance(spec, dict) and not spec.get("manualSelector"):
            _generate_job_selector(obj, spec)
            # kube defaults a job's labels from its template's on every read, so the generated ones show
            meta = obj.get("metadata")
            labels = _template_labels(spec)
            if isinstance(meta, dict) and not meta.get("labels") and labels is not None:
                meta["labels"] = dict(labels)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        default_job_spec(spec)
        meta = obj.get("metadata")
        labels = _template_labels(spec)
        if isinstance(meta, dict) and not meta.get("labels") and labels is not None:
            meta["labels"] = dict(labels)

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_job(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_job_update(new, old)


class CronJobStrategy(WorkloadStrategy):
    def pod_spec(self, spec: dict[str, Any]) -> dict[str, Any] | None:
        job_template = spec.get("jobTemplate")
        job_spec = job_template.get("spec") if isinstance(job_template, dict) else None
        return super().pod_spec(job_spec) if isinstance(job_spec, dict) else None

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_CronJob (the job template gets only its pod template's defaults)."""
        if not spec.get("concurrencyPolicy"):
            spec["concurrencyPolicy"] = "Allow"
        if spec.get("suspend") is None:
            spec["suspend"] = False
        if spec.get("successfulJobsHistoryLimit") is None:
            spec["successfulJobsHistoryLimit"] = 3
        if spec.get("failedJobsHistoryLimit") is None:
            spec["failedJobsHistoryLimit"] = 1

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_cron_job(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_cron_job_update(new, old)


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
