"""A CRD's whole validation as the registry runs it: kube's rules for the object (`apiextensions.validation`),
its defaults checked against their schema (`apiextensions.schema`), and its CEL rules compiled and cost-checked
(`apiextensions.cel`), each error reported once under kube's internal path for the schema it is in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kubelite.apiextensions.cel import SchemaRules
from kubelite.apiextensions.schema import validate_value
from kubelite.apiextensions.validation import validate_crd, validate_crd_update
from kubelite.apiextensions.validation.internal import internal_spec
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError


def _schemas(crd: Obj) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Each schema to compile, with the path kube reports it under: `spec.validation` when every version has
    the same one (kube's internal layout), else each version's."""
    spec = crd.get("spec")
    if not isinstance(spec, Mapping):
        return
    internal = internal_spec(spec)
    hoisted = internal.get("validation")
    if isinstance(hoisted, Mapping):
        schema = hoisted.get("openAPIV3Schema")
        if isinstance(schema, Mapping):
            yield schema, "spec.validation.openAPIV3Schema"
        return
    for index, version in enumerate(internal.get("versions") or []):
        schema = ((version.get("schema") or {}) if isinstance(version, Mapping) else {}).get("openAPIV3Schema")
        if isinstance(schema, Mapping):
            yield schema, f"spec.versions[{index}].schema.openAPIV3Schema"


def _with_rules(found: list[FieldError], crd: Obj) -> list[FieldError]:
    seen = {str(err) for err in found}
    for schema, path in _schemas(crd):
        _, compile_errors = SchemaRules.compile(schema, path)
        for err in compile_errors:
            # a rule's own fields (rule, reason, fieldPath) are checked by both: report each finding once
            if str(err) not in seen:
                seen.add(str(err))
                found.append(err)
    return found


def validate(crd: Obj) -> list[FieldError]:
    return _with_rules(validate_crd(crd, check_default=validate_value), crd)


def validate_update(new: Obj, old: Obj) -> list[FieldError]:
    return _with_rules(validate_crd_update(new, old, check_default=validate_value), new)
