"""PersistentVolumes and PersistentVolumeClaims: kube's defaults (reclaim policy Retain, volume mode
Filesystem, phase Pending), their validation, and deletion answered with the object. Nodes share the
module for their quantities and validation, being the other storage-adjacent cluster kind kube rounds
resource lists for.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj, now, rfc3339
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.strategy import Strategy
from kubelite.registry.validation.cluster import validate_node, validate_node_update
from kubelite.registry.validation.persistentvolumes import (
    validate_claim,
    validate_claim_update,
    validate_volume,
    validate_volume_update,
)
from kubelite.registry.validation.quantities import decode_quantities


def default_claim_spec(spec: dict[str, Any]) -> None:
    """SetDefaults_PersistentVolumeClaimSpec (claims, claim templates of pods and stateful sets)."""
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"


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


class NodeStrategy(Strategy):
    tracks_generation = False
    selectable_fields = ("spec.unschedulable",)

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        status = obj.get("status")
        if isinstance(status, dict) and status.get("allocatable") is None and status.get("capacity") is not None:
            status["allocatable"] = dict(status["capacity"])

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_node(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_node_update(new, old)
