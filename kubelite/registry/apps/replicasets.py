"""ReplicaSets: a default of one replica, their validation, and status.replicas for field selectors."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.registration import stored
from kubelite.registry.tables.apps import REPLICA_SET_TABLE
from kubelite.registry.validation import workloads as rules


class ReplicaSetStrategy(WorkloadStrategy):
    selectable_fields = ("status.replicas",)

    def default_spec(self, obj: Obj, spec: dict[str, Any]) -> None:
        if spec.get("replicas") is None:
            spec["replicas"] = 1

    def validate(self, obj: Obj) -> list[FieldError]:
        return rules.validate_replica_set(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return rules.validate_replica_set(new) + rules.immutable_selector(new, old)


REGISTRATION = stored("apps", "replicasets", ReplicaSetStrategy, table=REPLICA_SET_TABLE)
