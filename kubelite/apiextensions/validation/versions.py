"""One version of a CRD and the per-version (or top-level) fields it carries: deprecation warning, subresources,
additionalPrinterColumns and selectableFields (kube's validateCustomResourceDefinitionVersion and its helpers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kubelite.apiextensions.validation.fieldpath import FieldPathError, resolve_field_path
from kubelite.apiextensions.validation.internal import as_dict, as_list, as_str
from kubelite.apiextensions.validation.options import Options
from kubelite.apiextensions.validation.paths import child, key
from kubelite.apiextensions.validation.schema_props import validate_validation
from kubelite.apiextensions.validation.structural import structural_error
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FieldError, RawValue

PRINTER_COLUMN_TYPES: Final = ["boolean", "date", "integer", "number", "string"]
PRINTER_COLUMN_FORMATS: Final = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
MAX_SELECTABLE_FIELDS: Final = 8
_SELECTABLE_TYPES: Final = frozenset({"string", "boolean", "integer"})


def validate_version(version: Mapping[str, Any], path: str, status_enabled: bool, opts: Options) -> list[FieldError]:
    errs: list[FieldError] = []
    warning = version.get("deprecationWarning")
    for problem in deprecation_warning_errors(version.get("deprecated") is True, warning):
        # a *string bad value is printed as JSON
        errs.append(FieldError.invalid(child(path, "deprecationWarning"), RawValue(gofmt.json(warning)), problem))
    errs += validate_validation(version.get("schema"), status_enabled, opts, child(path, "schema"))
    errs += validate_subresources(version.get("subresources"), child(path, "subresources"))
    for i, column in enumerate(as_list(version.get("additionalPrinterColumns"))):
        errs += validate_column(as_dict(column), key(child(path, "additionalPrinterColumns"), i))
    fields = as_list(version.get("selectableFields"))
    if fields:
        schema = as_dict(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, Mapping):
            errs.append(
                FieldError.invalid(
                    child(path, "selectableFields"),
                    "",
                    "may only be set when `version.schema.openAPIV3Schema` is not included",
                )
            )
        else:
            errs += _selectable_fields_with_schema(fields, schema, path, opts, as_str(version.get("name")))
    return errs


def _selectable_fields_with_schema(
    fields: list[Any], schema: Mapping[str, Any], path: str, opts: Options, version_name: str
) -> list[FieldError]:
    if problem := structural_error(schema, opts.structural_cache):
        # kube goes on with a nil schema, on which every path fails to resolve
        return [FieldError.invalid(child(path, "schema.openAPIV3Schema"), "", problem)]
    return validate_selectable_fields(fields, schema, child(path, "selectableFields"), opts, version_name)


def deprecation_warning_errors(deprecated: bool, warning: Any) -> list[str]:
    if not deprecated and warning is not None:
        return ["can only be set for deprecated versions"]
    if not isinstance(warning, str):
        return []
    problems: list[str] = []
    if len(warning.encode("utf-8", "surrogatepass")) > 256:
        problems.append("must be <= 256 characters long")
    if not warning:
        problems.append("must not be an empty string")
    offset = 0
    for ch in warning:
        if not ch.isprintable():
            problems.append(
                f"must only contain printable UTF-8 characters; non-printable character found at index {offset}"
            )
            break
        offset += len(ch.encode("utf-8", "surrogatepass"))
    return problems


def validate_simple_json_path(value: str, path: str) -> list[FieldError]:
    if not value:
        return [FieldError.invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [FieldError.invalid(path, value, "must be a simple json path starting with .")]
    return []


def validate_subresources(subresources: Any, path: str) -> list[FieldError]:
    if not isinstance(subresources, Mapping):
        return []
    scale = subresources.get("scale")
    if not isinstance(scale, Mapping):
        return []
    errs: list[FieldError] = []
    for name, prefix, where in (("specReplicasPath", ".spec.", ".spec"), ("statusReplicasPath", ".status.", ".status")):
        value = as_str(scale.get(name))
        field_path = child(path, f"scale.{name}")
        if not value:
            errs.append(FieldError.required(field_path))
        elif bad := validate_simple_json_path(value, field_path):
            errs += bad
        elif not value.startswith(prefix):
            errs.append(FieldError.invalid(field_path, value, f"should be a json path under {where}"))
    selector = scale.get("labelSelectorPath")
    if isinstance(selector, str) and selector:
        field_path = child(path, "scale.labelSelectorPath")
        if bad := validate_simple_json_path(selector, field_path):
            errs += bad
        elif not selector.startswith((".spec.", ".status.")):
            errs.append(
                FieldError.invalid(
                    field_path, RawValue(gofmt.json(selector)), "should be a json path under either .spec or .status"
                )
            )
    return errs


def validate_column(column: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(column.get("name")):
        errs.append(FieldError.required(child(path, "name")))
    column_type = as_str(column.get("type"))
    types_detail = "must be one of " + ",".join(PRINTER_COLUMN_TYPES)
    if not column_type:
        errs.append(FieldError.required(child(path, "type"), types_detail))
    elif column_type not in PRINTER_COLUMN_TYPES:
        errs.append(FieldError.invalid(child(path, "type"), column_type, types_detail))
    column_format = as_str(column.get("format"))
    if column_format and column_format not in PRINTER_COLUMN_FORMATS:
        errs.append(
            FieldError.invalid(
                child(path, "format"), column_format, "must be one of " + ",".join(PRINTER_COLUMN_FORMATS)
            )
        )
    # kube names the internal field here, not the v1 `jsonPath`
    json_path = as_str(column.get("jsonPath"))
    if not json_path:
        errs.append(FieldError.required(child(path, "JSONPath")))
    else:
        errs += validate_simple_json_path(json_path, child(path, "JSONPath"))
    return errs


def validate_selectable_fields(
    fields: list[Any], schema: Mapping[str, Any], path: str, opts: Options, version_name: str
) -> list[FieldError]:
    errs: list[FieldError] = []
    unique: set[str] = set()
    for i, entry in enumerate(fields):
        json_path = as_str(as_dict(entry).get("jsonPath"))
        field_path = child(key(path, i), "jsonPath")
        if not json_path:
            errs.append(FieldError.required(field_path))
            continue
        try:
            resolved, found = resolve_field_path(json_path, schema, allow_array_notation=False)
        except FieldPathError as exc:
            errs.append(FieldError.invalid(field_path, json_path, f"is an invalid path: {exc}"))
            continue
        if resolved.split(".", 1)[0].split("[", 1)[0] == "metadata":
            errs.append(FieldError.invalid(field_path, json_path, "must not point to fields in metadata"))
        if found is None or found.get("type") not in _SELECTABLE_TYPES:
            errs.append(
                FieldError.invalid(
                    field_path,
                    json_path,
                    "must point to a field of type string, boolean or integer. Enum string fields and strings with"
                    " formats are allowed.",
                )
            )
        if resolved in unique:
            errs.append(FieldError.duplicate(field_path, json_path))
        else:
            unique.add(resolved)
    if len(unique) > MAX_SELECTABLE_FIELDS and not opts.allow_too_many_selectable_fields.get(version_name):
        errs.append(FieldError.too_many(path, len(unique), MAX_SELECTABLE_FIELDS))
    return errs
