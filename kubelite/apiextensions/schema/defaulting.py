"""Defaulting of custom resources from their schema's `default` values (kube's structuraldefaulting.Default),
and the removal of nulls that may neither stay nor be defaulted (PruneNonNullableNullsWithoutDefaults).

Defaulting walks the object top-down along the structural skeleton: in an object, every property with a
default that is missing, or null while the property is not nullable, gets a deep copy of the default; then
each known key is defaulted in turn (so a default that was just set is defaulted further inside).
additionalProperties values and array items are not added, but a non-nullable null among them is replaced by
the value schema's default. Only the branches of the skeleton that hold a default are kept, so an object is
walked no deeper than its schema has defaults.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiextensions.schema.structural import UNSET, StructuralNode, relevant
from kubelite.apimachinery.meta import deep_copy


def _has_default(node: StructuralNode) -> bool:
    return node.default is not UNSET


class DefaultNode:
    """The defaulting part of one skeleton node; `None` children hold no default anywhere below."""

    __slots__ = ("additional", "default", "defaults", "items", "nullable", "properties")

    def __init__(self, node: StructuralNode) -> None:
        self.nullable = node.nullable
        self.default = node.default
        #: (key, default, nullable) of the properties that have a default
        self.defaults: tuple[tuple[str, Any, bool], ...] = tuple(
            (key, sub.default, sub.nullable) for key, sub in node.properties.items() if _has_default(sub)
        )
        self.properties: dict[str, DefaultNode] = {
            key: DefaultNode(sub) for key, sub in node.properties.items() if relevant(sub, _has_default)
        }
        self.additional = DefaultNode(node.additional) if relevant(node.additional, _has_default) else None
        self.items = DefaultNode(node.items) if relevant(node.items, _has_default) else None

    def apply(self, value: Any) -> None:
        if type(value) is dict:
            for key, default, nullable in self.defaults:
                if key not in value or (value[key] is None and not nullable):
                    value[key] = deep_copy(default)
            properties = self.properties
            additional = self.additional
            if properties:
                for key, item in value.items():
                    child = properties.get(key)
                    if child is not None and item is not None:
                        child.apply(item)
            elif additional is not None:
                for key, item in value.items():
                    if item is None and not additional.nullable:
                        if additional.default is not UNSET:
                            value[key] = item = deep_copy(additional.default)
                    if item is not None:
                        additional.apply(item)
        elif type(value) is list:
            items = self.items
            if items is None:
                return
            for index, item in enumerate(value):
                if item is None and not items.nullable and items.default is not UNSET:
                    value[index] = item = deep_copy(items.default)
                if item is not None:
                    items.apply(item)


def compile_defaulting(root: StructuralNode) -> DefaultNode | None:
    """The defaulting tree of a schema, None when it has no default at all."""
    return DefaultNode(root) if relevant(root, _has_default) else None


def prune_non_nullable_nulls(value: Any, node: StructuralNode | None) -> None:
    """Drop object keys whose value is null where the schema neither allows null nor has a default
    (done with pruning, before defaulting, so that such a null reads as a missing field)."""
    if type(value) is dict:
        for key in list(value):
            item = value[key]
            child: StructuralNode | None = None
            if node is not None:
                child = node.properties.get(key)
                if child is None:
                    child = node.additional
            if item is None:
                if child is not None and not child.nullable and child.default is UNSET:
                    del value[key]
            else:
                prune_non_nullable_nulls(item, child)
    elif type(value) is list:
        items = node.items if node is not None else None
        for item in value:
            if item is not None:
                prune_non_nullable_nulls(item, items)
