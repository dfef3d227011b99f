"""DaemonSets: kube's SetDefaults_DaemonSet and validation."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.apps.workloads import WorkloadStrategy
from kubelite.registry.registration import stored
from kubelite.registry.tables.apps import DAEMON_SET_TABLE
from kubelite.registry.validation import workloads as rules

#: apps/v1 carries the internal spec.templateGeneration in this annotation (apps/v1 conversion)
TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _template_generation(obj: Obj) -> int:
    raw = ((obj.get("metadata") or {}).get("annotations") or {}).get(TEMPLATE_GENERATION)
    try:
        return int(raw) if raw is not None else 0
    except (TypeError, ValueError):
        return 0


def _set_template_generation(obj: Obj, generation: int) -> None:
    meta = obj.setdefault("metadata", {})
    meta["annotations"] = {**(meta.get("annotations") or {}), TEMPLATE_GENERATION: str(generation)}


def _template(obj: Obj) -> Any:
    spec = obj.get("spec")
    return spec.get("template") if isinstance(spec, dict) else None


class DaemonSetStrategy(WorkloadStrategy):
    def prepare_for_create(self, obj: Obj) -> None:
        """The template generation starts at 1 (the DaemonSet strategy's PrepareForCreate)."""
        super().prepare_for_create(obj)
        _set_template_generation(obj, max(_template_generation(obj), 1))

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        """A template change raises the template generation; nothing else moves it."""
        super().prepare_for_update(new, old)
        generation = _template_generation(old)
        if _template(new) != _template(old):
            generation += 1
        _set_template_generation(new, generation)

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
