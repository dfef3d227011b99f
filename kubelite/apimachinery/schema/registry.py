"""The schema of each kind, by group/version/kind: the built-in kinds' published schemas, and schemas
added while the server runs (a CustomResourceDefinition's structural schema, one per served version).

Every layer asks `registry().model(group, version, kind)` for a kind's root node; a kind without a schema
gets None, which each layer reads as "any fields" (kube's schemaless objects). A schema added for a kind
shadows a built-in one of the same kind, and removing it makes the built-in one visible again.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import cache
from typing import Any

from kubelite.apimachinery import schema_definitions
from kubelite.apimachinery.schema.compiler import SchemaSet
from kubelite.apimachinery.schema.model import SchemaNode

GVK = tuple[str, str, str]


@cache
def builtin_set() -> SchemaSet:
    """The definitions of the Kubernetes version we serve (read on first use)."""
    return SchemaSet(schema_definitions.definitions())


class SchemaRegistry:
    """Root nodes by (group, version, kind)."""

    def __init__(self, builtin: SchemaSet | None = None, index: Mapping[GVK, str] | None = None) -> None:
        # None: the built-in definitions and their gvk index, read on first use
        self._builtin = builtin
        self._index = index
        self._added: dict[GVK, SchemaNode] = {}
        #: built-in kinds already looked up (None: the kind has no schema)
        self._builtin_models: dict[GVK, SchemaNode | None] = {}
        self._lock = threading.Lock()

    @property
    def builtin(self) -> SchemaSet:
        if self._builtin is None:
            self._builtin = builtin_set()
        return self._builtin

    def definition_name(self, group: str, version: str, kind: str) -> str | None:
        """The name of the built-in definition of a kind, or None."""
        index = self._index if self._index is not None else schema_definitions.gvk_index()
        return index.get((group, version, kind))

    def model(self, group: str, version: str, kind: str) -> SchemaNode | None:
        """The root node of a kind's schema; None when the kind has none."""
        gvk = (group, version, kind)
        if self._added:
            added = self._added.get(gvk)
            if added is not None:
                return added
        try:
            return self._builtin_models[gvk]
        except KeyError:
            name = self.definition_name(group, version, kind)
            model = None if name is None else self.builtin.definition(name)
            self._builtin_models[gvk] = model
            return model

    def add(self, group: str, version: str, kind: str, schema: Mapping[str, Any]) -> SchemaNode:
        """Compile an OpenAPI v3 schema as the kind's model (replacing one added before) and return it.
        References in it resolve against the schema's own `definitions` / `$defs`, then the built-in set."""
        if not isinstance(schema, Mapping):
            raise TypeError(f"the schema of {kind}.{version}.{group} must be an object, not {type(schema).__name__}")
        own = schema.get("$defs") or schema.get("definitions") or {}
        node = SchemaSet(own if isinstance(own, Mapping) else {}, parent=self.builtin).compile(schema)
        with self._lock:
            added = dict(self._added)
            added[(group, version, kind)] = node
            self._added = added  # readers see the old or the new mapping, never a half-built one
        return node

    def remove(self, group: str, version: str, kind: str) -> bool:
        """Forget a schema added for the kind; False when none was."""
        with self._lock:
            if (group, version, kind) not in self._added:
                return False
            added = dict(self._added)
            del added[(group, version, kind)]
            self._added = added
        return True

    def added(self) -> list[GVK]:
        """The kinds with a schema added at run time."""
        return sorted(self._added)


@cache
def registry() -> SchemaRegistry:
    """The process's registry."""
    return SchemaRegistry()
