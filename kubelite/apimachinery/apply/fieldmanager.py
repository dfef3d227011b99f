"""The field manager of one endpoint: kube's `managedfields.FieldManager` with its default layers.

`update` records a non-apply write (create, update, patch) in metadata.managedFields; `apply` merges an
applied configuration into the live object and records it. Around the ownership rules of updater.py,
kube layers, and so does this module:

* managedFields sent with a write replace the stored ones when they decode (a client may edit them);
  `[]` or `[{}]` clears them; on a subresource the stored ones always win;
* an object with no managedFields is only tracked from its creation or from its first apply, when
  everything it already has is recorded as owned by `before-first-apply`;
* type meta and the system fields of metadata are never owned; nor are the endpoint's reset fields;
* an Update entry's time moves only when the write changed something it now owns; an Apply entry's
  only when the apply changed the object;
* at most ten Update entries are kept: the oldest are folded into `ancient-changes` per apiVersion;
* for the manager `kubectl`, fields recorded in the client-side apply annotation may be taken without
  --force-conflicts, and that annotation is kept in step with what is applied.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kubelite.apimachinery import errors, gofmt
from kubelite.apimachinery.apply import managed as mf
from kubelite.apimachinery.apply.fieldpath import Path, Set, path_string
from kubelite.apimachinery.apply.managed import Managed, ManagedFieldsError
from kubelite.apimachinery.apply.schema import Node
from kubelite.apimachinery.apply.typed import (
    TypedError,
    compare,
    to_field_set,
    validate,
)
from kubelite.apimachinery.apply.updater import Conflicts, ManagedFields, Updater, VersionedSet
from kubelite.apimachinery.errors import Cause, StatusError
from kubelite.apimachinery.meta import Obj, deep_copy, now, rfc3339

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: the manager whose applies take over client-side apply (kubectl apply --server-side's default)
KUBECTL = "kubectl"
MAX_UPDATE_MANAGERS = 10
FIELD_MANAGER_MAX_LENGTH = 128

_CURRENT = "current-operation"
_BEFORE_FIRST_APPLY = "before-first-apply"
_ANCIENT = "ancient-changes"

#: never owned by anyone (kube's stripMetaManager); a plain difference, so metadata's children stay
#: the metadata fields no manager owns (kube's stripSet)
STRIPPED_METADATA = frozenset(
    {
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    }
)
_STRIPPED = Set.of(
    ("apiVersion",),
    ("kind",),
    ("metadata",),
    *(("metadata", name) for name in sorted(STRIPPED_METADATA)),
)


def manager_or_user_agent(manager: str, user_agent: str) -> str:
    """The field manager of a write: the one asked for, else the User-Agent up to its first `/`."""
    if manager:
        return manager
    out: list[str] = []
    size = 0
    for ch in user_agent.split("/", 1)[0]:
        if not ch.isprintable():
            continue
        width = len(ch.encode())
        if size + width > FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
        size += width
    return "".join(out)


def _without_managed_fields(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _drop_nulls(value: Any) -> Any:
    """Nulls left by a merge decode into Go's zero values, which kube then leaves out."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def _gvk(obj: Obj) -> tuple[str, str, str]:
    """Unstructured.GroupVersionKind(): an apiVersion with more than one `/` makes the whole GVK empty."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    api_version = api_version if isinstance(api_version, str) else ""
    kind = kind if isinstance(kind, str) else ""
    if api_version.count("/") > 1:
        return "", "", ""
    group, _, version = api_version.rpartition("/")
    return group, version, kind


def _print_manager(ident: str) -> str:
    entry = mf.parse_identifier(ident)
    if not entry:
        return gofmt.quote(ident)
    text = gofmt.quote(entry.get("manager", ""))
    if entry.get("subresource"):
        text += f" with subresource {gofmt.quote(entry['subresource'])}"
    if entry.get("operation") == mf.UPDATE:
        text += f" using {entry.get('apiVersion', '')}"
    return text


def conflict_error(conflicts: list[tuple[str, Path]]) -> StatusError:
    """409 as kube's NewConflictError writes it."""
    causes = [
        Cause("FieldManagerConflict", f"conflict with {_print_manager(manager)}", path_string(path))
        for manager, path in conflicts
    ]
    if len(conflicts) == 1:
        manager, path = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_print_manager(manager)}: {path_string(path)}"
    else:
        grouped: dict[str, list[Path]] = {}
        for manager, path in conflicts:
            grouped.setdefault(manager, []).append(path)
        lines: list[str] = []
        for manager in sorted(grouped):
            lines.append(f"conflicts with {_print_manager(manager)}:")
            lines.extend(f"- {path_string(path)}" for path in grouped[manager])
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return StatusError(409, "Conflict", message, {"causes": [cause.to_dict() for cause in causes]})


