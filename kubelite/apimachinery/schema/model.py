"""The schema node: one JSON-schema / OpenAPI v3 schema, compiled into typed attributes.

A node holds what the layers ask of a schema: its JSON types, format, the nodes of its properties, items
and additionalProperties, the `x-kubernetes-*` extensions, required, enum, nullable and default. A `$ref`
is compiled into a use-site node whose `ref` is the shared node of the definition it names; the use site
keeps the keywords written beside the reference (a description, `x-kubernetes-map-type`, a patch
strategy), which win over the definition's own where a layer says so. Definitions that contain
themselves are one node referred to from inside itself, so walks over nodes must be driven by data.

Nodes are shared and read-only once compiled; `compiled` holds the forms other layers derive from a node
(keyed by the layer), built on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: `default` of a node that declares none (None is a default: JSON null)
NO_DEFAULT: Final[Any] = _NoDefault()


class SchemaNode:
    """One compiled schema. Attributes mirror the schema keywords; absent keywords read as empty."""

    __slots__ = (
        "additional",
        "additional_allowed",
        "compiled",
        "composite",
        "default",
        "embedded_resource",
        "enum",
        "format",
        "int_or_string",
        "items",
        "list_map_keys",
        "list_type",
        "map_type",
        "name",
        "nullable",
        "patch_merge_key",
        "patch_strategy",
        "preserve_unknown_fields",
        "properties",
        "ref",
        "required",
        "source",
        "types",
    )

    def __init__(self, source: Mapping[str, Any], name: str = "") -> None:
        #: the definition's name (`io.k8s.api.core.v1.Pod`) for a definition node; "" for inline schemas
        self.name = name
        #: the schema as published (for a reference: the keywords beside the `$ref`)
        self.source = source
        #: the definition a `$ref` (or a lone `allOf` wrapper around one) points to
        self.ref: SchemaNode | None = None
        #: the JSON types a value may have, `null` left out; from `type` and the branches of oneOf/anyOf
        self.types: frozenset[str] = frozenset()
        self.format = ""
        #: declared fields; None when the schema declares no `properties`
        self.properties: dict[str, SchemaNode] | None = None
        self.items: SchemaNode | None = None
        #: the schema of undeclared keys (`additionalProperties` as a schema)
        self.additional: SchemaNode | None = None
        #: `additionalProperties` given as a boolean; None when absent or a schema
        self.additional_allowed: bool | None = None
        self.required: tuple[str, ...] = ()
        self.enum: tuple[Any, ...] | None = None
        self.nullable = False
        self.default: Any = NO_DEFAULT
        #: oneOf / anyOf: the value is one of several shapes, not walked field by field
        self.composite = False
        self.list_type = ""  # x-kubernetes-list-type: atomic, set, map
        self.list_map_keys: tuple[str, ...] = ()  # x-kubernetes-list-map-keys
        self.map_type = ""  # x-kubernetes-map-type: atomic, granular
        self.patch_strategy = ""  # x-kubernetes-patch-strategy
        self.patch_merge_key = ""  # x-kubernetes-patch-merge-key
        self.int_or_string = False  # x-kubernetes-int-or-string
        self.preserve_unknown_fields = False  # x-kubernetes-preserve-unknown-fields
        self.embedded_resource = False  # x-kubernetes-embedded-resource
        self.compiled: dict[Any, Any] = {}

    @property
    def target(self) -> SchemaNode:
        """The node that describes the value: the referenced definition for a reference, else itself."""
        node = self
        seen = 0
        while node.ref is not None and seen < 16:  # a definition that is only a reference is followed on
            node = node.ref
            seen += 1
        return node

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def property(self, name: str) -> SchemaNode | None:
        """The node of field `name`: a declared property, else the additionalProperties schema."""
        target = self.target
        if target.properties is not None:
            found = target.properties.get(name)
            if found is not None:
                return found
        return target.additional

    def __repr__(self) -> str:
        if self.ref is not None:
            return f"SchemaNode(-> {self.ref.name})"
        return f"SchemaNode({self.name or '/'.join(sorted(self.types)) or 'any'})"
