"""Patch metadata for strategic merge patch, read from the kinds' schemas.

The strategic merge algorithm (kubelite.apimachinery.patch.strategic) needs to know, per field, whether a
list merges and by which key, and where a field's own schema is. kube reads that from Go struct tags; we
read the same facts from the OpenAPI extensions they are published as (`x-kubernetes-patch-strategy`,
`x-kubernetes-patch-merge-key`), through the schema model every layer shares
(kubelite.apimachinery.schema), so a kind whose schema arrives at run time merges by the same rules.

A lookup's handles are the model's `SchemaNode`s, references already resolved; they are shared and
read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from kubelite.apimachinery.schema import SchemaNode, SchemaSet, builtin_set, is_dangling, registry


class DefinitionsLookup:
    """A SchemaLookup over a set of named definitions."""

    def __init__(self, definitions: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        # None: the built-in set, read on first use
        self._set = SchemaSet(definitions) if definitions is not None else None

    @property
    def schema_set(self) -> SchemaSet:
        if self._set is None:
            self._set = builtin_set()
        return self._set

    def definition(self, name: str) -> SchemaNode | None:
        return self.schema_set.definition(name)

    def field(self, schema: SchemaNode, name: str) -> SchemaNode | None:
        return _resolved(schema.property(name))

    def items(self, schema: SchemaNode) -> SchemaNode | None:
        return _resolved(schema.target.items)

    def patch_meta(self, schema: SchemaNode, name: str) -> tuple[str, str | None]:
        properties = schema.target.properties
        prop = properties.get(name) if properties is not None else None
        if prop is None:
            return "", None
        # the extensions sit beside the `$ref`, on the property; else on the referenced schema
        target = prop.target
        strategy = prop.patch_strategy or target.patch_strategy
        merge_key = prop.patch_merge_key or target.patch_merge_key
        return strategy, (merge_key or None)


def _resolved(node: SchemaNode | None) -> SchemaNode | None:
    if node is None:
        return None
    target = node.target
    return None if is_dangling(target) else target


@cache
def default_lookup() -> DefinitionsLookup:
    """The lookup over the definitions of the Kubernetes version we serve."""
    return DefinitionsLookup()


def schema_for(group: str, version: str, kind: str) -> SchemaNode | None:
    """The root schema of a kind; None when it has none (merge without metadata)."""
    return registry().model(group, version, kind)
