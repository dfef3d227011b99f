"""The swagger 2.0 form of a custom resource's schema, from its OpenAPI v3 form.

A CRD's schema is OpenAPI v3; kube publishes it in /openapi/v2 after dropping what swagger 2.0 (and
kubectl's reading of it) cannot take, by the rules of apiextensions-apiserver's v2 conversion:

* `allOf`, `oneOf`, `anyOf` and `not` go (so does the `anyOf` that stands for int-or-string);
* a `nullable` node loses its type, items and properties, and is no longer `required` by its parent
  (a map of nullable values requires nothing);
* a node that preserves unknown fields loses its items and properties, and its `object` type;
* an array left without items loses its type;
* defaults are pruned, as from the rest of the v2 document;
* a kind whose root preserves unknown fields is published as a bare object.

References move from `#/components/schemas/` to `#/definitions/`. The input is never modified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_V3_PREFIX = "#/components/schemas/"
_V2_PREFIX = "#/definitions/"
_JUNCTORS = frozenset({"allOf", "oneOf", "anyOf", "not"})
_PRESERVE = "x-kubernetes-preserve-unknown-fields"
#: what a kind keeps when its root preserves unknown fields
_ROOT_EXTENSIONS = ("x-kubernetes-group-version-kind", "x-kubernetes-selectable-fields")


def definition(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The v2 form of one custom resource definition (a kind's schema or its list's)."""
    if schema.get(_PRESERVE) is True:
        bare: dict[str, Any] = {"type": "object"}
        bare.update({key: schema[key] for key in _ROOT_EXTENSIONS if key in schema})
        return bare
    return _node(schema)


def _is_nullable(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("nullable") is True


def _node(schema: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _JUNCTORS or key in ("default", "nullable"):
            continue
        if key == "$ref" and isinstance(value, str):
            out[key] = _V2_PREFIX + value.removeprefix(_V3_PREFIX)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _node(sub) if isinstance(sub, Mapping) else sub for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = _node(value)
        else:
            out[key] = value
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and isinstance(out.get("required"), list):
        kept = [name for name in out["required"] if not _is_nullable(properties.get(name))]
        if kept:
            out["required"] = kept
        else:
            del out["required"]
    if _is_nullable(schema.get("additionalProperties")):
        out.pop("required", None)
    if _is_nullable(schema):
        for key in ("type", "items", "properties"):
            out.pop(key, None)
    if schema.get(_PRESERVE) is True:
        out.pop("items", None)
        out.pop("properties", None)
    if "items" not in out and out.get("type") == "array":
        del out["type"]
    if schema.get(_PRESERVE) is True and out.get("type") == "object":
        del out["type"]
    return out
