"""A StatefulSet's history: ControllerRevisions (kube's pkg/controller/history and the set's revision code).

Each revision stores a strategic merge patch that restores the set's pod template,
`{"spec":{"template":{..., "$patch":"replace"}}}`, as the bytes Go's encoding/json writes for it (keys
sorted, no spaces, `<`, `>` and `&` escaped). Its name is `<set>-<hash>`, the hash being FNV-1 (32 bits)
of those bytes followed by the decimal collision count, written through rand.SafeEncodeString, so a
revision of the same template is named as kube names it. Revisions are numbered: a template seen before
gets its old revision renumbered to the next number (a rollback), a new one a new revision.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy, parse_rfc3339
from kubelite.apimachinery.patch.strategic import apply_strategic_merge_patch
from kubelite.controllers.statefulset.identity import set_controller_ref
from kubelite.controllers.workloads.template_hash import safe_encode_string

HASH_LABEL = "controller.kubernetes.io/hash"
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
#: ControllerRevisionName keeps names within 253 bytes
_PREFIX_LIMIT = 223


def fnv32(data: bytes) -> int:
    """hash/fnv New32 (FNV-1: multiply, then xor), not the FNV-1a of the pod-template hash."""
    value = _FNV32_OFFSET
    for byte in data:
        value = ((value * _FNV32_PRIME) & 0xFFFFFFFF) ^ byte
    return value


def go_json(value: Any) -> bytes:
    """encoding/json's Marshal of a decoded JSON value: sorted keys, compact, HTML-safe."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


def _drop_empty_lists(value: Any) -> Any:
    # the controller reads sets decoded from protobuf, which carries no empty list: omitempty drops them
    if isinstance(value, dict):
        return {k: _drop_empty_lists(v) for k, v in value.items() if not (isinstance(v, list) and not v)}
    if isinstance(value, list):
        return [_drop_empty_lists(v) for v in value]
    return value


def revision_patch(sts: Obj) -> bytes:
    """getPatch: the patch that puts the set's pod template back whole."""
    template = _drop_empty_lists(deep_copy((sts.get("spec") or {}).get("template") or {}))
    template["$patch"] = "replace"
    return go_json({"spec": {"template": template}})


def hash_revision(data: bytes, collision_count: int | None) -> str:
    """HashControllerRevision of a revision whose data is `data`."""
    probe = b"" if collision_count is None else str(collision_count).encode()
    return safe_encode_string(str(fnv32(data + probe)))


def revision_name(prefix: str, hash_: str) -> str:
    return f"{prefix[:_PREFIX_LIMIT]}-{hash_}"


def revision_data(revision: Obj) -> bytes:
    """The revision's data as the bytes kube compares (Data.Raw): the stored JSON, written as Go writes it."""
    return go_json(revision.get("data"))


def new_revision(sts: Obj, number: int, collision_count: int) -> Obj:
    """newRevision: the revision of the set's current template, owned by the set, labelled with the
    template's labels and the hash, annotated with the set's annotations, named for the collision count."""
    meta = sts.get("metadata") or {}
    data = revision_patch(sts)
    hash_ = hash_revision(data, collision_count)
    labels = dict(((sts.get("spec") or {}).get("template") or {}).get("metadata", {}).get("labels") or {})
    labels[HASH_LABEL] = hash_
    revision_meta: Obj = {
        "name": revision_name(str(meta.get("name", "")), hash_),
        "namespace": meta.get("namespace"),
        "labels": labels,
        "ownerReferences": [set_controller_ref(sts)],
    }
    if meta.get("annotations"):
        revision_meta["annotations"] = dict(meta["annotations"])
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": revision_meta,
        "data": json.loads(data),
        "revision": number,
    }


def renamed(revision: Obj, sts: Obj, collision_count: int) -> Obj:
    """The revision named for another collision count (CreateControllerRevision's retry)."""
    clone = deep_copy(revision)
    hash_ = hash_revision(revision_data(revision), collision_count)
    clone["metadata"]["name"] = revision_name(str((sts.get("metadata") or {}).get("name", "")), hash_)
    return clone


