"""PersistentVolumeClaims: kube's defaults (volume mode Filesystem, phase Pending), validation, and
deletion answered with the object. `default_claim_spec` also serves pods' and stateful sets' claim templates."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.storage import PVC_TABLE
from kubelite.registry.validation.persistentvolumes import (
    validate_claim,
    validate_claim_update,
)
from kubelite.registry.validation.quantities import decode_quantities


def default_claim_spec(spec: dict[str, Any]) -> None:
    """SetDefaults_PersistentVolumeClaimSpec (claims, claim templates of pods and stateful sets)."""
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"


class PersistentVolumeClaimStrategy(Strategy):
    tracks_generation = False
    return_deleted_object = True

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {"phase": "Pending"}

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            default_claim_spec(spec)

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_claim(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_claim_update(new, old)


REGISTRATION = stored("", "persistentvolumeclaims", PersistentVolumeClaimStrategy, table=PVC_TABLE)
