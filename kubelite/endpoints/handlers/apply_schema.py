"""Server-side apply's view of the built-in kinds, and the field managers of their endpoints.

The apply machinery (kubelite.apimachinery.apply) works on its own schema atoms; this module builds them
from the schema model every layer shares (kubelite.apimachinery.schema), built-in kinds and schemas added
at run time alike, the way kube-openapi's schemaconv reads kube's OpenAPI: `x-kubernetes-list-type`
atomic/set/map with `x-kubernetes-list-map-keys`, else a list with patch strategy `merge` is a map-list by
its merge key (a set without one), else atomic; `x-kubernetes-map-type` atomic or granular, also beside a
`$ref`; objects without declared properties and preserve-unknown-fields objects take any keys;
int-or-string, quantities and times are untyped scalars; RawExtension is atomic. Two facts the
definitions lack come from elsewhere: which struct fields Go always writes and which it leaves out when
zero (the protobuf schema's Go pointer/omitempty marks), because kube compares Go objects; and the
`+default` of list key fields (ContainerPort and ServicePort protocol TCP).

It also offers the two calls a write path makes to record managedFields (`track_create`, `track_update`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from kubelite.apimachinery.apply.created import CreateRecorder
from kubelite.apimachinery.apply.fieldmanager import FieldManager, manager_or_user_agent
from kubelite.apimachinery.apply.fieldpath import Set
from kubelite.apimachinery.apply.schema import (
    BOOLEAN,
    DEDUCED,
    NUMERIC,
    STRING,
    UNTYPED,
    UNTYPED_ATOMIC,
    ListType,
    MapType,
    Node,
)
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.protobuf import schema as protobuf_schema
from kubelite.apimachinery.schema import SchemaNode, is_dangling, registry
from kubelite.registry.spec import ResourceSpec

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"

#: `+default` markers of list key fields, which the published definitions do not carry
KEY_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    "io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
    "io.k8s.api.core.v1.ServicePort": {"protocol": "TCP"},
}

#: what Go writes for a zero value of a special protobuf message (their own JSON forms)
_SPECIAL_ZERO: Mapping[str, Any] = {
    "time": None,
    "microtime": None,
    "quantity": "0",
    "intorstring": 0,
    "rawextension": None,
    "fieldsv1": None,
    "list": None,
}
_SCALAR_ZERO: Mapping[str, Any] = {
    "string": "",
    "bool": False,
    "int32": 0,
    "int64": 0,
    "uint32": 0,
    "uint64": 0,
    "double": 0,
    "bytes": None,
}


def _message_of(definition: str) -> str:
    """The protobuf message of an OpenAPI definition: io.k8s.api.apps.v1.Deployment -> k8s.io.api.apps.v1...."""
    return "k8s.io." + definition.removeprefix("io.k8s.") if definition.startswith("io.k8s.") else definition


class GoShapes:
    """What Go writes for the fields of each message: the zero skeleton, and the omitted zero values."""

    def __init__(self, messages: Mapping[str, list[Any]], special: Mapping[str, str]) -> None:
        self._messages = messages
        self._special = special
        self._zero: dict[str, dict[str, Any]] = {}
        self._omitted: dict[str, dict[str, Any]] = {}

    def zero_fields(self, message: str) -> dict[str, Any]:
        """Fields the Go type writes even when unset, with the value written."""
        cached = self._zero.get(message)
        if cached is not None:
            return cached
        out: dict[str, Any] = {}
        self._zero[message] = out  # a non-pointer struct cannot contain itself; this only guards bad data
        for row in self._messages.get(message, ()):
            name, kind, mods = row[0], row[2], row[3]
            if "i" in mods:
                out.update(self.zero_fields(kind))
                continue
            if "z" in mods:
                continue
            if "p" in mods or "r" in mods or "m" in mods:
                if "o" not in mods:
                    out[name] = None  # a nil pointer, slice or map without omitempty is written as null
                continue
            if kind in _SCALAR_ZERO:
                if "o" not in mods:
                    out[name] = _SCALAR_ZERO[kind]
                continue
            special = self._special.get(kind)
            if special is not None:
                out[name] = _SPECIAL_ZERO.get(special)
            else:  # a struct: omitempty does not leave it out
                out[name] = self.zero_fields(kind)
        return out

    def omitted(self, message: str) -> dict[str, Any]:
        """omitempty fields and the zero value that makes Go leave them out."""
        cached = self._omitted.get(message)
        if cached is not None:
            return cached
        out: dict[str, Any] = {}
        self._omitted[message] = out
        for row in self._messages.get(message, ()):
            name, kind, mods = row[0], row[2], row[3]
            if "i" in mods:
                out.update(self.omitted(kind))
            elif "o" not in mods or "p" in mods:
                continue
            elif "r" in mods:
                out[name] = []
            elif "m" in mods:
                out[name] = {}
            elif kind in _SCALAR_ZERO and _SCALAR_ZERO[kind] is not None:
                out[name] = _SCALAR_ZERO[kind]
        return out


class SchemaBuilder:
    """Apply's atoms, built on demand from schema model nodes and kept in them (`SchemaNode.compiled`)."""

    def __init__(self, shapes: GoShapes | None = None) -> None:
        self._shapes = shapes

    def of(self, schema: SchemaNode, *, preserve: bool = False) -> Node:
        """The node of any schema node: a reference or a definition (shared), or an inline schema."""
        if schema.ref is not None:
            return self.definition(schema.target, atomic=_map_atomic(schema), preserve=preserve)
        if schema.name:
            return self.definition(schema, preserve=preserve)
        node = Node()
        self._fill(node, schema, preserve, "")
        return node

    def definition(self, schema: SchemaNode, *, atomic: bool | None = None, preserve: bool = False) -> Node:
        """The node of a definition; `atomic` overrides its map type (set beside the reference)."""
        key = (self, atomic, preserve)
        node: Node | None = schema.compiled.get(key)
        if node is not None:
            return node
        name = schema.name
        if name in (_QUANTITY, _INT_OR_STRING):
            node = schema.compiled[key] = Node(scalar=UNTYPED, name=name)
            return node
        if name == _RAW_EXTENSION:
            return UNTYPED_ATOMIC
        if is_dangling(schema):
            return DEDUCED
        node = schema.compiled[key] = Node(name=name)  # kept before it is filled: definitions may recurse
        self._fill(node, schema, preserve, name)
        if atomic is not None and node.map is not None:
            node.map.atomic = atomic
        return node

    def _fill(self, node: Node, schema: SchemaNode, preserve: bool, name: str) -> None:
        if schema.preserve_unknown_fields:
            preserve = True
        if schema.composite or schema.int_or_string:
            node.scalar = UNTYPED
            return
        types = schema.types
        kind = next(iter(types)) if len(types) == 1 else ""
        if kind == "object":
            node.map = self._map(schema, preserve, name)
        elif kind == "array":
            node.list = self._list(schema, preserve)
        elif kind in ("integer", "number"):
            node.scalar = NUMERIC
        elif kind == "boolean":
            node.scalar = BOOLEAN
        elif kind == "string":
            node.scalar = STRING if schema.format in ("", "byte") else UNTYPED
        elif not types:
            node.scalar = UNTYPED
            node.list = self._list(schema, preserve) if schema.items is not None else ListType(UNTYPED_ATOMIC, True)
            node.map = self._map(schema, preserve, name)
        else:
            node.scalar = UNTYPED

    def _map(self, schema: SchemaNode, preserve: bool, name: str) -> MapType:
        fields: dict[str, Node] = {}
        for key, prop in (schema.properties or {}).items():
            fields[key] = self.of(prop, preserve=preserve)
        elem: Node | None
        if schema.additional is not None:
            elem = self.of(schema.additional, preserve=preserve)
        elif schema.additional_allowed is True:
            elem = DEDUCED
        elif schema.additional_allowed is False:
            elem = None
        else:  # no additionalProperties: free-form unless properties are declared
            elem = DEDUCED if preserve or not fields else None
        mtype = MapType(fields=fields, elem=elem, atomic=bool(_map_atomic(schema)))
        if name:
            mtype.defaults = dict(KEY_DEFAULTS.get(name, {}))
            for key, prop in (schema.properties or {}).items():
                if prop.has_default:
                    mtype.defaults.setdefault(key, prop.default)
            if self._shapes is not None:
                message = _message_of(name)
                mtype.zero = self._shapes.zero_fields(message)
                mtype.omitted = self._shapes.omitted(message)
        return mtype

    def _list(self, schema: SchemaNode, preserve: bool) -> ListType:
        item = self.of(schema.items, preserve=preserve) if schema.items is not None else UNTYPED_ATOMIC
        list_type = schema.list_type
        if list_type == "map":
            return ListType(item, atomic=False, keys=schema.list_map_keys)
        if list_type == "set":
            return ListType(item, atomic=False)
        if list_type:
            return ListType(item, atomic=True)
        if schema.patch_strategy in ("merge", "merge,retainKeys"):
            key = schema.patch_merge_key
            return ListType(item, atomic=False, keys=(key,) if key else ())
        return ListType(item, atomic=True)