class FieldManager:
    """Field management of one kind through one endpoint (the resource itself, or a subresource)."""

    def __init__(
        self,
        root: Node,
        group: str,
        version: str,
        kind: str,
        *,
        subresource: str = "",
        reset_fields: Set | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.root = root
        self.group, self.version, self.kind = group, version, kind
        self.api_version = f"{group}/{version}" if group else version
        self.subresource = subresource
        self.updater = Updater(root, reset_fields)
        self.clock = clock or (lambda: rfc3339(now()))

    # -- update ---------------------------------------------------------------------------------------

    def update(self, live: Obj | None, new: Obj, manager: str) -> Obj:
        """Record `manager`'s non-apply write of `new` over `live` (None on create); returns `new`.

        Never fails the write: if the fields cannot be tracked, the stored managedFields are kept.
        """
        live_obj = live if live is not None else {}
        live_meta = raw_meta if isinstance(raw_meta := live_obj.get("metadata"), dict) else {}
        new_meta = new.get("metadata")
        if not isinstance(new_meta, dict):
            return new
        managed = self._decode_live_or_new(live_meta, new_meta)
        new_meta.pop("managedFields", None)
        try:
            if not managed.fields and live_meta.get("uid"):
                return new  # an untracked object stays untracked until it is applied to
            ident = mf.identifier(manager or "unknown", mf.UPDATE, self.api_version, self.subresource)
            managed = self._update(_without_managed_fields(live_obj), new, managed, ident)
        except (TypedError, ValueError, TypeError):
            if "managedFields" in live_meta:
                new_meta["managedFields"] = deep_copy(live_meta["managedFields"])
            return new
        _store(new_meta, managed)
        return new

    def _decode_live_or_new(self, live_meta: dict[str, Any], new_meta: dict[str, Any]) -> Managed:
        if not self.subresource:
            sent = new_meta.get("managedFields")
            if mf.is_reset(sent):
                return Managed()
            try:
                managed = mf.decode(sent)
            except ManagedFieldsError:
                managed = Managed()
            if managed.fields:
                return managed
        try:
            return mf.decode(live_meta.get("managedFields"))
        except ManagedFieldsError:
            return Managed()

    def _update(self, live: Obj, new: Obj, managed: Managed, ident: str) -> Managed:
        fields = self.updater.update(live, new, self.api_version, managed.fields, _CURRENT)
        _strip(fields, _CURRENT)
        times = dict(managed.times)
        current = fields.pop(_CURRENT, None)
        if current is not None:
            previous = fields.get(ident)
            merged = current.set if previous is None else current.set.union(previous.set)
            fields[ident] = VersionedSet(merged, current.api_version, current.applied)
            times[ident] = self.clock()
        return _cap_update_managers(Managed(fields, times), self.api_version)

    # -- apply ----------------------------------------------------------------------------------------

    def apply(self, live: Obj | None, config: Obj, manager: str, *, force: bool = False) -> Obj:
        """Merge `config` into `live` (None: the object does not exist yet) for `manager`.

        Returns the new object with its managedFields; raises StatusError: 409 on conflicts, 400 for a
        configuration of another kind, one carrying managedFields or one the schema refuses (kube's
        typed conversion errors, which kube itself answers with a 500).
        """
        live_obj = live if live is not None else {}
        live_meta = raw_meta if isinstance(raw_meta := live_obj.get("metadata"), dict) else {}
        try:
            managed = mf.decode(live_meta.get("managedFields"))
        except ManagedFieldsError as exc:
            raise StatusError(500, "", f"failed to decode managed fields: {exc}") from exc
        gvk = _gvk(config)
        if gvk != (self.group, self.version, self.kind):
            raise errors.bad_request(f"invalid object type: {gvk[0]}/{gvk[1]}, Kind={gvk[2]}")
        try:
            result, managed = self._apply(live_obj, config, managed, manager, force)
        except Conflicts as exc:
            if manager != KUBECTL:
                raise conflict_error(exc.conflicts) from exc
            allowed = self._allowed_by_last_applied(live_obj)
            if allowed is None:
                raise conflict_error(exc.conflicts) from exc
            remaining = [(who, path) for who, path in exc.conflicts if not allowed.has(path)]
            if remaining:
                raise conflict_error(remaining) from exc
            result, managed = self._apply(live_obj, config, managed, manager, True)
        if manager == KUBECTL:
            _refresh_last_applied(result, config)
        _store(result.setdefault("metadata", {}), managed)
        return result

    def _apply(self, live: Obj, config: Obj, managed: Managed, manager: str, force: bool) -> tuple[Obj, Managed]:
        live = _without_managed_fields(live)
        if not managed.fields:
            before = mf.identifier(_BEFORE_FIRST_APPLY, mf.UPDATE, self.api_version, self.subresource)
            managed = self._update({}, live, managed, before)
        ident = mf.identifier(manager or "unknown", mf.APPLY, self.api_version, self.subresource)
        meta = config.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("managedFields"), list):
            raise errors.bad_request("metadata.managedFields must be nil")
        try:
            validate(self.root, config)
        except TypedError as exc:
            # kube answers this with a 500; the configuration is the client's error, so it is a 400 here
            why = f"failed to create typed patch object ({self._describe(config)}): {exc}"
            raise errors.bad_request(why) from exc
        try:
            merged, fields = self.updater.apply(live, config, self.api_version, managed.fields, ident, force)
        except TypedError as exc:
            raise StatusError(500, "", f"failed to merge config: {exc}") from exc
        _strip(fields, ident)
        times = dict(managed.times)
        if merged is None:
            return deep_copy(live), Managed(fields, times)
        times[ident] = self.clock()
        return _drop_nulls(merged), Managed(fields, times)

    def _describe(self, config: Obj) -> str:
        """objectGVKNN: `namespace/name; group/version, Kind=kind` of the applied configuration."""
        meta = raw_meta if isinstance(raw_meta := config.get("metadata"), dict) else {}
        group, version, kind = _gvk(config)
        return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {group}/{version}, Kind={kind}"

    def _allowed_by_last_applied(self, live: Obj) -> Set | None:
        """The fields `kubectl` may take over because its client-side apply annotation set them."""
        meta = raw_meta if isinstance(raw_meta := live.get("metadata"), dict) else {}
        annotations = raw_annotations if isinstance(raw_annotations := meta.get("annotations"), dict) else {}
        text = annotations.get(LAST_APPLIED)
        if not isinstance(text, str) or not text:
            return None
        try:
            last = json.loads(text)
        except ValueError:
            return None
        if not isinstance(last, dict) or last.get("apiVersion") != self.api_version:
            return None
        try:
            validate(self.root, last)
        except TypedError:
            return None
        owned = to_field_set(self.root, last)
        changed = compare(self.root, last, _without_managed_fields(live))
        return owned.difference(changed.modified).difference(changed.added).difference(changed.removed)


