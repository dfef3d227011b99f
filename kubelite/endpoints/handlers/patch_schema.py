"""Patch metadata for strategic merge patch, read from the kinds' published schemas.

The strategic merge algorithm (kubelite.apimachinery.patch.strategic) needs to know, per field, whether a
list merges and by which key, and where a field's own schema is. kube reads that from Go struct tags; we
read the same facts from the OpenAPI extensions they are published as (`x-kubernetes-patch-strategy`,
`x-kubernetes-patch-merge-key`) in the kubernetes-validate definitions that also back our OpenAPI documents.

A node is a plain JSON-schema dict with its `$ref` resolved. Definitions are shared and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from kubelite.apimachinery import schema_definitions as schemas

_REF_PREFIX = "#/$defs/"
_STRATEGY = "x-kubernetes-patch-strategy"
_MERGE_KEY = "x-kubernetes-patch-merge-key"

Schema = dict[str, Any]


class DefinitionsLookup:
    """A SchemaLookup over named JSON-schema definitions that refer to each other as `#/$defs/<name>`."""

    def __init__(self, definitions: Mapping[str, Schema] | None = None) -> None:
        # None: the kubernetes-validate set, loaded on first use
        self._definitions = definitions

    @property
    def definitions(self) -> Mapping[str, Schema]:
        if self._definitions is None:
            self._definitions = schemas.definitions()
        return self._definitions

    def definition(self, name: str) -> Schema | None:
        return self.definitions.get(name)

    def field(self, schema: Schema, name: str) -> Schema | None:
        properties = schema.get("properties")
        if isinstance(properties, dict) and name in properties:
            return self._resolve(properties[name])
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            return self._resolve(values)
        return None

    def items(self, schema: Schema) -> Schema | None:
        return self._resolve(schema.get("items"))

    def patch_meta(self, schema: Schema, name: str) -> tuple[str, str | None]:
        properties = schema.get("properties")
        prop = properties.get(name) if isinstance(properties, dict) else None
        if not isinstance(prop, dict):
            return "", None
        # the extensions sit beside the `$ref`, on the property; fall back to the referenced schema
        target = self._resolve(prop) or {}
        strategy = prop.get(_STRATEGY, target.get(_STRATEGY, ""))
        merge_key = prop.get(_MERGE_KEY, target.get(_MERGE_KEY))
        return str(strategy or ""), (str(merge_key) if merge_key else None)

    def _resolve(self, node: Any) -> Schema | None:
        seen: set[str] = set()
        while isinstance(node, dict):
            ref = node.get("$ref")
            if ref is None:
                all_of = node.get("allOf")
                # a lone allOf wrapper is how OpenAPI v3 attaches siblings to a reference
                if isinstance(all_of, list) and len(all_of) == 1 and "properties" not in node:
                    node = all_of[0]
                    continue
                return node
            if not isinstance(ref, str) or ref in seen:
                return None
            seen.add(ref)
            node = self.definitions.get(ref.removeprefix(_REF_PREFIX))
        return None


@cache
def default_lookup() -> DefinitionsLookup:
    """The lookup over the definitions of the Kubernetes version we serve."""
    return DefinitionsLookup()


def schema_for(group: str, version: str, kind: str) -> Schema | None:
    """The root schema of a built-in kind; None when the schema set lacks it (merge without metadata)."""
    name = schemas.definition_for(group, version, kind)
    return None if name is None else default_lookup().definition(name)
