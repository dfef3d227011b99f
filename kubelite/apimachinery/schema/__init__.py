"""One typed model of the schemas kubelite serves, shared by every layer that reads them.

Field validation (pruning and type checks), server-side apply's field sets, strategic merge's patch
metadata, quantity canonicalization and the OpenAPI documents all read a kind's schema. They read it
here: OpenAPI v3 / JSON-schema dicts are compiled once into `SchemaNode`s (model), with `$ref`s resolved
to shared definition nodes, cycles included (compiler), and kinds are looked up by group/version/kind in a
registry that starts with the built-in definitions and takes schemas added and removed while the server
runs, as a CustomResourceDefinition's structural schema is (registry). Each layer keeps its own compiled
form of a node (field validation's checkers, apply's atoms) in the node's `compiled` slot, so the forms
live exactly as long as the schema they were built from.
"""

from kubelite.apimachinery.schema.compiler import SchemaSet, is_dangling
from kubelite.apimachinery.schema.model import NO_DEFAULT, SchemaNode
from kubelite.apimachinery.schema.registry import SchemaRegistry, builtin_set, registry

__all__ = ["NO_DEFAULT", "SchemaNode", "SchemaRegistry", "SchemaSet", "builtin_set", "is_dangling", "registry"]
