"""StatefulSets: kube's SetDefaults_StatefulSet (with the defaults of its claim templates) and validation."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.core.persistentvolumeclaims import default_claim_spec
from kubelite.registry.registration import stored
from kubelite.registry.tables.apps import STATEFUL_SET_TABLE
from kubelite.registry.validation import workloads as rules


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
        for claim in raw_claims if isinstance(raw_claims := spec.get("volumeClaimTemplates"), list) else []:
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


REGISTRATION = stored("apps", "statefulsets", StatefulSetStrategy, table=STATEFUL_SET_TABLE)
