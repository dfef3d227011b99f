"""The TypeMeta and ObjectMeta rules of objects marked `x-kubernetes-embedded-resource` (kube's
schema/objectmeta.Validate, below the root: the custom resource's own metadata is validated with the
object's other ObjectMeta rules).

An embedded resource must carry `apiVersion` and `kind` (strings: a parseable group/version and a kind that
is a DNS-1035 label once lowercased); its `metadata`, when present, must read as an ObjectMeta and pass
ValidateObjectMeta with path-segment names, namespaced exactly when it names a namespace, and with a stand-in
name when it has none (an embedded object need not be named).
"""

from __future__ import annotations

from typing import Any, Final

from kubelite.apiextensions.schema.structural import StructuralNode, relevant
from kubelite.apiextensions.schema.validation import go_bad_value
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FieldError, is_dns1035_label, validate_object_meta


def _is_embedded(node: StructuralNode) -> bool:
    return node.embedded


# ObjectMeta's fields by the JSON type they decode from, and the Go type json.Unmarshal names in its error
_STRING_FIELDS: Final = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
)
_INT_FIELDS: Final = ("generation", "deletionGracePeriodSeconds")
_STRING_MAP_FIELDS: Final = ("labels", "annotations")
_LIST_FIELDS: Final = ("finalizers", "ownerReferences", "managedFields")


def _meta_decode_error(meta: Any) -> str | None:
    """The error json.Unmarshal gives decoding `meta` into a metav1.ObjectMeta, None if it decodes."""
    if meta is None:
        return None
    if type(meta) is not dict:
        return f"json: cannot unmarshal {gofmt.json_type(meta)} into Go value of type v1.ObjectMeta"

    def wrong(field: str, value: Any, go_type: str) -> str:
        found = gofmt.json_type(value)
        return f"json: cannot unmarshal {found} into Go struct field ObjectMeta.{field} of type {go_type}"

    for field in _STRING_FIELDS:
        value = meta.get(field)
        if value is not None and type(value) is not str:
            return wrong(field, value, "string" if "Timestamp" not in field else "v1.Time")
    for field in _INT_FIELDS:
        value = meta.get(field)
        if value is not None and type(value) is not int:
            return wrong(field, value, "int64")
    for field in _STRING_MAP_FIELDS:
        value = meta.get(field)
        if value is None:
            continue
        if type(value) is not dict:
            return wrong(field, value, "map[string]string")
        for item in value.values():
            if item is not None and type(item) is not str:
                return wrong(field, item, "string")
    for field in _LIST_FIELDS:
        value = meta.get(field)
        if value is not None and type(value) is not list:
            return wrong(field, value, "[]string" if field == "finalizers" else f"[]v1.{field[0].upper()}{field[1:-1]}")
    return None


def _parse_group_version_error(api_version: str) -> str | None:
    if api_version.count("/") > 1:
        return f"unexpected GroupVersion string: {api_version}"
    return None


def validate_embedded_resource(value: dict[str, Any], path: str) -> list[FieldError]:
    """validateEmbeddedResource: TypeMeta required and well formed, ObjectMeta valid."""
    prefix = path + "." if path else ""
    errs: list[FieldError] = []
    if "apiVersion" not in value:
        errs.append(FieldError.required(prefix + "apiVersion"))
    if "kind" not in value:
        errs.append(FieldError.required(prefix + "kind"))
    for key, item in value.items():
        if key == "apiVersion":
            field = prefix + "apiVersion"
            if type(item) is not str:
                errs.append(FieldError.invalid(field, go_bad_value(item), "must be a string"))
            elif not item:
                errs.append(FieldError.invalid(field, item, "must not be empty"))
            elif (error := _parse_group_version_error(item)) is not None:
                errs.append(FieldError.invalid(field, item, error))
        elif key == "kind":
            field = prefix + "kind"
            if type(item) is not str:
                errs.append(FieldError.invalid(field, go_bad_value(item), "must be a string"))
            elif not item:
                errs.append(FieldError.invalid(field, item, "must not be empty"))
            elif problems := is_dns1035_label(item.lower()):
                detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
                errs.append(FieldError.invalid(field, item, detail))
        elif key == "metadata":
            field = prefix + "metadata"
            error = _meta_decode_error(item)
            if error is not None:
                errs.append(FieldError.invalid(field, go_bad_value(item), error))
                continue
            meta = dict(item or {})
            if not meta.get("name"):
                meta["name"] = "fakename"
            errs.extend(
                validate_object_meta(
                    meta,
                    namespaced=bool(meta.get("namespace")),
                    name_rule="path",
                    path=field,
                    kube_finalizers=False,
                )
            )
    return errs


class EmbeddedNode:
    """The embedded-resource part of one skeleton node."""

    __slots__ = ("additional", "embedded", "items", "properties")

    def __init__(self, node: StructuralNode) -> None:
        self.embedded = node.embedded
        self.properties: dict[str, EmbeddedNode] = {
            key: EmbeddedNode(sub) for key, sub in node.properties.items() if relevant(sub, _is_embedded)
        }
        self.additional = EmbeddedNode(node.additional) if relevant(node.additional, _is_embedded) else None
        self.items = EmbeddedNode(node.items) if relevant(node.items, _is_embedded) else None

    def validate(self, value: Any, path: str, errs: list[FieldError]) -> None:
        if type(value) is dict:
            if self.embedded:
                errs.extend(validate_embedded_resource(value, path))
            prefix = path + "." if path else ""
            for key, item in value.items():
                child = self.properties.get(key)
                if child is not None:
                    child.validate(item, prefix + key, errs)
                elif self.additional is not None and key not in self.properties:
                    self.additional.validate(item, f"{path}[{key}]", errs)
        elif type(value) is list and self.items is not None:
            for index, item in enumerate(value):
                self.items.validate(item, f"{path}[{index}]", errs)


def compile_embedded(root: StructuralNode) -> EmbeddedNode | None:
    """The embedded-resource tree of a schema (the root itself excluded), None when nothing is embedded."""
    if not any(relevant(child, _is_embedded) for child in root.children()):
        return None
    node = EmbeddedNode(root)
    node.embedded = False
    return node
