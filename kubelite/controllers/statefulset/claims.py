"""Who owns a member's PersistentVolumeClaims: persistentVolumeClaimRetentionPolicy as owner references.

kube implements the policy through the garbage collector. A claim to delete with the set carries the set as
its controller; a claim to delete on scale down carries its pod, once the pod is past the set's replicas;
both at once when both are Delete; neither under Retain. A reference to a set or pod of the same name but
another uid (a deleted predecessor) makes the claim stale: it is left alone, and (under WhenScaled=Delete)
no pod is created over it until the garbage collector removes it.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.controllers.statefulset.identity import API_VERSION, KIND, in_ordinal_range
from kubelite.controllers.workloads.controller_utils import controller_ref

RETAIN = "Retain"
DELETE = "Delete"


def retention_policy(sts: Obj) -> tuple[str, str]:
    """(whenDeleted, whenScaled), Retain where unset."""
    policy = (sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return str(policy.get("whenDeleted") or RETAIN), str(policy.get("whenScaled") or RETAIN)


def _refs(obj: Obj) -> list[Obj]:
    return [r for r in (obj.get("metadata") or {}).get("ownerReferences") or [] if isinstance(r, dict)]


def _uid(obj: Obj) -> Any:
    return (obj.get("metadata") or {}).get("uid")


def _matches(ref: Obj, obj: Obj, api_version: str, kind: str) -> bool:
    return (
        ref.get("apiVersion") == api_version
        and ref.get("kind") == kind
        and ref.get("name") == (obj.get("metadata") or {}).get("name")
    )


def _is_set_ref(ref: Obj, sts: Obj) -> bool:
    return _matches(ref, sts, API_VERSION, KIND)


def _is_pod_ref(ref: Obj, pod: Obj) -> bool:
    return _matches(ref, pod, "v1", "Pod")


def has_owner_ref(claim: Obj, owner: Obj) -> bool:
    return any(ref.get("uid") == _uid(owner) for ref in _refs(claim))


def has_stale_owner_ref(claim: Obj, owner: Obj, api_version: str, kind: str) -> bool:
    for ref in _refs(claim):
        if _matches(ref, owner, api_version, kind):
            return ref.get("uid") != _uid(owner)
    return False


def _stale(claim: Obj, sts: Obj, pod: Obj) -> bool:
    return has_stale_owner_ref(claim, sts, API_VERSION, KIND) or has_stale_owner_ref(claim, pod, "v1", "Pod")


def has_unexpected_controller(claim: Obj, sts: Obj, pod: Obj) -> bool:
    """Under a Delete policy, a controller of the claim other than the set or the pod (or one of theirs
    with another uid)."""
    if retention_policy(sts) == (RETAIN, RETAIN):
        return False
    for ref in _refs(claim):
        if _is_set_ref(ref, sts):
            if ref.get("uid") != _uid(sts):
                return True
            continue
        if _is_pod_ref(ref, pod):
            if ref.get("uid") != _uid(pod):
                return True
            continue
        if ref.get("controller"):
            return True
    return False


def _has_non_controller_owner(claim: Obj, sts: Obj, pod: Obj) -> bool:
    return any(ref.get("uid") in (_uid(sts), _uid(pod)) and not ref.get("controller") for ref in _refs(claim))


def claim_owner_up_to_date(claim: Obj, sts: Obj, pod: Obj) -> bool:
    """isClaimOwnerUpToDate: the claim's references say what the policy asks."""
    if _stale(claim, sts, pod):
        return True  # a predecessor's claim: not ours to touch
    if has_unexpected_controller(claim, sts, pod):
        return not (has_owner_ref(claim, sts) or has_owner_ref(claim, pod))
    if _has_non_controller_owner(claim, sts, pod):
        return False
    when_deleted, when_scaled = retention_policy(sts)
    on_set, on_pod = has_owner_ref(claim, sts), has_owner_ref(claim, pod)
    scaled_down = not in_ordinal_range(pod, sts)
    if when_scaled == DELETE and when_deleted == DELETE:
        return scaled_down != on_set and scaled_down == on_pod
    if when_scaled == DELETE and when_deleted == RETAIN:
        return not on_set and scaled_down == on_pod
    if when_scaled == RETAIN and when_deleted == DELETE:
        return on_set and not on_pod
    return not on_set and not on_pod  # Retain/Retain, and any unknown policy


def updated_claim_owners(claim: Obj, sts: Obj, pod: Obj) -> Obj:
    """updateClaimOwnerRefForSetAndPod: a copy of the claim with the set's and pod's references redone."""
    claim = deep_copy(claim)
    unexpected = has_unexpected_controller(claim, sts, pod)
    refs = [r for r in _refs(claim) if not (_is_set_ref(r, sts) or _is_pod_ref(r, pod))]
    if not unexpected:
        when_deleted, when_scaled = retention_policy(sts)
        scaled_down = not in_ordinal_range(pod, sts)
        wanted: list[Obj] = []
        if when_scaled == RETAIN and when_deleted == DELETE:
            wanted.append(controller_ref(sts, API_VERSION, KIND))
        elif when_scaled == DELETE and when_deleted == RETAIN:
            if scaled_down:
                wanted.append(controller_ref(pod, "v1", "Pod"))
        elif when_scaled == DELETE and when_deleted == DELETE:
            wanted.append(controller_ref(pod, "v1", "Pod") if scaled_down else controller_ref(sts, API_VERSION, KIND))
        for ref in wanted:
            if all(existing.get("uid") != ref["uid"] for existing in refs):
                refs.append(ref)
    meta = claim.setdefault("metadata", {})
    if refs:
        meta["ownerReferences"] = refs
    else:
        meta.pop("ownerReferences", None)
    return claim


def claim_is_stale(claim: Obj, sts: Obj, pod: Obj) -> bool:
    """PodClaimIsStale for one claim: under WhenScaled=Delete, a claim held by another pod of the name
    (a pod not created yet has no uid, so any pod reference is another's)."""
    if retention_policy(sts)[1] == RETAIN:
        return False
    return has_stale_owner_ref(claim, pod, "v1", "Pod")
