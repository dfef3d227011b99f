"""DaemonSets: kube's SetDefaults_DaemonSet and validation."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.registration import stored
from kubelite.registry.tables.apps import DAEMON_SET_TABLE
from kubelite.registry.validation import workloads as rules


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


REGISTRATION = stored("apps", "daemonsets", DaemonSetStrategy, table=DAEMON_SET_TABLE)