def _map_atomic(schema: SchemaNode) -> bool | None:
    if schema.map_type == "atomic":
        return True
    if schema.map_type == "granular":
        return False
    return None


@cache
def builder() -> SchemaBuilder:
    """The builder over the definitions of the Kubernetes version we serve."""
    proto = protobuf_schema.load()
    return SchemaBuilder(GoShapes(proto.messages, proto.special))


def root_node(group: str, version: str, kind: str) -> Node:
    """The schema of a kind; kinds without one take any fields (as kube treats schemaless objects)."""
    model = registry().model(group, version, kind)
    return DEDUCED if model is None else builder().of(model)


def reset_fields(spec: ResourceSpec, subresource: str, *, status_resets_labels: bool = False) -> Set:
    """What an endpoint's writes may not own (kube's GetResetFields): status through the resource when it
    has a status subresource; spec (and for some kinds the labels) through /status."""
    if subresource == "status":
        paths: list[tuple[str, ...]] = [("spec",)]
        if status_resets_labels:
            paths.append(("metadata", "labels"))
        return Set.of(*paths)
    if spec.subresource("status") is not None:
        return Set.of(("status",))
    return Set()


def field_manager(spec: ResourceSpec, subresource: str = "", *, status_resets_labels: bool = False) -> FieldManager:
    """The field manager of a resource or of one of its subresources, for the kind's current schema."""
    model = registry().model(spec.group, spec.version, spec.kind)
    return _field_manager(spec, model, subresource, status_resets_labels)


