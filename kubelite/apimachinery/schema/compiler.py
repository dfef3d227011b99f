"""Compiling schema dicts into nodes: a set of named definitions, references resolved once.

A `SchemaSet` owns the definitions of one schema document (kube's `$defs`, `definitions` or
`components/schemas`, whichever prefix the references use) and compiles each on first use, so a
process that serves a few kinds never compiles the rest of the 1.6 MB set. A definition's node is
registered before its body is compiled, which is what ends definitions that contain themselves. A set
may fall back to a parent set for names it lacks: a custom resource's schema can point at a built-in
type and be compiled on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery.schema.model import SchemaNode

#: the places a `$ref` may point into; the name is what follows
REF_PREFIXES = ("#/$defs/", "#/definitions/", "#/components/schemas/")

_EMPTY: Mapping[str, Any] = {}
_DANGLING = "dangling"


def is_dangling(node: SchemaNode) -> bool:
    """Whether the node stands for a definition no set has (a reference that points nowhere)."""
    return bool(node.compiled.get(_DANGLING))


def ref_name(schema: Mapping[str, Any]) -> str | None:
    """The definition a schema refers to: its `$ref`, or that of a lone `allOf` wrapper (how OpenAPI v3
    attaches sibling keywords to a reference); None for a schema that is not a reference."""
    ref = schema.get("$ref")
    if ref is None:
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict) and "properties" not in schema:
            ref = all_of[0].get("$ref")
    if not isinstance(ref, str):
        return None
    for prefix in REF_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


class SchemaSet:
    """Named definitions and the nodes compiled from them."""

    def __init__(self, definitions: Mapping[str, Mapping[str, Any]], parent: SchemaSet | None = None) -> None:
        self._definitions = definitions
        self._parent = parent
        self._nodes: dict[str, SchemaNode | None] = {}
        self._lock = threading.RLock()

    @property
    def definitions(self) -> Mapping[str, Mapping[str, Any]]:
        return self._definitions

    def definition(self, name: str) -> SchemaNode | None:
        """The node of a named definition, compiled on first use; None when no set has it."""
        try:
            return self._nodes[name]
        except KeyError:
            pass
        schema = self._definitions.get(name)
        if schema is None:
            return self._parent.definition(name) if self._parent is not None else None
        with self._lock:
            if name in self._nodes:
                return self._nodes[name]
            node = SchemaNode(schema, name)
            self._nodes[name] = node  # before the body: a definition may contain itself
            self._fill(node, schema)
            return node

    def compile(self, schema: Mapping[str, Any]) -> SchemaNode:
        """The node of an inline schema (a custom resource's root, a test's fragment)."""
        with self._lock:
            return self._node(schema)

    def _node(self, schema: Any) -> SchemaNode:
        if not isinstance(schema, Mapping):
            schema = _EMPTY
        node = SchemaNode(schema)
        self._fill(node, schema)
        return node

    def _fill(self, node: SchemaNode, schema: Mapping[str, Any]) -> None:
        name = ref_name(schema)
        if name is not None:
            node.ref = self.definition(name)
            if node.ref is None:  # a dangling reference describes nothing: any value
                node.ref = SchemaNode(_EMPTY, name)
                node.ref.compiled[_DANGLING] = True
        declared = schema.get("type")
        types = set(declared) if isinstance(declared, list) else {declared} if isinstance(declared, str) else set()
        for keyword in ("oneOf", "anyOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list):
                node.composite = True
                for branch in branches:
                    if isinstance(branch, Mapping):
                        branch_type = branch.get("type")
                        types.update(branch_type if isinstance(branch_type, list) else [branch_type])
        node.nullable = "null" in types or schema.get("nullable") is True
        types.discard("null")
        types.discard(None)
        node.types = frozenset(types)
        node.format = str(schema.get("format") or "")
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            node.properties = {key: self._node(child) for key, child in properties.items()}
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping):
            node.additional = self._node(extra)
        elif isinstance(extra, bool):
            node.additional_allowed = extra
        items = schema.get("items")
        if isinstance(items, Mapping):
            node.items = self._node(items)
        required = schema.get("required")
        if isinstance(required, list):
            node.required = tuple(key for key in required if isinstance(key, str))
        enum = schema.get("enum")
        if isinstance(enum, list):
            node.enum = tuple(enum)
        if "default" in schema:
            node.default = schema["default"]
        node.list_type = str(schema.get("x-kubernetes-list-type") or "")
        keys = schema.get("x-kubernetes-list-map-keys")
        if isinstance(keys, list):
            node.list_map_keys = tuple(key for key in keys if isinstance(key, str))
        node.map_type = str(schema.get("x-kubernetes-map-type") or "")
        node.patch_strategy = str(schema.get("x-kubernetes-patch-strategy") or "")
        node.patch_merge_key = str(schema.get("x-kubernetes-patch-merge-key") or "")
        node.int_or_string = schema.get("x-kubernetes-int-or-string") is True
        node.preserve_unknown_fields = schema.get("x-kubernetes-preserve-unknown-fields") is True
        node.embedded_resource = schema.get("x-kubernetes-embedded-resource") is True

    def references(self, name: str) -> frozenset[str]:
        """Names of the definitions the named definition refers to directly (compiles it)."""
        node = self.definition(name)
        if node is None:
            return frozenset()
        cached = node.compiled.get("references")
        if cached is None:
            found: set[str] = set()
            _collect(node, found, top=True)
            cached = node.compiled["references"] = frozenset(found)
        result: frozenset[str] = cached
        return result


def _collect(node: SchemaNode, found: set[str], *, top: bool = False) -> None:
    if node.ref is not None:
        found.add(node.ref.name)
        if not top:
            return
    for child in (node.properties or {}).values():
        _collect(child, found)
    if node.items is not None:
        _collect(node.items, found)
    if node.additional is not None:
        _collect(node.additional, found)
