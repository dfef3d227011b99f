"""PersistentVolumes: kube's defaults (reclaim policy Retain, volume mode Filesystem, phase Pending), their
validation, and deletion answered with the object."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj, now, rfc3339
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.persistentvolumeclaims import default_claim_spec
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.storage import PV_TABLE
from kubelite.registry.validation.persistentvolumes import (
    validate_volume,
    validate_volume_update,
)
from kubelite.registry.validation.quantities import decode_quantities


class PersistentVolumeStrategy(Strategy):
    tracks_generation = False
    return_deleted_object = True

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        # kube records when a volume entered its first phase
        return {"phase": "Pending", "lastPhaseTransitionTime": rfc3339(now())}

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            if not spec.get("persistentVolumeReclaimPolicy"):
                spec["persistentVolumeReclaimPolicy"] = "Retain"
            default_claim_spec(spec)
            host_path = spec.get("hostPath")
            if isinstance(host_path, dict) and host_path.get("type") is None:
                host_path["type"] = ""

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_volume(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_volume_update(new, old)


REGISTRATION = stored("", "persistentvolumes", PersistentVolumeStrategy, table=PV_TABLE)
