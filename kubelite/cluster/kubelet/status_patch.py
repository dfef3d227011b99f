"""The strategic merge patches a kubelet sends for a status it changed: a two-way diff of the old and new status.

The kubelet's status manager does not PUT a pod: it sends `pods/status` a strategic merge patch made by
`strategicpatch.CreateTwoWayMergePatch` of the status it read and the status it wants
(pkg/util/pod `PatchPodStatus`), with the pod's uid in the new side only, so that the uid lands in the patch
and the write fails on a pod recreated under the same name. The node status goes the same way
(`PatchNodeStatus`). So does this module, for the lists of these two statuses:

- the lists kube merges (`patchStrategy:"merge"`) are diffed element by element on their merge key: a new or
  changed element carries its key and what changed, a removed one is `{"$patch": "delete", key: ...}`, and
  `$setElementOrder/<field>` gives the new order whenever anything in the list moved, changed or went;
- every other list (containerStatuses has no merge key) is sent whole when it differs;
- maps are diffed key by key, a removed key being `null`.

A null field of a merged element (a condition's `lastProbeTime: null`) cannot survive a strategic merge: the
patch that adds the element drops it, as kube's does before Go's decoding puts the zero value back. An element
compares equal to its stored self without its nulls, so that is no reason to patch again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery.meta import Obj

#: PodStatus fields merged by key (k8s.io/api/core/v1 types.go); the rest are replaced
POD_STATUS_MERGE_KEYS: Mapping[str, str] = {"conditions": "type", "podIPs": "ip", "hostIPs": "ip"}
#: NodeStatus fields merged by key
NODE_STATUS_MERGE_KEYS: Mapping[str, str] = {"conditions": "type", "addresses": "type"}

SET_ELEMENT_ORDER = "$setElementOrder/"


def diff_maps(old: Mapping[str, Any], new: Mapping[str, Any], merge_keys: Mapping[str, str]) -> Obj:
    """The patch turning `old` into `new`; `merge_keys` names the lists of this level merged by a key."""
    patch: Obj = {}
    for key, value in new.items():
        if key not in old:
            patch[key] = value
            continue
        before = old[key]
        if before == value:
            continue
        if isinstance(before, Mapping) and isinstance(value, Mapping):
            # nested maps of a status have no merged lists of their own
            nested = diff_maps(before, value, {})
            if nested:
                patch[key] = nested
        elif key in merge_keys and _maps_with_key(before, merge_keys[key]) and _maps_with_key(value, merge_keys[key]):
            patch.update(_diff_merged_list(key, before, value, merge_keys[key]))
        else:
            patch[key] = value
    for key in old:
        if key not in new:
            patch[key] = None
    return patch


def _maps_with_key(value: Any, key: str) -> bool:
    return isinstance(value, list) and all(isinstance(item, Mapping) and key in item for item in value)


def _diff_merged_list(field: str, old: list[Obj], new: list[Obj], key: str) -> Obj:
    before = {item[key]: item for item in old}
    after = {item[key] for item in new}
    changes: list[Obj] = []
    for item in new:
        previous = before.get(item[key])
        if previous is None:
            changes.append(item)
        elif _without_nulls(previous) != _without_nulls(item):
            changes.append({key: item[key], **diff_maps(_without_nulls(previous), _without_nulls(item), {})})
    changes += [{"$patch": "delete", key: item[key]} for item in old if item[key] not in after]
    reordered = [item[key] for item in old if item[key] in after] != [item[key] for item in new if item[key] in before]
    if not changes and not reordered:
        return {}
    return {SET_ELEMENT_ORDER + field: [{key: item[key]} for item in new], **({field: changes} if changes else {})}


def _without_nulls(item: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if value is not None}


def pod_status_patch(uid: str, old_status: Mapping[str, Any], new_status: Mapping[str, Any]) -> Obj | None:
    """The pods/status patch from `old_status` to `new_status`, with the uid as precondition; None when equal."""
    diff = diff_maps(old_status, new_status, POD_STATUS_MERGE_KEYS)
    if not diff:
        return None
    return {"metadata": {"uid": uid}, "status": diff}


def node_status_patch(old_status: Mapping[str, Any], new_status: Mapping[str, Any]) -> Obj | None:
    """The nodes/status patch from `old_status` to `new_status`; None when equal."""
    diff = diff_maps(old_status, new_status, NODE_STATUS_MERGE_KEYS)
    return {"status": diff} if diff else None
