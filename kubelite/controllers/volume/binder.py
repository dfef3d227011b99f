"""The binder's decisions (kube's pkg/controller/volume/persistentvolume, syncClaim and syncVolume).

Each sync returns a `Plan`: the volume and claim as they should be written (metadata and spec, then
status, in kube's order: the volume's claimRef, the volume's phase, the claim's volumeName and annotations,
the claim's phase), the events to record, and the keys to sync next. The loop applies it over HTTP; a write
that loses a race is retried on a fresh read, which is why every decision reads only what it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.volume.matching import find_best_match, is_bound_to
from kubelite.controllers.volume.names import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    annotations_of,
    claim_class,
    claim_key,
    spec,
)

NORMAL, WARNING = "Normal", "Warning"

MSG_NO_CLASS = "no persistent volumes available for this claim and no storage class is set"
MSG_WAIT_FOR_FIRST_CONSUMER = "waiting for first consumer to be created before binding"
MSG_LOST_REFERENCE = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
MSG_LOST_VOLUME = "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
MSG_MISBOUND = "Two claims are bound to the same volume, this one is bound incorrectly"
MSG_NO_RECYCLER = "No recycler plugin found for the volume!"


def external_provisioning_message(provisioner: str) -> str:
    return (
        f"Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by "
        "the system administrator. If volume creation is delayed, please verify that the provisioner is running "
        "and correctly registered."
    )


def no_deleter_message(volume_name: str) -> str:
    return f'error getting deleter volume plugin for volume "{volume_name}": no deletable volume plugin matched'


@dataclass
class Event:
    #: "claim" or "volume": which side of the binding the event is about
    about: str
    type: str
    reason: str
    message: str


@dataclass
class Plan:
    #: the volume with its new claimRef or annotations (None: its metadata and spec stay)
    volume: Obj | None = None
    #: the volume a claim's sync binds (the one `volume_status` is for when `volume` is None)
    bound_volume: Obj | None = None
    #: the volume's new status (None: it stays)
    volume_status: dict[str, Any] | None = None
    #: the claim with its new volumeName or annotations
    claim: Obj | None = None
    claim_status: dict[str, Any] | None = None
    events: list[Event] = field(default_factory=list)
    #: claim keys (`namespace/name`) to sync soon, as kube's syncVolume hands a claim to the claim queue
    enqueue_claims: list[str] = field(default_factory=list)
    #: the claim is still waiting for a volume: look again later (kube's periodic resync)
    pending: bool = False

    def event(self, about: str, event_type: str, reason: str, message: str) -> None:
        self.events.append(Event(about, event_type, reason, message))


# -- status ---------------------------------------------------------------------------------------------


def claim_status(claim: Obj, phase: str, volume: Obj | None) -> dict[str, Any] | None:
    """updateClaimStatus: the phase, and the volume's access modes and capacity (or none); None if unchanged."""
    current = dict(claim.get("status") or {})
    wanted = dict(current)
    wanted["phase"] = phase
    if volume is None:
        wanted.pop("accessModes", None)
        wanted.pop("capacity", None)
    else:
        wanted["accessModes"] = list(spec(volume).get("accessModes") or [])
        wanted["capacity"] = dict(spec(volume).get("capacity") or {})
    return None if wanted == current else wanted


def volume_status(volume: Obj, phase: str, message: str, now: str) -> dict[str, Any] | None:
    """updateVolumePhase: the phase and message, with the time of a phase change; None if unchanged."""
    current = dict(volume.get("status") or {})
    if current.get("phase") == phase and (current.get("message") or "") == message:
        return None
    wanted = dict(current)
    if current.get("phase") != phase:
        wanted["lastPhaseTransitionTime"] = now
    wanted["phase"] = phase
    if message:
        wanted["message"] = message
    else:
        wanted.pop("message", None)
    return wanted


def _with_annotation(obj: Obj, key: str, value: str) -> None:
    obj.setdefault("metadata", {}).setdefault("annotations", {})[key] = value


def claim_reference(claim: Obj) -> dict[str, Any]:
    """GetReference of a claim, as kube writes it into a volume's claimRef."""
    meta = claim.get("metadata") or {}
    return {
        "kind": "PersistentVolumeClaim",
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": "v1",
        "resourceVersion": meta.get("resourceVersion", ""),
    }


# -- binding --------------------------------------------------------------------------------------------


