"""A StatefulSet's pods: their ordinals, names, labels, storage and states (kube's stateful_set_utils.go).

Every member of a set is `<set>-<ordinal>`, the ordinals running from `spec.ordinals.start` for
`spec.replicas` pods. A member carries its name and index as labels (`statefulset.kubernetes.io/pod-name`,
`apps.kubernetes.io/pod-index`), the revision it was made from (`controller-revision-hash`), its own hostname
under the set's service as subdomain, and one volume per claim template, bound to the claim
`<template>-<set>-<ordinal>`. Everything here is pure: pods and sets are dicts as the API serves them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.controllers.workloads.controller_utils import (
    controller_ref,
    is_pod_available,
    is_pod_ready,
    pod_from_template,
)

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"
API_VERSION = "apps/v1"
KIND = "StatefulSet"

# a name ends in its ordinal; what comes before the last dash is the parent's name
_MEMBER_NAME = re.compile(r"^(.*)-([0-9]+)$", re.DOTALL)
_INT32_MAX = 2**31 - 1


def _meta(obj: Obj) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _spec(obj: Obj) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def parent_and_ordinal(pod: Obj) -> tuple[str, int]:
    """getParentNameAndOrdinal: ("", -1) for a name that is no member's."""
    found = _MEMBER_NAME.match(str(_meta(pod).get("name", "")))
    if found is None:
        return "", -1
    digits = found.group(2)
    # strconv.ParseInt(_, 10, 32): an ordinal past int32 is no ordinal, but the parent still parses
    ordinal = int(digits) if len(digits) <= 10 and int(digits) <= _INT32_MAX else -1
    return found.group(1), ordinal


def ordinal_of(pod: Obj) -> int:
    return parent_and_ordinal(pod)[1]


def replicas_of(sts: Obj) -> int:
    value = _spec(sts).get("replicas")
    return int(value) if isinstance(value, int) else 1


def start_ordinal(sts: Obj) -> int:
    ordinals = _spec(sts).get("ordinals")
    if isinstance(ordinals, dict) and isinstance(ordinals.get("start"), int):
        return int(ordinals["start"])
    return 0


def end_ordinal(sts: Obj) -> int:
    """The last ordinal of the set (inclusive)."""
    return start_ordinal(sts) + replicas_of(sts) - 1


def in_ordinal_range(pod: Obj, sts: Obj) -> bool:
    ordinal = ordinal_of(pod)
    return start_ordinal(sts) <= ordinal <= end_ordinal(sts)


def pod_name(sts: Obj, ordinal: int) -> str:
    return f"{_meta(sts).get('name', '')}-{ordinal}"


def claim_name(sts: Obj, template: Obj, ordinal: int) -> str:
    return f"{_meta(template).get('name', '')}-{_meta(sts).get('name', '')}-{ordinal}"


def is_member_of(sts: Obj, pod: Obj) -> bool:
    return parent_and_ordinal(pod)[0] == _meta(sts).get("name")


def claim_templates(sts: Obj) -> list[Obj]:
    templates = _spec(sts).get("volumeClaimTemplates")
    return [t for t in templates if isinstance(t, dict)] if isinstance(templates, list) else []


def identity_matches(sts: Obj, pod: Obj) -> bool:
    parent, ordinal = parent_and_ordinal(pod)
    meta = _meta(pod)
    return (
        ordinal >= 0
        and parent == _meta(sts).get("name")
        and meta.get("name") == pod_name(sts, ordinal)
        and meta.get("namespace") == _meta(sts).get("namespace")
        and (meta.get("labels") or {}).get(POD_NAME_LABEL) == meta.get("name")
    )


def storage_matches(sts: Obj, pod: Obj) -> bool:
    """Every claim template has its volume in the pod, bound to the member's claim."""
    ordinal = ordinal_of(pod)
    if ordinal < 0:
        return False
    volumes = {v.get("name"): v for v in _spec(pod).get("volumes") or [] if isinstance(v, dict)}
    for template in claim_templates(sts):
        volume = volumes.get(_meta(template).get("name"))
        source = (volume or {}).get("persistentVolumeClaim")
        if not isinstance(source, dict) or source.get("claimName") != claim_name(sts, template, ordinal):
            return False
    return True


def member_claims(sts: Obj, pod: Obj) -> list[tuple[str, Obj]]:
    """getPersistentVolumeClaims: (template name, the member's claim) per template, in template order. The
    claim is the template named for the member, in the set's namespace, with the selector's labels added."""
    ordinal = ordinal_of(pod)
    selector_labels = (_spec(sts).get("selector") or {}).get("matchLabels") or {}
    claims: list[tuple[str, Obj]] = []
    for template in claim_templates(sts):
        meta = deep_copy(_meta(template))
        meta["name"] = claim_name(sts, template, ordinal)
        meta["namespace"] = _meta(sts).get("namespace")
        meta["labels"] = {**(meta.get("labels") or {}), **selector_labels}
        claim: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta}
        claim["spec"] = deep_copy(_spec(template))
        claims.append((str(_meta(template).get("name", "")), claim))
    return claims


