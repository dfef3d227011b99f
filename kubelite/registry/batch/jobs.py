"""Jobs: kube's SetDefaults_Job, the generated selector (the job's uid) and labels, validation, and
status.successful for field selectors."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy, template_labels
from kubelite.registry.registration import stored
from kubelite.registry.tables.batch import JOB_TABLE
from kubelite.registry.validation import workloads as rules

_INT32_MAX = 2**31 - 1


def _generate_job_selector(obj: Obj, spec: dict[str, Any]) -> None:
    """kube's generateSelector: the pods of a job carry its name and uid (under the legacy keys too), and
    the job selects its uid. Labels and selector terms the user set are kept."""
    meta = raw_meta if isinstance(raw_meta := obj.get("metadata"), dict) else {}
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
            labels = template_labels(spec)
            if isinstance(meta, dict) and not meta.get("labels") and labels is not None:
                meta["labels"] = dict(labels)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        default_job_spec(spec)
        meta = obj.get("metadata")
        labels = template_labels(spec)
        if isinstance(meta, dict) and not meta.get("labels") and labels is not None:
            meta["labels"] = dict(labels)

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_job(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_job_update(new, old)


REGISTRATION = stored("batch", "jobs", JobStrategy, table=JOB_TABLE)
