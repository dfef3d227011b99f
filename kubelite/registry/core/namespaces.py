"""Namespaces: the `kubernetes` finalizer, Active/Terminating phase, the metadata.name label."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.strategy import StatusStrategy, Strategy
from kubelite.registry.validation.cluster import validate_namespace

NAME_LABEL = "kubernetes.io/metadata.name"
FINALIZER = "kubernetes"


class NamespaceStrategy(Strategy):
    tracks_generation = False
    return_deleted_object = True
    selectable_fields = ("status.phase",)

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {"phase": "Active"}

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        finalizers = list(spec.get("finalizers") or [])
        if FINALIZER not in finalizers:
            finalizers.append(FINALIZER)
        spec["finalizers"] = finalizers

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        new["spec"] = old.get("spec", {})  # spec.finalizers change only through /finalize

    def default(self, obj: Obj) -> None:
        meta = obj.setdefault("metadata", {})
        labels = meta.get("labels") or {}
        labels[NAME_LABEL] = meta.get("name", "")
        meta["labels"] = labels

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_namespace(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []  # kube checks only the metadata of an updated namespace

    def grace_period(self, obj: Obj, requested: int | None) -> int:
        return 0

    def fields(self, obj: Obj) -> dict[str, str]:
        fields = super().fields(obj)
        fields["metadata.namespace"] = ""
        return fields


class NamespaceFinalizeStrategy(StatusStrategy):
    """PUT /namespaces/{name}/finalize: only spec.finalizers changes."""

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        finalizers = (new.get("spec") or {}).get("finalizers") or []
        rv = (new.get("metadata") or {}).get("resourceVersion")
        new.clear()
        new.update(old)
        new["spec"] = {**(old.get("spec") or {}), "finalizers": finalizers}
        if not finalizers:
            new["spec"].pop("finalizers")
        new["metadata"] = dict(old["metadata"])
        if rv:
            new["metadata"]["resourceVersion"] = rv


def mark_terminating(obj: Obj) -> None:
    obj.setdefault("status", {})["phase"] = "Terminating"
