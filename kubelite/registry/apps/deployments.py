"""Deployments: kube's SetDefaults_Deployment, its validation, generation on annotation changes, and a
status write that resets labels."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.registration import stored
from kubelite.registry.tables.apps import DEPLOYMENT_TABLE
from kubelite.registry.validation import workloads as rules


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


REGISTRATION = stored("apps", "deployments", DeploymentStrategy, table=DEPLOYMENT_TABLE)
