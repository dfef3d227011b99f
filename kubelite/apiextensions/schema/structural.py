"""The structural part of a CRD schema: the properties / additionalProperties / items skeleton with the
per-node facts that defaulting, list-type checks and embedded-resource checks act on.

kube's structural schema (pkg/apiserver/schema) keeps these apart from the value validations (allOf, anyOf,
...), and its algorithms walk an object along this skeleton only: a key the skeleton does not know is left
alone. Each algorithm compiles its own trimmed copy (`trimmed`), keeping only the branches that hold
something for it, so that objects are walked no deeper than needed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeGuard


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


#: a node without a `default` (a default may itself be null)
UNSET: Final = _Unset()


class StructuralNode:
    """One node of the skeleton."""

    __slots__ = (
        "additional",
        "default",
        "embedded",
        "items",
        "list_map_keys",
        "list_type",
        "nullable",
        "properties",
    )

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.nullable = bool(schema.get("nullable"))
        self.default: Any = schema.get("default", UNSET)
        self.embedded = bool(schema.get("x-kubernetes-embedded-resource"))
        self.list_type: str | None = schema.get("x-kubernetes-list-type")
        self.list_map_keys: tuple[str, ...] = tuple(schema.get("x-kubernetes-list-map-keys") or ())
        self.properties: dict[str, StructuralNode] = {
            key: StructuralNode(sub) for key, sub in (schema.get("properties") or {}).items()
        }
        additional = schema.get("additionalProperties")
        self.additional = StructuralNode(additional) if isinstance(additional, Mapping) else None
        items = schema.get("items")
        self.items = StructuralNode(items) if isinstance(items, Mapping) else None

    def children(self) -> list[StructuralNode]:
        out = list(self.properties.values())
        if self.additional is not None:
            out.append(self.additional)
        if self.items is not None:
            out.append(self.items)
        return out


def relevant(node: StructuralNode | None, holds: Callable[[StructuralNode], bool]) -> TypeGuard[StructuralNode]:
    """Whether a node or any node below it holds what `holds` looks for."""
    if node is None:
        return False
    return holds(node) or any(relevant(child, holds) for child in node.children())