# keyed by the model too: a schema added or replaced at run time gets managers of its own
@lru_cache(maxsize=512)
def _field_manager(
    spec: ResourceSpec, model: SchemaNode | None, subresource: str, status_resets_labels: bool
) -> FieldManager:
    return FieldManager(
        DEDUCED if model is None else builder().of(model),
        spec.group,
        spec.version,
        spec.kind,
        subresource=subresource,
        reset_fields=reset_fields(spec, subresource, status_resets_labels=status_resets_labels),
    )


def create_recorder(spec: ResourceSpec) -> CreateRecorder:
    return _create_recorder(field_manager(spec))


@lru_cache(maxsize=512)
def _create_recorder(manager: FieldManager) -> CreateRecorder:
    return CreateRecorder(manager)


def track_create(spec: ResourceSpec, obj: Obj, manager: str) -> Obj:
    """Record a create by `manager` in obj's managedFields (call it on the defaulted object)."""
    return create_recorder(spec).record(obj, manager)


def track_update(
    spec: ResourceSpec,
    old: Obj | None,
    new: Obj,
    manager: str,
    subresource: str = "",
    *,
    status_resets_labels: bool = False,
) -> Obj:
    """Record an update (PUT or non-apply PATCH) of `old` into `new` by `manager`; `old` None creates."""
    manager_fm = field_manager(spec, subresource, status_resets_labels=status_resets_labels)
    return manager_fm.update(old, new, manager)


__all__ = [
    "GoShapes",
    "SchemaBuilder",
    "builder",
    "create_recorder",
    "field_manager",
    "manager_or_user_agent",
    "reset_fields",
    "root_node",
    "track_create",
    "track_update",
]
