"""The uniqueness invariants of `x-kubernetes-list-type: set` and `map` arrays (kube's
listtype.ValidateListSetsAndMaps).

A set must not hold an element twice; a map list must hold objects (or nulls) and no two with the same
values of the `x-kubernetes-list-map-keys` (a missing key counts as a value of its own). Each duplicate is
reported once, at the index of its second appearance, with the duplicated element (set) or key values
(map). Scalars compare by type and value (Go compares interface values: 1 and 1.0 differ); objects and
arrays compare by their JSON text (where 1 and 1.0 are the same). `list-type: atomic` and `map-type` have
nothing to check.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiextensions.schema.structural import StructuralNode, relevant
from kubelite.apiextensions.schema.validation import go_bad_value
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FieldError


def _has_list_type(node: StructuralNode) -> bool:
    return node.list_type in ("set", "map")


class _MissingKey:
    """A map-list element without the (single) key field: equal to every other such element."""


_MISSING = _MissingKey()


def _identity(value: Any) -> Any:
    if type(value) is dict or type(value) is list:
        return ("json", gofmt.json(value))
    return (type(value), value)


def _duplicates(values: list[Any]) -> list[int]:
    """The index of the second appearance of every repeated value, in order."""
    if len(values) <= 1:
        return []
    counts: dict[Any, int] = {}
    out: list[int] = []
    for index, value in enumerate(values):
        key = _MISSING if value is _MISSING else _identity(value)
        seen = counts.get(key, 0)
        if seen == 1:
            out.append(index)
        counts[key] = seen + 1
    return out


class ListTypeNode:
    """The list-type part of one skeleton node."""

    __slots__ = ("additional", "items", "list_map_keys", "list_type", "properties")

    def __init__(self, node: StructuralNode) -> None:
        self.list_type = node.list_type if node.list_type in ("set", "map") else None
        self.list_map_keys = node.list_map_keys
        self.properties: dict[str, ListTypeNode] = {
            key: ListTypeNode(sub) for key, sub in node.properties.items() if relevant(sub, _has_list_type)
        }
        self.additional = ListTypeNode(node.additional) if relevant(node.additional, _has_list_type) else None
        self.items = ListTypeNode(node.items) if relevant(node.items, _has_list_type) else None

    def validate(self, value: Any, path: str, errs: list[FieldError]) -> None:
        if type(value) is dict:
            self._validate_object(value, path, errs)
        elif type(value) is list:
            self._validate_array(value, path, errs)

    def _validate_object(self, value: dict[str, Any], path: str, errs: list[FieldError]) -> None:
        if self.additional is not None:
            for key, item in value.items():
                self.additional.validate(item, f"{path}[{key}]", errs)
        if self.properties:
            prefix = path + "." if path else ""
            for key, item in value.items():
                child = self.properties.get(key)
                if child is not None:
                    child.validate(item, prefix + key, errs)

    def _validate_array(self, value: list[Any], path: str, errs: list[FieldError]) -> None:
        if self.list_type == "set":
            errs.extend(FieldError.duplicate(f"{path}[{i}]", go_bad_value(value[i])) for i in _duplicates(value))
        elif self.list_type == "map":
            errs.extend(self._validate_map_list(value, path))
        if self.items is not None:
            for index, item in enumerate(value):
                self.items.validate(item, f"{path}[{index}]", errs)

    def _validate_map_list(self, value: list[Any], path: str) -> list[FieldError]:
        for index, item in enumerate(value):
            if item is not None and type(item) is not dict:
                detail = "must be an object for an array of list-type map"
                return [FieldError.invalid(f"{path}[{index}]", go_bad_value(item), detail)]
        if len(value) <= 1:
            return []
        if len(self.list_map_keys) == 1:
            (key_field,) = self.list_map_keys
            keys = [_MISSING if item is None or key_field not in item else item[key_field] for item in value]
            return [
                FieldError.duplicate(f"{path}[{i}]", {} if keys[i] is _MISSING else go_bad_value({key_field: keys[i]}))
                for i in _duplicates(keys)
            ]
        compound = [{} if item is None else {k: item[k] for k in self.list_map_keys if k in item} for item in value]
        return [FieldError.duplicate(f"{path}[{i}]", go_bad_value(compound[i])) for i in _duplicates(compound)]


def compile_list_types(root: StructuralNode) -> ListTypeNode | None:
    """The list-type tree of a schema, None when it declares no set or map list."""
    return ListTypeNode(root) if relevant(root, _has_list_type) else None
