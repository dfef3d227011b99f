"""The annotations, phases and names the binder and the provisioner share (kube's storage helpers)."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj

#: on a claim: the binder has finished binding it (kube never takes it off again)
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
#: on either side: the binder, not the user, chose the other side of the binding
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
#: on a volume: the provisioner that made it (kube's annDynamicallyProvisioned)
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
#: on a claim: the provisioner the binder asks for, under the GA and the beta name
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
#: on a claim of a WaitForFirstConsumer class: the node the scheduler chose for its first pod
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
#: the class given by annotation, as claims and volumes older than spec.storageClassName say it
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"

#: kubelite's simulated provisioner, the default class's
PROVISIONER = "kubelite.io/hostpath"
DEFAULT_CLASS_NAME = "standard"
#: where the simulated provisioner says its volumes live on the node (kind's local-path-provisioner's place)
HOST_PATH_ROOT = "/var/local-path-provisioner"

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def annotations_of(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def spec(obj: Obj) -> dict[str, Any]:
    value = obj.get("spec")
    return value if isinstance(value, dict) else {}


def claim_class(claim: Obj) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    ann = annotations_of(claim)
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return spec(claim).get("storageClassName") or ""


def volume_class(volume: Obj) -> str:
    """GetPersistentVolumeClass, the same reading for a volume."""
    ann = annotations_of(volume)
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return spec(volume).get("storageClassName") or ""


def is_default_class(storage_class: Obj) -> bool:
    ann = annotations_of(storage_class)
    return ann.get(ANN_DEFAULT_CLASS) == "true" or ann.get(ANN_BETA_DEFAULT_CLASS) == "true"


def claim_key(claim: Obj) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def claim_ref_key(volume: Obj) -> str | None:
    ref = spec(volume).get("claimRef")
    if not isinstance(ref, dict) or not ref.get("name"):
        return None
    return f"{ref.get('namespace') or ''}/{ref['name']}"
