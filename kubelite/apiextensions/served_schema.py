"""A CRD version's schema as the request path's shared schema layer needs it (field validation and pruning,
server-side apply's list types and map keys): the structural schema, with what every custom resource has
implicitly made explicit.

kube's pruning keeps `apiVersion`, `kind` and `metadata` at the root of a custom resource and in every
`x-kubernetes-embedded-resource` object, and prunes `metadata` to ObjectMeta's fields, also where unknown fields
are preserved; an object node that declares neither properties nor additionalProperties, and does not preserve
unknown fields, keeps nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_OBJECT_META = {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
_IMPLICIT = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": _OBJECT_META}


def _normalized(node: Any, *, resource: bool) -> Any:
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = dict(node)
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), Mapping):
            out[key] = _normalized(out[key], resource=False)
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            out[key] = [_normalized(branch, resource=False) for branch in out[key]]
    properties = out.get("properties")
    if isinstance(properties, Mapping):
        out["properties"] = {name: _normalized(child, resource=False) for name, child in properties.items()}
    embedded = resource or out.get("x-kubernetes-embedded-resource") is True
    if embedded:
        # also under preserve-unknown-fields: kube coerces a resource's metadata to ObjectMeta whatever else stays
        out["properties"] = {**(out.get("properties") or {}), **_IMPLICIT}
    elif (
        out.get("type") == "object"
        and "properties" not in out
        and not isinstance(out.get("additionalProperties"), Mapping)
        and out.get("additionalProperties") is not True
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["properties"] = {}
    return out


def served_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The root schema of a custom resource for the shared schema registry."""
    normalized = _normalized(schema, resource=True)
    assert isinstance(normalized, dict)
    return normalized
