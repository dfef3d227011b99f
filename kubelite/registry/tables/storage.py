"""Tables of the storage kinds: persistent volumes, persistent volume claims (core/v1) and storage classes.

Capacities print as canonical quantities; volume modes, reclaim policies and phases fall back to the values v1
defaulting gives them (`Filesystem`, `Retain`, `Pending`), since kube prints defaulted objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, age, age_col, col, dig, items, mapping, name_col, name_of, text
from kubelite.registry.tables.quantity import canonical_quantity

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)

_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def access_modes(modes: list[Any]) -> str:
    """`GetAccessModesAsString`: the short names, always in the same order, each once."""
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _storage_class(obj: Obj) -> str:
    annotations = mapping(obj, "metadata", "annotations")
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_STORAGE_CLASS_ANNOTATION])
    return text(obj, "spec", "storageClassName")


def _volume_attributes_class(obj: Obj) -> str:
    value = dig(obj, "spec", "volumeAttributesClassName")
    return value if isinstance(value, str) else "<unset>"


def _phase(obj: Obj) -> str:
    if dig(obj, "metadata", "deletionTimestamp") is not None:
        return "Terminating"
    return text(obj, "status", "phase") or "Pending"


def _pv_row(obj: Obj, now: datetime) -> list[Any]:
    claim = ""
    if isinstance(dig(obj, "spec", "claimRef"), dict):
        claim = f"{text(obj, 'spec', 'claimRef', 'namespace')}/{text(obj, 'spec', 'claimRef', 'name')}"
    return [
        name_of(obj),
        canonical_quantity(mapping(obj, "spec", "capacity").get("storage", "0")),
        access_modes(items(obj, "spec", "accessModes")),
        text(obj, "spec", "persistentVolumeReclaimPolicy") or "Retain",
        _phase(obj),
        claim,
        _storage_class(obj),
        _volume_attributes_class(obj),
        text(obj, "status", "reason"),
        age(obj, now),
        text(obj, "spec", "volumeMode") or "Filesystem",
    ]


PV_TABLE = TableSpec(
    [
        name_col(),
        col("Capacity", "string", d.PV_CAPACITY),
        col("Access Modes", "string", d.PV_ACCESS_MODES),
        col("Reclaim Policy", "string", d.PV_RECLAIM_POLICY),
        col("Status", "string", d.PV_PHASE),
        col("Claim", "string", d.PV_CLAIM_REF),
        col("StorageClass", "string", "StorageClass of the pv"),
        col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
        col("Reason", "string", d.PV_REASON),
        age_col(),
        col("VolumeMode", "string", d.PV_VOLUME_MODE, 1),
    ],
    _pv_row,
)


def _pvc_row(obj: Obj, now: datetime) -> list[Any]:
    volume = text(obj, "spec", "volumeName")
    capacity = modes = ""
    if volume:
        # a claim shows what it got only once it is bound to a volume
        modes = access_modes(items(obj, "status", "accessModes"))
        capacity = canonical_quantity(mapping(obj, "status", "capacity").get("storage", "0"))
    return [
        name_of(obj),
        _phase(obj),
        volume,
        capacity,
        modes,
        _storage_class(obj),
        _volume_attributes_class(obj),
        age(obj, now),
        text(obj, "spec", "volumeMode") or "Filesystem",
    ]


PVC_TABLE = TableSpec(
    [
        name_col(),
        col("Status", "string", d.PVC_PHASE),
        col("Volume", "string", d.PVC_VOLUME_NAME),
        col("Capacity", "string", d.PVC_CAPACITY),
        col("Access Modes", "string", d.PVC_ACCESS_MODES),
        col("StorageClass", "string", "StorageClass of the pvc"),
        col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
        age_col(),
        col("VolumeMode", "string", d.PVC_VOLUME_MODE, 1),
    ],
    _pvc_row,
)


def _storage_class_row(obj: Obj, now: datetime) -> list[Any]:
    annotations = mapping(obj, "metadata", "annotations")
    name = name_of(obj)
    if any(annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS):
        name += " (default)"
    expansion = dig(obj, "allowVolumeExpansion")
    return [
        name,
        text(obj, "provisioner"),
        text(obj, "reclaimPolicy") or "Delete",
        text(obj, "volumeBindingMode") or "Immediate",
        expansion if isinstance(expansion, bool) else False,
        age(obj, now),
    ]


STORAGE_CLASS_TABLE = TableSpec(
    [
        name_col(),
        col("Provisioner", "string", d.STORAGE_CLASS_PROVISIONER),
        col("ReclaimPolicy", "string", d.STORAGE_CLASS_RECLAIM_POLICY),
        col("VolumeBindingMode", "string", d.STORAGE_CLASS_BINDING_MODE),
        col("AllowVolumeExpansion", "string", d.STORAGE_CLASS_EXPANSION),
        age_col(),
    ],
    _storage_class_row,
)
