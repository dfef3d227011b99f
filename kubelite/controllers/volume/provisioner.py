"""The simulated provisioner's decisions: which claims it provisions, the volume it makes, which volumes it
deletes (what sig-storage-lib-external-provisioner decides for a provisioner such as kind's local-path one).

A claim is provisioned once the binder has named this provisioner on it, while it has no volume; a claim of
a WaitForFirstConsumer class also waits for the scheduler's selected node. The volume is `pvc-<claim uid>`,
pre-bound to the claim (so the binder binds the two), sized as requested, with the class's reclaim policy and
mount options, and a hostPath under HOST_PATH_ROOT. A volume it made is deleted once Released with reclaim
policy Delete.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.volume.binder import claim_reference
from kubelite.controllers.volume.names import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    HOST_PATH_ROOT,
    PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    annotations_of,
    claim_class,
    claim_key,
    spec,
)


def volume_name(claim: Obj) -> str:
    return f"pvc-{(claim.get('metadata') or {}).get('uid', '')}"


def asks_us(claim: Obj, provisioner: str = PROVISIONER) -> bool:
    ann = annotations_of(claim)
    return provisioner in (ann.get(ANN_STORAGE_PROVISIONER), ann.get(ANN_BETA_STORAGE_PROVISIONER))


def should_provision(claim: Obj, storage_class: Obj | None, provisioner: str = PROVISIONER) -> bool:
    """shouldProvision: ours to make, not bound, not being deleted, and (WaitForFirstConsumer) placed."""
    meta = claim.get("metadata") or {}
    if not asks_us(claim, provisioner) or meta.get("deletionTimestamp"):
        return False
    if spec(claim).get("volumeName") or ANN_BIND_COMPLETED in annotations_of(claim):
        return False
    if storage_class is None or storage_class.get("provisioner") != provisioner:
        return False
    if storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER:
        return ANN_SELECTED_NODE in annotations_of(claim)
    return True


def provisioned_volume(claim: Obj, storage_class: Obj, provisioner: str = PROVISIONER) -> Obj:
    meta = claim.get("metadata") or {}
    claim_spec = spec(claim)
    name = volume_name(claim)
    requested = (claim_spec.get("resources") or {}).get("requests") or {}
    volume_spec: dict[str, Any] = {
        "capacity": {"storage": requested.get("storage")},
        "accessModes": list(claim_spec.get("accessModes") or []),
        "claimRef": claim_reference(claim),
        "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy") or "Delete",
        "storageClassName": claim_class(claim),
        "volumeMode": claim_spec.get("volumeMode") or "Filesystem",
        "hostPath": {
            "path": f"{HOST_PATH_ROOT}/{name}_{meta.get('namespace', '')}_{meta.get('name', '')}",
            "type": "DirectoryOrCreate",
        },
    }
    if storage_class.get("mountOptions"):
        volume_spec["mountOptions"] = list(storage_class["mountOptions"])
    node = annotations_of(claim).get(ANN_SELECTED_NODE)
    if node:
        # a node's local directory is reachable from that node only
        volume_spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
                ]
            }
        }
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {ANN_PROVISIONED_BY: provisioner}},
        "spec": volume_spec,
    }


def should_delete(volume: Obj, provisioner: str = PROVISIONER) -> bool:
    """shouldDelete: made by us, Released, reclaim policy Delete, not already going."""
    if annotations_of(volume).get(ANN_PROVISIONED_BY) != provisioner:
        return False
    if (volume.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return (volume.get("status") or {}).get("phase") == "Released" and (
        spec(volume).get("persistentVolumeReclaimPolicy") == "Delete"
    )


def provisioning_message(claim: Obj) -> str:
    return f'External provisioner is provisioning volume for claim "{claim_key(claim)}"'


def succeeded_message(claim: Obj) -> str:
    return f"Successfully provisioned volume {volume_name(claim)}"
