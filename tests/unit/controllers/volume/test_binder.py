"""The binder's decisions: matching, binding both sides, the claims it cannot serve, and what becomes of a
volume whose claim goes."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.controllers.volume.binder import (
    MSG_MISBOUND,
    MSG_NO_CLASS,
    MSG_WAIT_FOR_FIRST_CONSUMER,
    BindingError,
    Event,
    external_provisioning_message,
    no_deleter_message,
    sync_claim,
    sync_volume,
)
from kubelite.controllers.volume.matching import find_best_match

NOW = "2026-12-02T12:00:00Z"
EARLIER = "2026-12-02T11:00:00Z"


Ann = dict[str, str] | None


def claim(name: str = "c", size: str = "1Gi", *, uid: str = "u1", ann: Ann = None, **spec: Any) -> Any:
    return {
        "metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": "7", "annotations": ann or {}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec},
        "status": {"phase": "Pending"},
    }


def volume(name: str, size: str = "1Gi", *, phase: str = "Available", ann: Ann = None, **spec: Any) -> Any:
    return {
        "metadata": {"name": name, "annotations": ann or {}, "labels": {"disk": name}},
        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], **spec},
        "status": {"phase": phase, "lastPhaseTransitionTime": EARLIER},
    }


def by_name(*volumes: Any) -> dict[str, Any]:
    return {v["metadata"]["name"]: v for v in volumes}


def ref(name: str = "c", uid: str | None = "u1") -> dict[str, Any]:
    found: dict[str, Any] = {"kind": "PersistentVolumeClaim", "namespace": "ns", "name": name, "apiVersion": "v1"}
    if uid:
        found["uid"] = uid
    return found


def test_the_smallest_fitting_volume_of_the_class_with_the_fewest_access_modes_wins() -> None:
    candidates = [
        volume("big", "10Gi"),
        volume("small", "2Gi"),
        volume("tiny", "500Mi"),
        volume("rwx", "2Gi", accessModes=["ReadWriteOnce", "ReadWriteMany"]),
        volume("other-class", "1Gi", storageClassName="fast"),
        volume("pending", "1Gi", phase="Pending"),
        volume("taken", "1Gi", claimRef=ref("someone", "u9")),
        volume("block", "1Gi", volumeMode="Block"),
    ]
    assert find_best_match(claim(size="1500Mi"), candidates)["metadata"]["name"] == "small"
    assert find_best_match(claim(size="20Gi"), candidates) is None
    assert find_best_match(claim(size="1Gi", storageClassName="fast"), candidates)["metadata"]["name"] == "other-class"
    many = claim(size="1Gi", accessModes=["ReadWriteMany"])
    assert find_best_match(many, candidates)["metadata"]["name"] == "rwx"


def test_a_selector_limits_the_volumes_and_a_pre_bound_volume_is_taken_first() -> None:
    candidates = [volume("a", "5Gi"), volume("b", "5Gi")]
    assert find_best_match(claim(selector={"matchLabels": {"disk": "b"}}), candidates)["metadata"]["name"] == "b"
    pre_bound = volume("mine", "5Gi", phase="Pending", storageClassName="other", claimRef=ref(uid=None))
    assert find_best_match(claim(), [*candidates, pre_bound])["metadata"]["name"] == "mine"
    # waiting for a first consumer, only a pre-bound volume is taken
    assert find_best_match(claim(), candidates, delay_binding=True) is None
    assert find_best_match(claim(), [pre_bound], delay_binding=True)["metadata"]["name"] == "mine"


def test_binding_writes_both_sides_as_kube_does() -> None:
    plan = sync_claim(claim(), by_name(volume("pv1")), {}, NOW)
    assert plan.volume is not None and plan.claim is not None
    assert plan.volume["spec"]["claimRef"] == {**ref(), "resourceVersion": "7"}
    assert plan.volume["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert plan.volume_status == {"phase": "Bound", "lastPhaseTransitionTime": NOW}
    assert plan.claim["spec"]["volumeName"] == "pv1"
    assert plan.claim["metadata"]["annotations"] == {
        "pv.kubernetes.io/bound-by-controller": "yes",
        "pv.kubernetes.io/bind-completed": "yes",
    }
    assert plan.claim_status == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}}
    assert plan.events == []


def test_a_volume_pre_bound_by_its_maker_is_not_marked_bound_by_controller() -> None:
    provisioned = volume("pvc-u1", phase="Pending", claimRef=ref(), ann={"pv.kubernetes.io/provisioned-by": "x"})
    plan = sync_claim(claim(), by_name(provisioned), {}, NOW)
    assert plan.volume is None  # its claimRef is complete already
    assert plan.volume_status == {"phase": "Bound", "lastPhaseTransitionTime": NOW}
    assert plan.claim is not None and plan.claim["spec"]["volumeName"] == "pvc-u1"


def test_a_claim_naming_its_volume_is_not_bound_by_controller() -> None:
    plan = sync_claim(claim(volumeName="pv1"), by_name(volume("pv1")), {}, NOW)
    assert plan.claim is not None
    assert plan.claim["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}
    waiting = sync_claim(claim(volumeName="absent"), {}, {}, NOW)
    assert (waiting.pending, waiting.claim_status, waiting.events) == (True, None, [])
    held = sync_claim(claim(volumeName="pv1"), by_name(volume("pv1", claimRef=ref("other", "u2"))), {}, NOW)
    assert (held.pending, held.volume, held.claim) == (True, None, None)
    impossible = claim(volumeName="pv1", ann={"pv.kubernetes.io/bound-by-controller": "yes"})
    with pytest.raises(BindingError):
        sync_claim(impossible, by_name(volume("pv1", claimRef=ref("other", "u2"))), {}, NOW)


def test_claims_without_a_volume() -> None:
    no_class = sync_claim(claim(storageClassName=""), {}, {}, NOW)
    assert no_class.events == [Event("claim", "Normal", "FailedBinding", MSG_NO_CLASS)]
    assert no_class.pending

    classes = {
        "std": {"metadata": {"name": "std"}, "provisioner": "kubelite.io/hostpath"},
        "wffc": {"metadata": {"name": "wffc"}, "provisioner": "p", "volumeBindingMode": "WaitForFirstConsumer"},
        "intree": {"metadata": {"name": "intree"}, "provisioner": "kubernetes.io/no-provisioner"},
    }
    provisioned = sync_claim(claim(storageClassName="std"), {}, classes, NOW)
    assert provisioned.claim is not None
    assert provisioned.claim["metadata"]["annotations"] == {
        "volume.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
        "volume.beta.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
    }
    assert provisioned.events == [
        Event("claim", "Normal", "ExternalProvisioning", external_provisioning_message("kubelite.io/hostpath"))
    ]
    again = sync_claim(provisioned.claim, {}, classes, NOW)
    assert again.claim is None and len(again.events) == 1  # kube repeats the event, not the write

    waits = sync_claim(claim(storageClassName="wffc"), by_name(volume("pv1", storageClassName="wffc")), classes, NOW)
    assert waits.events == [Event("claim", "Normal", "WaitForFirstConsumer", MSG_WAIT_FOR_FIRST_CONSUMER)]
    assert waits.volume is None
    placed = claim(storageClassName="wffc", ann={"volume.kubernetes.io/selected-node": "n0"})
    assert sync_claim(placed, {}, classes, NOW).events[0].reason == "ExternalProvisioning"

    assert sync_claim(claim(storageClassName="gold"), {}, classes, NOW).events == [
        Event("claim", "Warning", "ProvisioningFailed", 'storageclass.storage.k8s.io "gold" not found')
    ]
    assert sync_claim(claim(storageClassName="intree"), {}, classes, NOW).events == [
        Event("claim", "Warning", "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner")
    ]


def test_bound_claims_that_lose_their_volume() -> None:
    bound = claim(volumeName="pv1", ann={"pv.kubernetes.io/bind-completed": "yes"})
    bound["status"] = {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}
    lost = sync_claim(bound, {}, {}, NOW)
    assert lost.claim_status == {"phase": "Lost"}
    assert [e.reason for e in lost.events] == ["ClaimLost"]
    assert sync_claim({**bound, "status": {"phase": "Lost"}}, {}, {}, NOW).events == []
    misbound = sync_claim(bound, by_name(volume("pv1", phase="Bound", claimRef=ref("other", "u2"))), {}, NOW)
    assert misbound.events == [Event("claim", "Warning", "ClaimMisbound", MSG_MISBOUND)]


def test_volume_phases() -> None:
    assert sync_volume(volume("pv1", phase="Pending"), None, NOW).volume_status == {
        "phase": "Available",
        "lastPhaseTransitionTime": NOW,
    }
    assert sync_volume(volume("pv1"), None, NOW).volume_status is None
    half = sync_volume(volume("pv1", phase="Bound", claimRef=ref()), claim(), NOW)
    assert half.enqueue_claims == ["ns/c"] and half.volume_status is None
    done = claim(volumeName="pv1")
    assert sync_volume(volume("pv1", phase="Available", claimRef=ref()), done, NOW).volume_status == {
        "phase": "Bound",
        "lastPhaseTransitionTime": NOW,
    }


def test_a_volume_whose_claim_went_follows_its_reclaim_policy() -> None:
    retained = volume("pv1", phase="Bound", claimRef=ref(), persistentVolumeReclaimPolicy="Retain")
    plan = sync_volume(retained, None, NOW)
    assert plan.volume_status == {"phase": "Released", "lastPhaseTransitionTime": NOW}
    # a new claim of the old one's name is not the one the volume held
    assert sync_volume(retained, claim(uid="u2"), NOW).volume_status == plan.volume_status

    provisioned = volume(
        "pvc-u1", phase="Released", claimRef=ref(), persistentVolumeReclaimPolicy="Delete",
        ann={"pv.kubernetes.io/provisioned-by": "kubelite.io/hostpath"},
    )  # fmt: skip
    assert sync_volume(provisioned, None, NOW).volume_status is None  # its provisioner deletes it

    hand_made = volume("pv1", phase="Bound", claimRef=ref(), persistentVolumeReclaimPolicy="Delete")
    failed = sync_volume(hand_made, None, NOW)
    assert failed.volume_status == {
        "phase": "Failed",
        "lastPhaseTransitionTime": NOW,
        "message": no_deleter_message("pv1"),
    }
    assert failed.events == [Event("volume", "Warning", "VolumeFailedDelete", no_deleter_message("pv1"))]
    assert sync_volume({**hand_made, "status": failed.volume_status}, None, NOW).events == []


def test_a_volume_bound_by_the_controller_to_a_claim_bound_elsewhere_is_unbound() -> None:
    elsewhere = claim(volumeName="pv2")
    ours = volume("pv1", phase="Bound", claimRef=ref(), ann={"pv.kubernetes.io/bound-by-controller": "yes"})
    plan = sync_volume(ours, elsewhere, NOW)
    assert plan.volume is not None
    assert "claimRef" not in plan.volume["spec"] and "annotations" not in plan.volume["metadata"]
    assert plan.volume_status == {"phase": "Available", "lastPhaseTransitionTime": NOW}
    users = volume("pv1", phase="Bound", claimRef=ref())
    kept = sync_volume(users, elsewhere, NOW)
    assert kept.volume is not None and kept.volume["spec"]["claimRef"] == ref(uid=None)
