"""What a CRD adds to the OpenAPI documents for one of its served versions, as kube's CRD OpenAPI builder
(apiextensions-apiserver pkg/controller/openapi/builder) makes it.

Two definitions per version, named in kube's reverse-domain form (`com.example.stable.v1.CronTab` and its
list's): the kind's schema is the version's `openAPIV3Schema` as a structural schema publishes it (only the
keywords a structural schema has; `x-kubernetes-int-or-string` unfolded into its `anyOf` of integer and
string), with `apiVersion`, `kind` and `metadata` (a reference to ObjectMeta) set, the same three on every
embedded resource, and the kind's `x-kubernetes-group-version-kind` (and its selectable fields); the list's
is kube's fixed `<ListKind> is a list of <Kind>` object. Both are in OpenAPI v3 form; the OpenAPI builder
serves them as they are in v3 and converts them for v2 (kubelite.endpoints.openapi.custom_v2).

`published(crd)` is what to hand `OpenAPIBuilder.add_resource` for each served version; `sync` does the
adding and removing for a CRD that appeared, changed or went (as kube's openapi controllers do on each CRD
event).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions import names
from kubelite.apimachinery.meta import Obj
from kubelite.endpoints.openapi import OpenAPIBuilder, naming, schemas
from kubelite.registry.spec import ResourceSpec

V3_PREFIX = "#/components/schemas/"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
#: the built-in kind whose schema carries kube's descriptions of apiVersion, kind and object metadata
_TYPED_KIND = "io.k8s.api.core.v1.Pod"
_TYPED_LIST = "io.k8s.api.core.v1.PodList"

_EMBEDDED_API_VERSION = (
    "apiVersion defines the versioned schema of this representation of an object. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
)
_EMBEDDED_KIND = (
    "kind is a string value representing the type of this object. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)
_LIST_ITEMS = "List of {plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"

#: the keywords a structural schema keeps (with the x-kubernetes extensions below); others are dropped
_KEPT = frozenset(
    {
        "description",
        "type",
        "title",
        "default",
        "externalDocs",
        "example",
        "format",
        "maximum",
        "minimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "multipleOf",
        "enum",
        "maxProperties",
        "minProperties",
        "required",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
        "x-kubernetes-validations",
    }
)
#: kept only when true (false is their zero value, which kube does not write)
_FLAGS = frozenset(
    {
        "nullable",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "uniqueItems",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    }
)
_JUNCTORS = ("allOf", "anyOf", "oneOf")
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]


def model_name(group: str, version: str, kind: str) -> str:
    return naming.model_name(group, version, kind)


def _typed_property(definition: str, name: str) -> dict[str, Any]:
    found = schemas.converted(definition, "v3").get("properties", {}).get(name, {})
    return copy.deepcopy(found)


def _meta_ref(definition: str, description: str) -> dict[str, Any]:
    return {"$ref": V3_PREFIX + definition, "description": description}


def _object_meta() -> dict[str, Any]:
    description = _typed_property(_TYPED_KIND, "metadata").get("description", "")
    return _meta_ref(OBJECT_META, description)


def _structural(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as kube's structural schema writes it back: known keywords only, false flags omitted."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if value is None:
            continue  # a null keyword is an unset pointer to kube: it is not written back
        if key in _KEPT:
            out[key] = copy.deepcopy(value)
        elif key in _FLAGS:
            if value is True:
                out[key] = True
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _structural(sub) for name, sub in value.items() if isinstance(sub, Mapping)}
        elif key == "items" and isinstance(value, Mapping):
            out[key] = _structural(value)
        elif key == "additionalProperties":
            if isinstance(value, Mapping):
                out[key] = _structural(value)
            elif isinstance(value, bool):
                out[key] = value
        elif key in _JUNCTORS and isinstance(value, list):
            out[key] = [_structural(sub) for sub in value if isinstance(sub, Mapping)]
        elif key == "not" and isinstance(value, Mapping):
            out[key] = _structural(value)
    _unfold_int_or_string(out)
    return out


def _is_int_or_string_anyof(schema: Mapping[str, Any]) -> bool:
    return schema.get("anyOf") == _INT_OR_STRING


def _unfold_int_or_string(schema: dict[str, Any]) -> None:
    """kube's Unfold: an int-or-string node states its `anyOf` of integer and string, unless it has it."""
    if schema.get("x-kubernetes-int-or-string") is not True:
        return
    if _is_int_or_string_anyof(schema):
        return
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and all_of and isinstance(all_of[0], Mapping) and _is_int_or_string_anyof(all_of[0]):
        return
    if "anyOf" not in schema:
        schema["anyOf"] = copy.deepcopy(_INT_OR_STRING)
    else:
        schema["allOf"] = [{"anyOf": copy.deepcopy(_INT_OR_STRING)}, *(all_of or [])]


