"""A DaemonSet's history: one ControllerRevision per template it has had (kube's daemon/update.go
constructHistory, snapshot, dedupCurHistories, cleanupHistory, Match, getPatch).

A revision's `data` is the patch that restores its template (`{"spec": {"template": {..., "$patch":
"replace"}}}`, what `kubectl rollout undo` applies); its name is `<daemonset>-<hash>` with the hash of the
template (and the DaemonSet's collisionCount), the hash also in its `controller-revision-hash` label, which
every pod made from it carries. The revision whose data matches the DaemonSet's template is the current one;
it gets the highest revision number. Old revisions beyond `revisionHistoryLimit` go, oldest first, unless a
live pod still carries their hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.controllers.daemonset.placement import REVISION_HASH_LABEL
from kubelite.controllers.workloads.controller_utils import compute_hash, controller_ref

DAEMON_SET_API_VERSION = "apps/v1"
DAEMON_SET_KIND = "DaemonSet"


def ds_controller_ref(ds: Obj) -> Obj:
    return controller_ref(ds, DAEMON_SET_API_VERSION, DAEMON_SET_KIND)


def revision_patch(ds: Mapping[str, Any]) -> Obj:
    """getPatch: the DaemonSet's template, to be put back whole."""
    template: Obj = deep_copy(((ds.get("spec") or {}).get("template")) or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def matches(ds: Mapping[str, Any], revision: Mapping[str, Any]) -> bool:
    """Match: the revision holds the DaemonSet's current template."""
    return revision.get("data") == revision_patch(ds)


def revision_number(revision: Mapping[str, Any]) -> int:
    try:
        return int(revision.get("revision") or 0)
    except (TypeError, ValueError):
        return 0


def max_revision(revisions: Iterable[Mapping[str, Any]]) -> int:
    return max((revision_number(r) for r in revisions), default=0)


def template_hash(ds: Mapping[str, Any]) -> str:
    spec = ds.get("spec") or {}
    collision = (ds.get("status") or {}).get("collisionCount")
    return compute_hash(spec.get("template") or {}, None if collision is None else int(collision))


def snapshot(ds: Obj, number: int) -> Obj:
    """The ControllerRevision of the DaemonSet's template, numbered `number`."""
    meta = ds["metadata"]
    revision_hash = template_hash(ds)
    template_labels = (((ds.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    metadata: Obj = {
        "name": f"{meta['name']}-{revision_hash}",
        "namespace": meta.get("namespace", ""),
        "labels": {**template_labels, REVISION_HASH_LABEL: revision_hash},
        "ownerReferences": [ds_controller_ref(ds)],
    }
    if meta.get("annotations"):
        metadata["annotations"] = dict(meta["annotations"])
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": metadata,
        "data": revision_patch(ds),
        "revision": number,
    }


def split_current(ds: Mapping[str, Any], revisions: Sequence[Obj]) -> tuple[list[Obj], list[Obj]]:
    """The revisions holding the DaemonSet's template, and the others."""
    current: list[Obj] = []
    old: list[Obj] = []
    for revision in revisions:
        (current if matches(ds, revision) else old).append(revision)
    return current, old


def keep_of_duplicates(current: Sequence[Obj]) -> Obj:
    """dedupCurHistories' choice: the highest revision number, the last listed among equals."""
    keep = current[0]
    highest = 0
    for revision in current:
        if revision_number(revision) >= highest:
            keep = revision
            highest = revision_number(revision)
    return keep


def revision_hash_of(obj: Mapping[str, Any]) -> str:
    return str(((obj.get("metadata") or {}).get("labels") or {}).get(REVISION_HASH_LABEL) or "")


def revisions_to_clean(ds: Mapping[str, Any], old: Sequence[Obj], live_pods: Iterable[Mapping[str, Any]]) -> list[str]:
    """cleanupHistory: the names of the old revisions to delete, oldest first, sparing those a pod uses."""
    limit = (ds.get("spec") or {}).get("revisionHistoryLimit")
    to_kill = len(old) - int(10 if limit is None else limit)
    if to_kill <= 0:
        return []
    live = {revision_hash_of(pod) for pod in live_pods} - {""}
    doomed: list[str] = []
    for revision in sorted(old, key=revision_number):
        if to_kill <= 0:
            break
        if revision_hash_of(revision) in live:
            continue
        doomed.append(str(revision["metadata"]["name"]))
        to_kill -= 1
    return doomed
