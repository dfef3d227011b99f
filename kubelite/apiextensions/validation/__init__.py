"""Validation of CustomResourceDefinitions (apiextensions.k8s.io/v1 objects as dicts), as kube's
apiextensions-apiserver validates them: same rules, same field paths, same messages.

- `crd`: the object, its spec, status, update rules and API approval;
- `versions`, `conversion`, `webhook`, `names`: the parts of the spec;
- `schema_props`: the openAPIV3Schema keywords and extensions; `structural`: structural schemas;
- `internal`: the internal layout kube validates and prints, `fieldpath`: JSON paths into a schema.

The object must already hold v1's defaults, as kube defaults before it validates: `names.singular` (the kind
lower-cased), `names.listKind` (kind + "List"), `conversion.strategy: None`, `status.storedVersions` (the storage
version when empty) and a webhook service's `port: 443`. Fields v1 does not know (a schema's `readOnly`, ...) are
the decoder's to drop or reject. Generic metadata checks (name format, labels, ...) are the registry's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.validation.crd import validate_crd, validate_crd_status, validate_crd_update
from kubelite.apiextensions.validation.options import DefaultChecker
from kubelite.apiextensions.validation.structural import structural_error, validate_structural
from kubelite.apimachinery.validation import FieldError


def is_structural(schema: Mapping[str, Any], path: str = "") -> list[FieldError]:
    """The structural violations of a v1 schema, kube's ValidateStructural(path, ...): sorted by text, paths
    under `path` (the NonStructuralSchema condition passes `spec.versions[i].schema.openAPIV3Schema`); empty when
    the schema is structural. A schema NewStructural cannot read at all gives its one error as an Invalid at
    `path`; `structural_error` returns that error alone (the condition's `StructuralError` reason)."""
    if problem := structural_error(schema):
        return [FieldError.invalid(path, "", problem)]
    return validate_structural(schema, path)


__all__ = [
    "DefaultChecker",
    "is_structural",
    "structural_error",
    "validate_crd",
    "validate_crd_status",
    "validate_crd_update",
]
