"""What a CRD version's objects are defaulted and checked with (`VersionRules`), built from the CRD: its
schema's defaults and validation, its CEL rules, its selectable fields and its scale paths."""

from __future__ import annotations

from typing import Any

from kubelite.apiextensions import names
from kubelite.apiextensions.cel import SchemaRules
from kubelite.apiextensions.registry.customresource import ObjectValidator, VersionRules
from kubelite.apiextensions.schema import CustomResourceSchema
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import (
    NOT_SUPPORTED,
    REQUIRED,
    TOO_LONG,
    TOO_MANY,
    TYPE_INVALID,
    FieldError,
)
from kubelite.registry.apps.scale import ScalePaths


def _path(json_path: Any) -> tuple[str, ...]:
    return tuple(json_path.lstrip(".").split(".")) if isinstance(json_path, str) and json_path else ()


def _selector_at(path: tuple[str, ...]) -> Any:
    def selector(obj: Obj) -> str:
        value: Any = obj
        for key in path:
            if not isinstance(value, dict):
                return ""
            value = value.get(key)
        return value if isinstance(value, str) else ""

    return selector


def scale_paths(crd: Obj, version: str) -> tuple[ScalePaths | None, str, str]:
    scale = names.subresources(crd, version).get("scale")
    if not isinstance(scale, dict):
        return None, "", ""
    spec_path = str(scale.get("specReplicasPath") or "")
    status_path = str(scale.get("statusReplicasPath") or "")
    selector = _path(scale.get("labelSelectorPath"))
    paths = ScalePaths(_path(spec_path), _path(status_path), _selector_at(selector) if selector else None)
    return paths, spec_path, status_path


#: the schema errors after which kube does not run the CEL rules (its hasBlockingErr): the rules would read
#: values of the wrong type or missing ones
_BLOCKING = frozenset({REQUIRED, NOT_SUPPORTED, TOO_LONG, TOO_MANY, TYPE_INVALID})
_NOT_CHECKED = FieldError.invalid(
    "<nil>",
    None,
    "some validation rules were not checked because the object was invalid; correct the existing errors to "
    "complete validation",
)


def _with_rules(
    schema_errors: list[FieldError], cel: SchemaRules | None, obj: Obj, old: Obj | None
) -> list[FieldError]:
    if cel is None:
        return schema_errors
    if any(err.type in _BLOCKING for err in schema_errors):
        return [*schema_errors, _NOT_CHECKED]
    return [*schema_errors, *cel.validate(obj, old)]


def _schema_rules(
    schema: CustomResourceSchema, cel: SchemaRules | None
) -> tuple[Any, Any, tuple[ObjectValidator, ...], tuple[ObjectValidator, ...]]:
    def default(obj: Obj) -> None:
        # kube drops the nulls the schema neither allows nor defaults, then defaults
        schema.prune_nulls(obj)
        schema.default(obj)

    def validate(obj: Obj, old: Obj | None) -> list[FieldError]:
        errors = schema.validate(obj) if old is None else schema.validate_update(obj, old)
        return _with_rules(errors, cel, obj, old)

    def validate_status(obj: Obj, old: Obj | None) -> list[FieldError]:
        errors = schema.validate(obj) if old is None else schema.validate_status_update(obj, old)
        return _with_rules(errors, cel, obj, old)

    return default, (schema.default if schema.has_defaults else None), (validate,), (validate_status,)


def version_rules(crd: Obj, version: str) -> VersionRules:
    scale, spec_replicas, status_replicas = scale_paths(crd, version)
    found = names.schema(crd, version)
    default = read_default = None
    validators: tuple[ObjectValidator, ...] = ()
    status_validators: tuple[ObjectValidator, ...] = ()
    if found is not None:
        # the CRD's own validation has reported compile errors; a rule that failed to compile is not run
        compiled, _ = SchemaRules.compile(found, "")
        cel = None if compiled.empty else compiled
        default, read_default, validators, status_validators = _schema_rules(CustomResourceSchema(found), cel)
    return VersionRules(
        default=default,
        read_default=read_default,
        validators=validators,
        status_validators=status_validators,
        selectable_fields=names.selectable_fields(crd, version),
        scale=scale,
        spec_replicas_path=spec_replicas,
        status_replicas_path=status_replicas,
    )