def bind(volume: Obj, claim: Obj, now: str) -> Plan:
    """Both sides bound to each other and Bound (bindVolumeToClaim, then bindClaimToVolume)."""
    plan = Plan(bound_volume=volume)
    ref = spec(volume).get("claimRef")
    meta = claim.get("metadata") or {}
    exact = (
        isinstance(ref, dict)
        and ref.get("name") == meta.get("name")
        and ref.get("namespace") == meta.get("namespace")
        and ref.get("uid") == meta.get("uid")
    )
    bound_volume = volume
    if not exact:
        bound_volume = copy.deepcopy(volume)
        bound_volume.setdefault("spec", {})["claimRef"] = claim_reference(claim)
        # a volume the user pre-bound to this claim was not chosen by the controller
        if not is_bound_to(volume, claim):
            _with_annotation(bound_volume, ANN_BOUND_BY_CONTROLLER, "yes")
        plan.volume = bound_volume
    plan.volume_status = volume_status(bound_volume, "Bound", "", now)

    name = (volume.get("metadata") or {}).get("name", "")
    bound_claim = copy.deepcopy(claim)
    dirty = False
    if spec(claim).get("volumeName") != name:
        bound_claim.setdefault("spec", {})["volumeName"] = name
        if ANN_BOUND_BY_CONTROLLER not in annotations_of(claim):
            _with_annotation(bound_claim, ANN_BOUND_BY_CONTROLLER, "yes")
        dirty = True
    if ANN_BIND_COMPLETED not in annotations_of(claim):
        _with_annotation(bound_claim, ANN_BIND_COMPLETED, "yes")
        dirty = True
    if dirty:
        plan.claim = bound_claim
    plan.claim_status = claim_status(claim, "Bound", bound_volume)
    return plan


def unbind_volume(volume: Obj, now: str) -> Plan:
    """unbindVolume: a binding the controller made is undone; a user's pre-binding loses only its uid."""
    plan = Plan()
    unbound = copy.deepcopy(volume)
    volume_spec = unbound.setdefault("spec", {})
    if ANN_BOUND_BY_CONTROLLER in annotations_of(volume):
        volume_spec.pop("claimRef", None)
        unbound["metadata"]["annotations"].pop(ANN_BOUND_BY_CONTROLLER, None)
        if not unbound["metadata"]["annotations"]:
            del unbound["metadata"]["annotations"]
    else:
        volume_spec["claimRef"] = {key: value for key, value in volume_spec["claimRef"].items() if key != "uid"}
    plan.volume = unbound
    plan.volume_status = volume_status(unbound, "Available", "", now)
    return plan


# -- claims ---------------------------------------------------------------------------------------------


def is_delay_binding(claim: Obj, classes: Mapping[str, Obj]) -> bool:
    """IsDelayBindingMode: the claim's class binds at its first consumer (a class not found does not)."""
    storage_class = classes.get(claim_class(claim))
    return storage_class is not None and storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER


def sync_claim(claim: Obj, volumes: Mapping[str, Obj], classes: Mapping[str, Obj], now: str) -> Plan:
    if ANN_BIND_COMPLETED not in annotations_of(claim):
        return _sync_unbound_claim(claim, volumes, classes, now)
    return _sync_bound_claim(claim, volumes, now)


def _sync_unbound_claim(claim: Obj, volumes: Mapping[str, Obj], classes: Mapping[str, Obj], now: str) -> Plan:
    wanted = spec(claim).get("volumeName") or ""
    if not wanted:
        delay = is_delay_binding(claim, classes)
        volume = find_best_match(claim, volumes.values(), delay_binding=delay)
        if volume is not None:
            return bind(volume, claim, now)
        plan = Plan(pending=True)
        if delay and ANN_SELECTED_NODE not in annotations_of(claim):
            plan.event("claim", NORMAL, "WaitForFirstConsumer", MSG_WAIT_FOR_FIRST_CONSUMER)
        elif claim_class(claim):
            return _provision(claim, classes)
        else:
            plan.event("claim", NORMAL, "FailedBinding", MSG_NO_CLASS)
        plan.claim_status = claim_status(claim, "Pending", None)
        return plan

    volume = volumes.get(wanted)
    if volume is None or spec(volume).get("claimRef") is None or is_bound_to(volume, claim):
        # a volume asked for by name: taken if free or ours, waited for if not there yet
        if volume is None:
            return Plan(pending=True, claim_status=claim_status(claim, "Pending", None))
        return bind(volume, claim, now)
    if ANN_BOUND_BY_CONTROLLER not in annotations_of(claim):
        # the user asked for a volume someone else holds: wait for it
        return Plan(pending=True, claim_status=claim_status(claim, "Pending", None))
    raise BindingError(
        f'Invalid binding of claim "{claim_key(claim)}" to volume "{wanted}": '
        f'volume already claimed by "{_ref_key(volume)}"'
    )


