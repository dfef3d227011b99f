"""Strategy: what is specific to one resource, called by the generic Store in a fixed order.

This is kube's RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy folded into one class with
defaults that fit most kinds; a resource module subclasses it and overrides only what differs (kinds with
nothing of their own use SpecStrategy or PlainStrategy). The Store calls the hooks in this order (its
docstring has the whole of it, with the caller's callbacks):
on create: default -> prepare_for_create -> validate -> canonicalize;
on update: default -> prepare_for_update -> validate_update -> canonicalize.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.spec import ResourceSpec

#: the parts of an object that are not its spec: a change elsewhere bumps metadata.generation
_NON_SPEC = frozenset({"metadata", "status", "apiVersion", "kind"})


class Strategy:
    #: whether metadata.generation is set and bumped on spec changes
    tracks_generation: bool = True
    #: whether the kind has a status subresource: then the main resource ignores status and /status only status
    has_status: bool = False
    #: PUT of a missing object creates it (kube's AllowCreateOnUpdate)
    allow_create_on_update: bool = False
    #: extra field selector labels beyond metadata.name / metadata.namespace
    selectable_fields: tuple[str, ...] = ()
    #: the selectable field the watch cache indexes its watchers by (kube's TriggerFunc): a watch pinning it
    #: to a value hears only of objects with that value, not of every change (pods by spec.nodeName: kubelets)
    watch_trigger_field: str | None = None
    #: DELETE answers with the deleted object rather than a Success Status (kube's ReturnDeletedObject)
    return_deleted_object: bool = False
    #: the /status subresource keeps the stored labels (kube's deployment status strategy)
    status_resets_labels: bool = False
    #: the watch cache holds the lists and objects inside spec and status as JSON (apimachinery.compact): for
    #: kinds stored by the many, whose nested fields nothing in the server reads from the cache but their
    #: Table printer, which must decode what it reads (`to_table` hands it `cached.expanded(obj)`)
    compact_in_cache: bool = False
    #: unqualified finalizers must be kube's standard names (core types' rule); CRDs and custom resources,
    #: validated by apimachinery's generic ObjectMeta rules, only need qualified names
    kube_finalizers: bool = True

    def __init__(self, spec: ResourceSpec) -> None:
        self.spec = spec
        self.has_status = spec.subresource("status") is not None

    # -- create --------------------------------------------------------------------------------------

    def prepare_for_create(self, obj: Obj) -> None:
        if self.has_status:
            obj.pop("status", None)
            initial = self.initial_status(obj)
            if initial is not None:
                obj["status"] = initial

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return None

    def default(self, obj: Obj) -> None:
        """Fill defaulted fields (kube's SetDefaults_*)."""

    def validate(self, obj: Obj) -> list[FieldError]:
        return []

    # -- update --------------------------------------------------------------------------------------

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        if self.has_status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.validate(new)

    def spec_changed(self, new: Obj, old: Obj) -> bool:
        keys = (set(new) | set(old)) - _NON_SPEC
        return any(new.get(k) != old.get(k) for k in keys)

    # -- after validation ----------------------------------------------------------------------------

    def canonicalize(self, obj: Obj) -> None:
        """Normalize a valid object before it is stored (e.g. secrets' stringData into data)."""

    # -- delete --------------------------------------------------------------------------------------

    def grace_period(self, obj: Obj, requested: int | None) -> int:
        """Seconds the object stays (with deletionTimestamp) before it goes; 0 deletes now."""
        return 0

    async def before_delete(self, obj: Obj) -> None:
        """Refuse a delete by raising a StatusError (e.g. the `kubernetes` service's protection)."""

    # -- reads ---------------------------------------------------------------------------------------

    def fields(self, obj: Obj) -> dict[str, str]:
        """The field set that field selectors match against (kube's GetAttrs)."""
        meta = obj.get("metadata") or {}
        fields = {"metadata.name": meta.get("name", "")}
        if self.spec.namespaced:
            fields["metadata.namespace"] = meta.get("namespace", "")
        for path in self.selectable_fields:
            fields[path] = field_value(obj, path)
        return fields

    def supported_field_labels(self) -> frozenset[str]:
        base = {"metadata.name"} | ({"metadata.namespace"} if self.spec.namespaced else set())
        return frozenset(base | set(self.selectable_fields))


class SpecStrategy(Strategy):
    """Kinds with a spec whose changes bump metadata.generation, and nothing else of their own."""

    tracks_generation = True


class PlainStrategy(Strategy):
    """Kinds without generation tracking and nothing else of their own (leases, RBAC, endpoints, ...)."""

    tracks_generation = False


class StatusStrategy(Strategy):
    """The /status subresource: only status may change; everything else is taken from the stored object."""

    def __init__(self, parent: Strategy) -> None:
        super().__init__(parent.spec)
        self.parent = parent
        self.tracks_generation = parent.tracks_generation

    def prepare_for_create(self, obj: Obj) -> None:  # pragma: no cover - status is never created
        raise StatusError(405, "MethodNotAllowed", "create is not supported on status")

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        status = new.get("status")
        metadata = new.get("metadata") or {}
        new.clear()
        new.update({k: v for k, v in old.items() if k != "status"})
        if status is not None:
            new["status"] = status
        # status writers may still change labels and annotations, as kube's status strategies allow
        meta = dict(old.get("metadata") or {})
        # managedFields are the field manager's record of this very write: they travel with it
        for key in ("labels", "annotations", "resourceVersion", "managedFields"):
            if key == "labels" and self.parent.status_resets_labels:
                continue
            if key in metadata:
                meta[key] = metadata[key]
            elif key not in ("resourceVersion", "managedFields"):
                meta.pop(key, None)
        new["metadata"] = meta

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []  # the Store validates the metadata; no kind has status rules of its own yet

    def default(self, obj: Obj) -> None:
        pass

    def fields(self, obj: Obj) -> dict[str, str]:
        return self.parent.fields(obj)


def field_value(obj: Obj, path: str) -> str:
    """Read a dotted path as a field selector sees it: missing is "", bools and numbers as text."""
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, dict):
            return ""
        value = value.get(part)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
