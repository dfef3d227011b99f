"""Kubernetes type schemas for the OpenAPI documents, converted from the kubernetes-validate package.

kube-apiserver publishes the schema of every type it serves. We do not generate them from Go types; the
PyPI package `kubernetes-validate` ships the v1.36 definitions as one JSON-schema file. Its flavour differs
from what kube serves in a few mechanical ways, which this module undoes:

* optional fields are typed `["string", "null"]`; kube says `"string"`;
* references point into `#/$defs/`; kube's point into `#/components/schemas/` (v3) or `#/definitions/` (v2);
* v3 wraps a reference that has sibling keywords (`description`, ...) in `allOf`, as kube-openapi does,
  because OpenAPI 3.0 ignores siblings of `$ref`; v2 keeps the siblings beside the `$ref`;
* the package pins `apiVersion`/`kind` with an `enum`; kube does not;
* IntOrString and Quantity are `oneOf` string/number types there; kube's v3 publishes them with
  `oneOf` of the plain types (IntOrString with `format: int-or-string`), its v2 as formatted strings.

The file is 1.6 MB, so it is read on first use only, and every definition is converted at most once per
flavour. Which definitions a document needs is read from the schema model's resolved references
(kubelite.apimachinery.schema); a definition's text is its model node's source.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, Literal

from kubelite.apimachinery.schema import builtin_set
from kubelite.apimachinery.schema_definitions import (
    INT_OR_STRING,
    QUANTITY,
    definition_for,
    definitions,
    references,
)

__all__ = [
    "INT_OR_STRING",
    "QUANTITY",
    "definition_for",
    "definitions",
    "references",
]  # read here by the OpenAPI builder and its tests

Flavour = Literal["v3", "v2"]

REF_PREFIX: dict[Flavour, str] = {"v3": "#/components/schemas/", "v2": "#/definitions/"}
_SOURCE_PREFIX = "#/$defs/"


# The package ships these two without a description; they get a short one of our own.
_SPECIAL: dict[str, dict[Flavour, dict[str, Any]]] = {
    INT_OR_STRING: {
        "v3": {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
        "v2": {"format": "int-or-string", "type": "string"},
    },
    QUANTITY: {
        "v3": {"oneOf": [{"type": "string"}, {"type": "number"}]},
        "v2": {"type": "string"},
    },
}
_SPECIAL_DESCRIPTIONS = {
    INT_OR_STRING: "IntOrString holds either an int32 or a string. In JSON and YAML it is written as the "
    "value it holds, so a field of this type accepts a number or a name.",
    QUANTITY: "Quantity is a fixed-point number with an optional SI or binary suffix, such as 100m, 1.5, "
    "128Mi or 2Gi. It is written as a string in JSON and YAML; a plain number is accepted too.",
}

#: keywords whose values are schemas
_SCHEMA_KEYS = ("items", "additionalProperties", "not")
#: keywords whose values are lists of schemas
_SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf")
#: properties the package narrows with an `enum` of the one valid value
_PINNED_PROPERTIES = ("apiVersion", "kind")


def convert(schema: Any, flavour: Flavour) -> Any:
    """One schema (or sub-schema) from the package's JSON-schema flavour to the OpenAPI flavour."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            out[key] = _plain_type(value)
        elif key == "$ref":
            out[key] = REF_PREFIX[flavour] + value.removeprefix(_SOURCE_PREFIX)
        elif key == "properties":
            out[key] = {name: _property(name, sub, flavour) for name, sub in value.items()}
        elif key in _SCHEMA_KEYS:
            out[key] = convert(value, flavour)
        elif key in _SCHEMA_LIST_KEYS:
            out[key] = [convert(sub, flavour) for sub in value]
        else:
            out[key] = value
    if flavour == "v3" and "$ref" in out and len(out) > 1:
        ref = out.pop("$ref")
        out["allOf"] = [{"$ref": ref}]
    return out


def _property(name: str, schema: Any, flavour: Flavour) -> Any:
    if name in _PINNED_PROPERTIES and isinstance(schema, dict) and "enum" in schema:
        schema = {key: value for key, value in schema.items() if key != "enum"}
    return convert(schema, flavour)


def _plain_type(value: Any) -> Any:
    """`["string", "null"]` -> `"string"`: kube marks optional fields by leaving them out of `required`."""
    if isinstance(value, list):
        types = [t for t in value if t != "null"]
        return types[0] if len(types) == 1 else types
    return value


def closure(roots: Iterable[str]) -> list[str]:
    """The named definitions plus every definition reachable from them, sorted (references as the schema
    model resolved them)."""
    model = builtin_set()
    defs = model.definitions
    seen: set[str] = set()
    stack = [name for name in roots if name in defs]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(ref for ref in model.references(name) if ref in defs and ref not in seen)
    return sorted(seen)


_converted: dict[Flavour, dict[str, dict[str, Any]]] = {"v3": {}, "v2": {}}
_lock = threading.Lock()


def converted(name: str, flavour: Flavour) -> dict[str, Any]:
    """The named definition in the given flavour; converted once, then shared (callers must not mutate)."""
    cached = _converted[flavour].get(name)
    if cached is not None:
        return cached
    with _lock:
        cached = _converted[flavour].get(name)
        if cached is None:
            cached = _convert_definition(name, flavour)
            _converted[flavour][name] = cached
    return cached


def _convert_definition(name: str, flavour: Flavour) -> dict[str, Any]:
    special = _SPECIAL.get(name)
    if special is not None:
        return {"description": _SPECIAL_DESCRIPTIONS[name], **special[flavour]}
    node = builtin_set().definition(name)
    result: dict[str, Any] = convert(node.source if node is not None else {}, flavour)
    return result


def component_schemas(roots: Iterable[str], flavour: Flavour) -> dict[str, dict[str, Any]]:
    """Every definition reachable from the roots, converted, keyed by name (a document's schema section)."""
    return {name: converted(name, flavour) for name in closure(roots)}