def _add_embedded(schema: dict[str, Any]) -> None:
    """apiVersion, kind and metadata on every embedded resource below (and at) `schema`."""
    for sub in (schema.get("properties") or {}).values():
        _add_embedded(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _add_embedded(schema[key])
    if schema.get("x-kubernetes-embedded-resource") is not True:
        return
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        properties = schema["properties"] = {}
    properties["apiVersion"] = {**_typed_property(_TYPED_KIND, "apiVersion"), "description": _EMBEDDED_API_VERSION}
    properties["kind"] = {**_typed_property(_TYPED_KIND, "kind"), "description": _EMBEDDED_KIND}
    properties["metadata"] = _object_meta()
    required = schema.get("required")
    if not isinstance(required, list):
        required = schema["required"] = []
    for name in ("kind", "apiVersion"):
        if name not in required:
            required.append(name)


def _selectable_fields(crd: Obj, version: str) -> list[dict[str, str]]:
    return [{"fieldPath": path} for path in names.selectable_fields(crd, version)]


def _names(crd: Obj) -> Mapping[str, Any]:
    spec = crd.get("spec")
    return names.accepted_names(crd) or (spec.get("names") if isinstance(spec, Mapping) else None) or {}


def definition_names(crd: Obj, version: str) -> tuple[str, str]:
    """The names of the version's kind and list definitions."""
    group = str((crd.get("spec") or {}).get("group") or "")
    accepted = _names(crd)
    kind = str(accepted.get("kind") or "")
    list_kind = str(accepted.get("listKind") or kind + "List")
    return model_name(group, version, kind), model_name(group, version, list_kind)


def kind_schema(crd: Obj, version: str) -> dict[str, Any]:
    """The kind's definition (v3 form)."""
    group = str((crd.get("spec") or {}).get("group") or "")
    kind = str(_names(crd).get("kind") or "")
    source = names.schema(crd, version)
    if source is None:
        # without a schema, kube publishes no properties: a client would take the three it listed for all
        out: dict[str, Any] = {"type": "object"}
    else:
        out = _structural(source)
        properties = out.setdefault("properties", {})
        properties["metadata"] = _object_meta()
        properties["apiVersion"] = _typed_property(_TYPED_KIND, "apiVersion")
        properties["kind"] = _typed_property(_TYPED_KIND, "kind")
        _add_embedded(out)
    out["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": version}]
    selectable = _selectable_fields(crd, version)
    if selectable:
        out["x-kubernetes-selectable-fields"] = selectable
    return out


def list_schema(crd: Obj, version: str) -> dict[str, Any]:
    """The list kind's definition (v3 form)."""
    group = str((crd.get("spec") or {}).get("group") or "")
    accepted = _names(crd)
    kind = str(accepted.get("kind") or "")
    list_kind = str(accepted.get("listKind") or kind + "List")
    object_name = definition_names(crd, version)[0]
    out: dict[str, Any] = {
        "description": f"{list_kind} is a list of {kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": _typed_property(_TYPED_KIND, "apiVersion"),
            "items": {
                "description": _LIST_ITEMS.format(plural=accepted.get("plural") or ""),
                "type": "array",
                "items": {"$ref": V3_PREFIX + object_name},
            },
            "kind": _typed_property(_TYPED_KIND, "kind"),
            "metadata": _meta_ref(LIST_META, _typed_property(_TYPED_LIST, "metadata").get("description", "")),
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": list_kind, "version": version}],
    }
    selectable = _selectable_fields(crd, version)
    if selectable:
        out["x-kubernetes-selectable-fields"] = selectable
    return out


def definitions(crd: Obj, version: str) -> dict[str, dict[str, Any]]:
    """The version's two definitions by name, in v3 form: what `OpenAPIBuilder.add_resource` takes."""
    object_name, list_name = definition_names(crd, version)
    return {object_name: kind_schema(crd, version), list_name: list_schema(crd, version)}


def published(crd: Obj) -> list[tuple[ResourceSpec, dict[str, dict[str, Any]]]]:
    """For each served version of an established CRD: its resource and its definitions."""
    return [(names.resource_spec(crd, version), definitions(crd, version)) for version in names.served_versions(crd)]


def sync(builder: OpenAPIBuilder, previous: Obj | None, current: Obj | None) -> None:
    """Bring the documents from what `previous` published to what `current` publishes (either may be None:
    a CRD established, or deleted): each served version added or replaced, each no longer served removed."""
    now = published(current) if current is not None else []
    for spec, found in now:
        builder.add_resource(spec, found)
    kept = {(spec.group, spec.version, spec.resource) for spec, _ in now}
    for spec, _ in published(previous) if previous is not None else []:
        if (spec.group, spec.version, spec.resource) not in kept:
            builder.remove_resource(spec.group, spec.version, spec.resource)
