"""The simulated provisioner's decisions and the DefaultStorageClass admission plugin's choice."""

from __future__ import annotations

from typing import Any

from kubelite.admission.plugins.default_storage_class import default_class
from kubelite.controllers.volume.provisioner import provisioned_volume, should_delete, should_provision

STD = {"metadata": {"name": "std"}, "provisioner": "kubelite.io/hostpath", "reclaimPolicy": "Retain"}
WFFC = {**STD, "metadata": {"name": "wffc"}, "volumeBindingMode": "WaitForFirstConsumer"}
ASKED = {
    "volume.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
    "volume.beta.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
}


def claim(cls: str = "std", ann: dict[str, str] | None = None, **spec: Any) -> Any:
    return {
        "metadata": {"name": "data", "namespace": "ns", "uid": "u1", "resourceVersion": "3", "annotations": ann or {}},
        "spec": {
            "storageClassName": cls,
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "3Gi"}},
            **spec,
        },
    }


def test_what_is_provisioned() -> None:
    assert should_provision(claim(ann=ASKED), STD)
    assert not should_provision(claim(), STD)  # the binder has not asked yet
    assert not should_provision(claim(ann=ASKED, volumeName="pv1"), STD)
    assert not should_provision(claim(ann=ASKED), {**STD, "provisioner": "other"})
    assert not should_provision(claim("wffc", ann=ASKED), WFFC)
    assert should_provision(claim("wffc", ann={**ASKED, "volume.kubernetes.io/selected-node": "n0"}), WFFC)


def test_the_volume_made_for_a_claim() -> None:
    made = provisioned_volume(claim(ann={**ASKED, "volume.kubernetes.io/selected-node": "n0"}), STD)
    assert made["metadata"] == {
        "name": "pvc-u1",
        "annotations": {"pv.kubernetes.io/provisioned-by": "kubelite.io/hostpath"},
    }
    spec = made["spec"]
    assert spec["claimRef"] == {
        "kind": "PersistentVolumeClaim", "namespace": "ns", "name": "data", "uid": "u1", "apiVersion": "v1",
        "resourceVersion": "3",
    }  # fmt: skip
    assert (spec["capacity"], spec["persistentVolumeReclaimPolicy"], spec["storageClassName"]) == (
        {"storage": "3Gi"},
        "Retain",
        "std",
    )
    assert spec["hostPath"] == {"path": "/var/local-path-provisioner/pvc-u1_ns_data", "type": "DirectoryOrCreate"}
    terms = spec["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n0"]}]}]


def test_what_is_deleted() -> None:
    ours = {
        "metadata": {"name": "pvc-u1", "annotations": {"pv.kubernetes.io/provisioned-by": "kubelite.io/hostpath"}},
        "spec": {"persistentVolumeReclaimPolicy": "Delete"},
        "status": {"phase": "Released"},
    }
    assert should_delete(ours)
    assert not should_delete({**ours, "status": {"phase": "Bound"}})
    assert not should_delete({**ours, "spec": {"persistentVolumeReclaimPolicy": "Retain"}})
    assert not should_delete({**ours, "metadata": {"name": "pv1"}})


def test_the_default_class_is_the_newest_marked_one() -> None:
    def cls(name: str, created: str, default: str | None = "true", beta: bool = False) -> Any:
        key = f"storageclass.{'beta.' if beta else ''}kubernetes.io/is-default-class"
        ann = {key: default} if default is not None else {}
        return {"metadata": {"name": name, "creationTimestamp": created, "annotations": ann}}

    assert default_class([cls("a", "2026-01-01T00:00:00Z", None)]) is None
    assert default_class([cls("a", "2026-01-01T00:00:00Z", "false")]) is None
    old, new = "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"
    found = default_class([cls("old", old), cls("new-b", new), cls("new-a", new, beta=True)])
    assert found is not None and found["metadata"]["name"] == "new-a"
