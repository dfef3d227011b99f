"""CronJobs: kube's SetDefaults_CronJob (the job template gets only its pod template's defaults) and
validation."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.registration import stored
from kubelite.registry.tables.batch import CRON_JOB_TABLE
from kubelite.registry.validation import workloads as rules


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


REGISTRATION = stored("batch", "cronjobs", CronJobStrategy, table=CRON_JOB_TABLE)