def update_storage(sts: Obj, pod: Obj) -> None:
    """The claim templates' volumes first, then the pod's other volumes (a same-named one is replaced)."""
    claims = member_claims(sts, pod)
    names = {name for name, _ in claims}
    volumes: list[Obj] = [
        {"name": name, "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}} for name, claim in claims
    ]
    spec = pod.setdefault("spec", {})
    volumes += [v for v in spec.get("volumes") or [] if not (isinstance(v, dict) and v.get("name") in names)]
    if volumes:
        spec["volumes"] = volumes


def update_identity(sts: Obj, pod: Obj) -> None:
    """The member's name, namespace, and name and index labels."""
    ordinal = ordinal_of(pod)
    meta = pod.setdefault("metadata", {})
    meta["name"] = pod_name(sts, ordinal)
    meta["namespace"] = _meta(sts).get("namespace")
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        labels = meta["labels"] = {}
    labels[POD_NAME_LABEL] = meta["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)


def set_pod_revision(pod: Obj, revision: str) -> None:
    pod.setdefault("metadata", {}).setdefault("labels", {})[REVISION_LABEL] = revision


def pod_revision(pod: Obj) -> str:
    return str((_meta(pod).get("labels") or {}).get(REVISION_LABEL, ""))


def set_controller_ref(sts: Obj) -> Obj:
    return controller_ref(sts, API_VERSION, KIND)


def new_pod(sts: Obj, ordinal: int) -> Obj:
    """newStatefulSetPod: the template's pod, named for the ordinal, with its hostname and subdomain (set only
    at creation: they are immutable), its labels and its claims' volumes."""
    pod = pod_from_template(_spec(sts).get("template") or {}, sts, set_controller_ref(sts))
    pod["metadata"]["name"] = pod_name(sts, ordinal)
    update_identity(sts, pod)
    pod["spec"]["hostname"] = pod["metadata"]["name"]
    service = _spec(sts).get("serviceName")
    if service:
        pod["spec"]["subdomain"] = service
    update_storage(sts, pod)
    return pod


def _partition(sts: Obj) -> int | None:
    rolling = (_spec(sts).get("updateStrategy") or {}).get("rollingUpdate")
    if not isinstance(rolling, dict):
        return None
    value = rolling.get("partition")
    return int(value) if isinstance(value, int) else 0


def update_strategy(sts: Obj) -> str:
    return str((_spec(sts).get("updateStrategy") or {}).get("type") or "RollingUpdate")


def new_versioned_pod(
    current_set: Obj, update_set: Obj, current_revision: str, update_revision: str, ordinal: int
) -> Obj:
    """newVersionedStatefulSetPod: a missing member below the partition (or, without a rollingUpdate, among
    the first currentReplicas) is made at the current revision, any other at the update revision.

    Go's `&&` binds tighter than its `||`: the partition clause holds whatever the strategy, as in kube."""
    partition = _partition(current_set)
    start = start_ordinal(current_set)
    current_replicas = int((current_set.get("status") or {}).get("currentReplicas") or 0)
    at_current = (
        update_strategy(current_set) == "RollingUpdate" and partition is None and ordinal < start + current_replicas
    ) or (partition is not None and ordinal < start + partition)
    if at_current:
        pod = new_pod(current_set, ordinal)
        set_pod_revision(pod, current_revision)
        return pod
    pod = new_pod(update_set, ordinal)
    set_pod_revision(pod, update_revision)
    return pod


# -- pod states -------------------------------------------------------------------------------------------


def phase(pod: Obj) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def is_created(pod: Obj) -> bool:
    """Made by the API server: a pod the controller only built has no phase yet."""
    return phase(pod) != ""


def is_pending(pod: Obj) -> bool:
    return phase(pod) == "Pending"


def is_failed(pod: Obj) -> bool:
    return phase(pod) == "Failed"


def is_succeeded(pod: Obj) -> bool:
    return phase(pod) == "Succeeded"


def is_terminating(pod: Obj) -> bool:
    return bool(_meta(pod).get("deletionTimestamp"))


def is_running_and_ready(pod: Obj) -> bool:
    return phase(pod) == "Running" and is_pod_ready(pod)


def is_running_and_available(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    return is_pod_available(pod, min_ready_seconds, now)


def is_unavailable(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    return not is_running_and_available(pod, min_ready_seconds, now) or is_terminating(pod)


def allows_burst(sts: Obj) -> bool:
    return _spec(sts).get("podManagementPolicy") == "Parallel"


def min_ready_seconds(sts: Obj) -> int:
    value = _spec(sts).get("minReadySeconds")
    return int(value) if isinstance(value, int) else 0


def by_descending_ordinal(pods: Iterable[Obj]) -> list[Obj]:
    return sorted(pods, key=ordinal_of, reverse=True)


def by_ascending_ordinal(pods: Sequence[Obj]) -> list[Obj]:
    return sorted(pods, key=ordinal_of)