def _number(revision: Obj) -> int:
    value = revision.get("revision")
    return int(value) if isinstance(value, int) else 0


def sort_revisions(revisions: Sequence[Obj]) -> list[Obj]:
    """SortControllerRevisions: by revision number, then creation time, then name (stable)."""

    def key(revision: Obj) -> tuple[int, float, str]:
        meta = revision.get("metadata") or {}
        created = meta.get("creationTimestamp")
        when = parse_rfc3339(created).timestamp() if created else 0.0
        return _number(revision), when, str(meta.get("name", ""))

    return sorted(revisions, key=key)


def equal_revision(left: Obj | None, right: Obj | None) -> bool:
    """EqualRevision: the same data (the hash labels never parse as integers, so only the data decides)."""
    if left is None or right is None:
        return left is right
    left_hash = _int_hash(left)
    right_hash = _int_hash(right)
    if left_hash is not None and right_hash is not None and left_hash != right_hash:
        return False
    return revision_data(left) == revision_data(right)


def _parses_int32(text: str) -> bool:
    try:
        return -(2**31) <= int(text, 10) < 2**31
    except ValueError:
        return False


def _int_hash(revision: Obj) -> int | None:
    raw = ((revision.get("metadata") or {}).get("labels") or {}).get(HASH_LABEL)
    if isinstance(raw, str) and _parses_int32(raw.strip()) and raw.strip() == raw:
        return int(raw) & 0xFFFFFFFF
    return None


def find_equal_revisions(revisions: Sequence[Obj], needle: Obj) -> list[Obj]:
    return [revision for revision in revisions if equal_revision(revision, needle)]


def next_revision(revisions: Sequence[Obj]) -> int:
    """One more than the highest revision of `revisions` (sorted), or 1."""
    return _number(revisions[-1]) + 1 if revisions else 1


class _NoSchema:
    """A strategic merge without patch metadata: maps merge, lists are replaced, directives still apply."""

    def field(self, schema: Any, name: str) -> Any:
        return None

    def items(self, schema: Any) -> Any:
        return None

    def patch_meta(self, schema: Any, name: str) -> tuple[str, str | None]:
        return "", None


def apply_revision(sts: Obj, revision: Obj) -> Obj:
    """ApplyRevision: the set with the revision's patch applied (its template as that revision had it)."""
    data = revision.get("data")
    if not isinstance(data, dict):
        return deep_copy(sts)
    return apply_strategic_merge_patch(sts, data, None, _NoSchema())


def owned_or_orphaned(revisions: Sequence[Obj], sts: Obj) -> list[Obj]:
    """ListControllerRevisions: the revisions the set controls or that no controller does."""
    uid = (sts.get("metadata") or {}).get("uid")
    found = []
    for revision in revisions:
        ref = next(
            (r for r in (revision.get("metadata") or {}).get("ownerReferences") or [] if r.get("controller")), None
        )
        if ref is None or ref.get("uid") == uid:
            found.append(revision)
    return found


def history_to_truncate(
    sts: Obj, pod_revisions: Sequence[str], revisions: Sequence[Obj], current: Obj | None, update: Obj | None
) -> list[Obj]:
    """truncateHistory: the oldest revisions that are neither the current nor the update revision nor a
    pod's, beyond revisionHistoryLimit (`revisions` sorted)."""
    live = {str((r.get("metadata") or {}).get("name")) for r in (current, update) if r is not None}
    live.update(pod_revisions)
    history = [r for r in revisions if (r.get("metadata") or {}).get("name") not in live]
    limit_raw = (sts.get("spec") or {}).get("revisionHistoryLimit")
    limit = int(limit_raw) if isinstance(limit_raw, int) else 10
    if limit < 0 or len(history) <= limit:
        return []
    return history[: len(history) - limit]