def _provision(claim: Obj, classes: Mapping[str, Obj]) -> Plan:
    """provisionClaim for an external provisioner: the claim is annotated with the provisioner to act."""
    plan = Plan(pending=True)
    name = claim_class(claim)
    storage_class = classes.get(name)
    if storage_class is None:
        plan.event("claim", WARNING, "ProvisioningFailed", f'storageclass.storage.k8s.io "{name}" not found')
        return plan
    provisioner = str(storage_class.get("provisioner") or "")
    if provisioner.startswith("kubernetes.io/"):
        # kube's in-tree names: kubelite has none of their plugins
        plan.event("claim", WARNING, "ProvisioningFailed", f"no volume plugin matched name: {provisioner}")
        return plan
    ann = annotations_of(claim)
    if ann.get(ANN_STORAGE_PROVISIONER) != provisioner or ann.get(ANN_BETA_STORAGE_PROVISIONER) != provisioner:
        annotated = copy.deepcopy(claim)
        _with_annotation(annotated, ANN_STORAGE_PROVISIONER, provisioner)
        _with_annotation(annotated, ANN_BETA_STORAGE_PROVISIONER, provisioner)
        plan.claim = annotated
    plan.event("claim", NORMAL, "ExternalProvisioning", external_provisioning_message(provisioner))
    return plan


def _sync_bound_claim(claim: Obj, volumes: Mapping[str, Obj], now: str) -> Plan:
    wanted = spec(claim).get("volumeName") or ""
    if not wanted:
        return _lost(claim, "ClaimLost", MSG_LOST_REFERENCE)
    volume = volumes.get(wanted)
    if volume is None:
        return _lost(claim, "ClaimLost", MSG_LOST_VOLUME)
    ref = spec(volume).get("claimRef")
    if ref is None or (isinstance(ref, dict) and ref.get("uid") == (claim.get("metadata") or {}).get("uid")):
        # unbound volume (or an informer that has not seen our write yet), or all is well: bind() finishes
        return bind(volume, claim, now)
    return _lost(claim, "ClaimMisbound", MSG_MISBOUND)


def _lost(claim: Obj, reason: str, message: str) -> Plan:
    """updateClaimStatusWithEvent: Lost, with its event only when the phase changes."""
    plan = Plan()
    if (claim.get("status") or {}).get("phase") != "Lost":
        plan.claim_status = claim_status(claim, "Lost", None)
        plan.event("claim", WARNING, reason, message)
    return plan


class BindingError(Exception):
    """A binding kube calls impossible (should never happen): retried, and logged, by the loop."""


def _ref_key(volume: Obj) -> str:
    ref = spec(volume).get("claimRef") or {}
    return f"{ref.get('namespace', '')}/{ref.get('name', '')}"


# -- volumes --------------------------------------------------------------------------------------------


def sync_volume(volume: Obj, claim: Obj | None, now: str) -> Plan:
    """syncVolume; `claim` is the claim of the volume's claimRef by namespace and name, if any."""
    ref = spec(volume).get("claimRef")
    if not isinstance(ref, dict):
        return Plan(volume_status=volume_status(volume, "Available", "", now))
    if not ref.get("uid"):
        # pre-bound to a claim that has not bound yet: the claim's sync does it
        return Plan(volume_status=volume_status(volume, "Available", "", now))
    if claim is not None and (claim.get("metadata") or {}).get("uid") != ref.get("uid"):
        claim = None  # the claim was deleted and another of its name made
    phase = (volume.get("status") or {}).get("phase")
    if claim is None:
        return _reclaim(volume, now)
    volume_name = (volume.get("metadata") or {}).get("name", "")
    claimed = spec(claim).get("volumeName") or ""
    if not claimed:
        # the binding is half done (or was undone by the user): the claim's sync finishes it
        return Plan(enqueue_claims=[claim_key(claim)])
    if claimed == volume_name:
        return Plan(volume_status=volume_status(volume, "Bound", "", now))
    if ANN_PROVISIONED_BY in annotations_of(volume) and spec(volume).get("persistentVolumeReclaimPolicy") == "Delete":
        # provisioned for a claim that bound elsewhere: not needed any more
        if phase not in ("Released", "Failed"):
            return Plan(volume_status=volume_status(volume, "Released", "", now))
        return _reclaim(volume, now)
    return unbind_volume(volume, now)


def _reclaim(volume: Obj, now: str) -> Plan:
    """The claim is gone: Released, then the reclaim policy (reclaimVolume)."""
    phase = (volume.get("status") or {}).get("phase")
    plan = Plan()
    if phase not in ("Released", "Failed"):
        plan.volume_status = volume_status(volume, "Released", "", now)
        released = {**volume, "status": plan.volume_status}
    else:
        released = volume
    policy = spec(volume).get("persistentVolumeReclaimPolicy") or "Retain"
    if policy == "Retain":
        return plan
    if policy == "Delete":
        provisioner = annotations_of(volume).get(ANN_PROVISIONED_BY, "")
        if provisioner and not provisioner.startswith("kubernetes.io/"):
            # an external provisioner deletes what it made, once it sees the volume Released
            return plan
        message = no_deleter_message((volume.get("metadata") or {}).get("name", ""))
    else:
        message = MSG_NO_RECYCLER
    reason = "VolumeFailedDelete" if policy == "Delete" else "VolumeFailedRecycle"
    failed = volume_status(released, "Failed", message, now)
    if failed is not None:
        plan.volume_status = failed
        if (released.get("status") or {}).get("phase") != "Failed":
            plan.event("volume", WARNING, reason, message)
    return plan
