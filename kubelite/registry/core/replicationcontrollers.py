"""ReplicationControllers: kube's SetDefaults_ReplicationController (selector and labels from the
template), validation, and status.replicas for field selectors."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy, template_labels
from kubelite.registry.registration import stored
from kubelite.registry.tables.core import RC_TABLE
from kubelite.registry.validation import workloads as rules


class ReplicationControllerStrategy(WorkloadStrategy):
    selectable_fields = ("status.replicas",)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        """SetDefaults_ReplicationController: selector and labels from the template's labels."""
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        labels = template_labels(spec)
        if labels is not None:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = obj.get("metadata")
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(labels)

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_replication_controller(obj)


REGISTRATION = stored("", "replicationcontrollers", ReplicationControllerStrategy, table=RC_TABLE)