def _strip(fields: ManagedFields, manager: str) -> None:
    versioned = fields.get(manager)
    if versioned is None:
        return
    rest = versioned.set.difference(_STRIPPED)
    if rest.empty():
        del fields[manager]
    elif rest is not versioned.set:
        fields[manager] = VersionedSet(rest, versioned.api_version, versioned.applied)


def _cap_update_managers(managed: Managed, api_version: str) -> Managed:
    """Fold the oldest Update entries into `ancient-changes` until at most ten are left."""
    fields, times = managed.fields, managed.times
    updaters = [ident for ident, versioned in fields.items() if not versioned.applied]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed
    updaters.sort(key=lambda ident: (mf.seconds(times.get(ident)), ident))
    first_of_version: dict[str, str] = {}
    length = len(updaters)
    for ident in updaters:
        if length <= MAX_UPDATE_MANAGERS:
            break
        versioned = fields[ident]
        version = versioned.api_version
        bucket = mf.identifier(_ANCIENT, mf.UPDATE, version)
        first = first_of_version.get(version)
        if first is None:
            first_of_version[version] = ident
            continue
        if bucket not in fields:
            fields[bucket] = fields.pop(first)
        fields[bucket] = VersionedSet(versioned.set.union(fields[bucket].set), version, versioned.applied)
        del fields[ident]
        length -= 1
        times[bucket] = times.get(ident)
    return managed


def _refresh_last_applied(result: Obj, config: Obj) -> None:
    """kube's lastAppliedUpdater: an object that has the annotation gets the applied configuration in it."""
    meta = result.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict) or not annotations.get(LAST_APPLIED):
        return
    applied = deep_copy(config)
    applied_meta = applied.get("metadata")
    if isinstance(applied_meta, dict) and isinstance(applied_meta.get("annotations"), dict):
        applied_meta["annotations"].pop(LAST_APPLIED, None)
    annotations[LAST_APPLIED] = gofmt.json(applied) + "\n"


def _store(meta: dict[str, Any], managed: Managed) -> None:
    entries = mf.encode(managed)
    if entries is None:
        meta.pop("managedFields", None)
    else:
        meta["managedFields"] = entries
