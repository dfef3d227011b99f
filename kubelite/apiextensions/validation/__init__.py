"""Validation of CustomResourceDefinitions (apiextensions.k8s.io/v1 objects as dicts), as kube's
apiextensions-apiserver validates them: same rules, same field paths, same messages.

- `crd`: the object, its spec, status, update rules and API approval;
- `versions`, `conversion`, `webhook`, `names`: the parts of the spec;
- `schema_props`: the openAPIV3Schema keywords and extensions; `structural`: structural schemas;
- `internal`: the internal layout kube validates and prints, `fieldpath`: JSON paths into a schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.validation.crd import validate_crd, validate_crd_status, validate_crd_update
from kubelite.apiextensions.validation.options import DefaultChecker
from kubelite.apiextensions.validation.structural import structural_error, validate_structural
from kubelite.apimachinery.validation import FieldError


def is_structural(schema: Mapping[str, Any], path: str = "") -> list[FieldError]:
    """The structural violations of a schema (kube's ValidateStructural, or NewStructural's one error as an
    Invalid at `path`); empty when the schema is structural."""
    if problem := structural_error(schema):
        return [FieldError.invalid(path, "", problem)]
    return validate_structural(schema, path)


__all__ = ["DefaultChecker", "is_structural", "validate_crd", "validate_crd_status", "validate_crd_update"]
