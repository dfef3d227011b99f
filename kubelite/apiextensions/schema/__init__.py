"""The schema semantics of custom resources: validation, defaulting, list types and embedded resources, all
from one CRD version's `openAPIV3Schema`.

`CustomResourceSchema` compiles the schema once (the CRD validator has already checked it) into trees of
small nodes, one per concern, each trimmed to the branches that concern needs; the per-object work is then
a walk of the object along those trees. What `validate` reports, in kube's order (the custom resource
strategy's Validate, less ObjectMeta, TypeMeta, scale and CEL rules, which are checked elsewhere):

1. OpenAPI v3 value validation (`validation.py`, kube-openapi with kube's error conversion);
2. the TypeMeta/ObjectMeta rules of embedded resources (`embedded.py`);
3. the uniqueness of set and map lists (`listtype.py`).

On update (`validate_update`, `validate_status_update`) errors are ratcheted as kube does by default: a value
error counts only where the value changed, a list-type error only when the old object had none.

Pruning happens before any of this, in the request path; `prune_nulls` is the null-dropping step kube runs
right after pruning, and `default` is applied on create, on update and when reading from storage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.schema.defaulting import compile_defaulting, prune_non_nullable_nulls
from kubelite.apiextensions.schema.embedded import compile_embedded
from kubelite.apiextensions.schema.listtype import compile_list_types
from kubelite.apiextensions.schema.patterns import compile_error as pattern_compile_error
from kubelite.apiextensions.schema.structural import StructuralNode
from kubelite.apiextensions.schema.validation import RawError, SchemaNode, to_field_errors, validate_value
from kubelite.apimachinery.validation import FieldError

__all__ = ["CustomResourceSchema", "FieldError", "pattern_compile_error", "validate_value"]


class CustomResourceSchema:
    """One CRD version's schema, compiled for the custom resource request path."""

    __slots__ = ("_defaults", "_embedded", "_list_types", "_status_validator", "_structural", "_validator")

    def __init__(self, openapi_v3_schema: Mapping[str, Any]) -> None:
        self._validator = SchemaNode(openapi_v3_schema)
        status_schema = (openapi_v3_schema.get("properties") or {}).get("status")
        # the status subresource validates `status` alone, against the schema's status property
        self._status_validator = SchemaNode(status_schema) if isinstance(status_schema, Mapping) else None
        self._structural = StructuralNode(openapi_v3_schema)
        self._defaults = compile_defaulting(self._structural)
        self._embedded = compile_embedded(self._structural)
        self._list_types = compile_list_types(self._structural)

    @property
    def has_defaults(self) -> bool:
        """Whether the schema declares any default (then objects are defaulted on every read too)."""
        return self._defaults is not None

    def default(self, obj: dict[str, Any]) -> None:
        """Apply the schema's defaults to `obj`, in place (structuraldefaulting.Default)."""
        if self._defaults is not None:
            self._defaults.apply(obj)

    def prune_nulls(self, obj: dict[str, Any]) -> None:
        """Drop nulls the schema neither allows nor defaults, in place (kube does this right after pruning)."""
        prune_non_nullable_nulls(obj, self._structural)

    def validate(self, obj: Mapping[str, Any]) -> list[FieldError]:
        """Every schema error of a whole custom resource, as on create."""
        errs = self._schema_errors(obj)
        errs.extend(self._list_type_errors(obj))
        return errs

    def validate_update(self, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
        """The schema errors of an updated custom resource, ratcheted as kube does (CRDValidationRatcheting,
        on by default): a value error counts only where the value differs from the old one, and set and map
        list errors only when the old object had none."""
        errs = self._schema_errors(new, old)
        list_errs = self._list_type_errors(new)
        if list_errs and not self._list_type_errors(old):
            errs.extend(list_errs)
        return errs

    def validate_status_update(self, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
        """The schema errors of a write to the status subresource: `status` against its own schema, errors
        under `status`, and the set and map lists of the whole object (all ratcheted as on update)."""
        errs: list[FieldError] = []
        if self._status_validator is not None and "status" in new:
            raw: list[RawError] = []
            self._status_validator.validate_correlated(new["status"], old.get("status"), "", raw)
            errs = to_field_errors(raw, "status") if raw else []
        list_errs = self._list_type_errors(new)
        if list_errs and not self._list_type_errors(old):
            errs.extend(list_errs)
        return errs

    def _schema_errors(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
        raw: list[RawError] = []
        if old is None:
            self._validator.validate(obj, "", raw)
        else:
            self._validator.validate_correlated(obj, old, "", raw)
        errs = to_field_errors(raw) if raw else []
        if self._embedded is not None:
            self._embedded.validate(obj, "", errs)
        return errs

    def _list_type_errors(self, obj: Mapping[str, Any]) -> list[FieldError]:
        errs: list[FieldError] = []
        if self._list_types is not None:
            self._list_types.validate(obj, "", errs)
        return errs
