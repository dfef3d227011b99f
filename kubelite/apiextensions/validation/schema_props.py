"""A CRD's openAPIV3Schema: kube's validateCustomResourceDefinitionValidation and
ValidateCustomResourceDefinitionOpenAPISchema, on v1 schema dicts.

The OpenAPI keywords kube does not support are forbidden, the Kubernetes extensions (int-or-string,
preserve-unknown-fields, embedded-resource, list and map types) are checked for consistency, defaults are kept out
of metadata, and the static shape of each x-kubernetes-validations rule is checked (compiling its CEL is not done
here). When the CRD needs a structural schema the structural rules run first and defaults are handed to the
caller's DefaultChecker once the schema is structural.

kube walks properties in Go's random map order; here they are walked sorted by name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from kubelite.apiextensions.validation.fieldpath import FieldPathError, resolve_field_path
from kubelite.apiextensions.validation.internal import as_dict, as_list, as_str, items_value, schema_value
from kubelite.apiextensions.validation.options import Options
from kubelite.apiextensions.validation.paths import child, key
from kubelite.apiextensions.validation.structural import structural_error, validate_structural
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FieldError, RawValue

OPENAPI_V3_TYPES: Final = ["array", "boolean", "integer", "number", "object", "string"]
_META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})
SUPPORTED_RULE_REASONS: Final = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
]
_NEWLINES_RE: Final = re.compile(r"[\n\r]+")

#: the internal JSONSchemaProps fields in declaration order, with their v1 keys
_INTERNAL_FIELDS: Final = (
    ("ID", "id"), ("Schema", "$schema"), ("Ref", "$ref"), ("Description", "description"), ("Type", "type"),
    ("Nullable", "nullable"), ("Format", "format"), ("Title", "title"), ("Default", "default"),
    ("Maximum", "maximum"), ("ExclusiveMaximum", "exclusiveMaximum"), ("Minimum", "minimum"),
    ("ExclusiveMinimum", "exclusiveMinimum"), ("MaxLength", "maxLength"), ("MinLength", "minLength"),
    ("Pattern", "pattern"), ("MaxItems", "maxItems"), ("MinItems", "minItems"), ("UniqueItems", "uniqueItems"),
    ("MultipleOf", "multipleOf"), ("Enum", "enum"), ("MaxProperties", "maxProperties"),
    ("MinProperties", "minProperties"), ("Required", "required"), ("Items", "items"), ("AllOf", "allOf"),
    ("OneOf", "oneOf"), ("AnyOf", "anyOf"), ("Not", "not"), ("Properties", "properties"),
    ("AdditionalProperties", "additionalProperties"), ("PatternProperties", "patternProperties"),
    ("Dependencies", "dependencies"), ("AdditionalItems", "additionalItems"), ("Definitions", "definitions"),
    ("ExternalDocs", "externalDocs"), ("Example", "example"),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields"),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource"), ("XIntOrString", "x-kubernetes-int-or-string"),
    ("XListMapKeys", "x-kubernetes-list-map-keys"), ("XListType", "x-kubernetes-list-type"),
    ("XMapType", "x-kubernetes-map-type"), ("XValidations", "x-kubernetes-validations"),
)  # fmt: skip
ALLOWED_AT_ROOT_WITH_STATUS: Final = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum",
    "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items",
    "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations",
)  # fmt: skip


def _go_zero(value: Any) -> bool:
    # absent, a nil pointer, "", false: what reflect.Zero compares equal to (an empty list or map is not nil)
    return value is None or value is False or value == ""


@dataclass(frozen=True, slots=True)
class _Context:
    """kube's specStandardValidatorV3: what the position in the schema allows."""

    allow_defaults: bool
    disallow_defaults_reason: str = ""
    inside_resource_meta: bool = False
    require_valid_property_type: bool = True

    def forbidding_defaults(self, reason: str) -> _Context:
        return replace(self, allow_defaults=False, disallow_defaults_reason=reason)


def validate_validation(validation: Any, status_enabled: bool, opts: Options, path: str) -> list[FieldError]:
    """validateCustomResourceDefinitionValidation: `validation` is a CustomResourceValidation
    (`{openAPIV3Schema: ...}`) at `path`."""
    if not isinstance(validation, Mapping):
        return []
    schema = validation.get("openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return []
    schema_path = child(path, "openAPIV3Schema")
    errs: list[FieldError] = []
    if status_enabled:
        errs += _root_with_status(schema, schema_path)
    if schema.get("nullable") is True:
        errs.append(FieldError.forbidden(child(schema_path, "nullable"), "nullable cannot be true at the root"))

    init_errs: list[FieldError] = []
    if opts.require_structural_schema:
        if problem := structural_error(schema, opts.structural_cache):
            # these overlap with the schema errors below and are only shown when there are none
            init_errs.append(FieldError.invalid(schema_path, "", problem))
        elif structural := validate_structural(schema, schema_path):
            errs += structural
        elif opts.check_default is not None:
            errs += _check_defaults(schema, schema_path, opts)
    context = _Context(allow_defaults=opts.allow_defaults, require_valid_property_type=opts.require_valid_property_type)
    errs += validate_openapi_schema(schema, schema_path, context, True, opts)
    if not errs:
        errs += init_errs
    return errs


def _root_with_status(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    # status is validated as properties["status"] alone, so a root keyword that would be lost is refused
    for go_name, v1_key in _INTERNAL_FIELDS:
        value = schema.get(v1_key)
        if _go_zero(value):
            continue
        if go_name == "Type":
            if value != "object":
                detail = (
                    'only "object" is allowed as the type at the root of the schema if the status subresource is'
                    " enabled"
                )
                return [FieldError.invalid(child(path, "type"), value, detail)]
            continue
        if go_name not in ALLOWED_AT_ROOT_WITH_STATUS:
            allowed = "[" + " ".join(ALLOWED_AT_ROOT_WITH_STATUS) + "]"
            detail = f"only {allowed} fields are allowed at the root of the schema if the status subresource is enabled"
            return [FieldError.invalid(path, schema_value(schema), detail)]
    return []


def _check_defaults(schema: Mapping[str, Any], path: str, opts: Options) -> list[FieldError]:
    """Every default in the structural part (not under additionalProperties, where defaults are forbidden)."""
    assert opts.check_default is not None
    errs: list[FieldError] = []
    if schema.get("default") is not None:
        errs += opts.check_default(schema["default"], schema, child(path, "default"))
    items = schema.get("items")
    if isinstance(items, Mapping):
        errs += _check_defaults(items, child(path, "items"), opts)
    properties = as_dict(schema.get("properties"))
    for name in sorted(properties):
        if isinstance(properties[name], Mapping):
            errs += _check_defaults(properties[name], key(child(path, "properties"), name), opts)
    return errs


def _own_keywords(schema: Mapping[str, Any], path: str, ctx: _Context) -> list[FieldError]:
    """specStandardValidatorV3.validate: the keywords of one node."""
    errs: list[FieldError] = []
    schema_type = as_str(schema.get("type"))
    if ctx.require_valid_property_type and schema_type and schema_type not in OPENAPI_V3_TYPES:
        errs.append(FieldError.not_supported(child(path, "type"), schema_type, OPENAPI_V3_TYPES))
    if schema.get("default") is not None and not ctx.allow_defaults:
        detail = "must not be set"
        if ctx.disallow_defaults_reason:
            detail += " " + ctx.disallow_defaults_reason
        errs.append(FieldError.forbidden(child(path, "default"), detail))
    if as_str(schema.get("id")):
        errs.append(FieldError.forbidden(child(path, "id"), "id is not supported"))
    if schema.get("additionalItems") is not None:
        errs.append(FieldError.forbidden(child(path, "additionalItems"), "additionalItems is not supported"))
    if as_dict(schema.get("patternProperties")):
        errs.append(FieldError.forbidden(child(path, "patternProperties"), "patternProperties is not supported"))
    if as_dict(schema.get("definitions")):
        errs.append(FieldError.forbidden(child(path, "definitions"), "definitions is not supported"))
    if schema.get("dependencies") is not None:
        errs.append(FieldError.forbidden(child(path, "dependencies"), "dependencies is not supported"))
    if schema.get("$ref") is not None:
        errs.append(FieldError.forbidden(child(path, "$ref"), "$ref is not supported"))
    if schema_type == "null":
        errs.append(
            FieldError.forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative")
        )
    if isinstance(schema.get("items"), list) and schema["items"]:
        errs.append(FieldError.forbidden(child(path, "items"), "items must be a schema object and not an array"))
    if ctx.inside_resource_meta and schema.get("x-kubernetes-embedded-resource") is True:
        errs.append(
            FieldError.forbidden(
                child(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"
            )
        )
    return errs


def validate_openapi_schema(schema: Any, path: str, ctx: _Context, is_root: bool, opts: Options) -> list[FieldError]:
    """ValidateCustomResourceDefinitionOpenAPISchema without the CEL compilation of x-kubernetes-validations."""
    if not isinstance(schema, Mapping):
        return []
    errs = _own_keywords(schema, path, ctx)
    if schema.get("uniqueItems") is True:
        errs.append(
            FieldError.forbidden(
                child(path, "uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )
        )
    properties = as_dict(schema.get("properties"))
    additional = schema.get("additionalProperties")
    if additional is not None:
        # properties describe a struct, additionalProperties a map: together they would contradict pruning
        if properties and additional is not True:
            errs.append(
                FieldError.forbidden(
                    child(path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"
                )
            )
        sub = ctx
        if ctx.inside_resource_meta:
            # pruning a default without its map key would be ambiguous
            sub = ctx.forbidding_defaults("inside additionalProperties applying to object metadata")
        errs += validate_openapi_schema(additional, child(path, "additionalProperties"), sub, False, opts)
    for name in sorted(properties):
        sub = ctx
        if (is_root or schema.get("x-kubernetes-embedded-resource") is True) and name in _META_FIELDS:
            sub = replace(sub, inside_resource_meta=True)
            if is_root:
                sub = sub.forbidding_defaults(f"in top-level {name}")
        errs += validate_openapi_schema(properties[name], key(child(path, "properties"), name), sub, False, opts)
    errs += validate_openapi_schema(schema.get("not"), child(path, "not"), ctx, False, opts)
    for junctor in ("allOf", "oneOf", "anyOf"):
        for i, clause in enumerate(as_list(schema.get(junctor))):
            errs += validate_openapi_schema(clause, key(child(path, junctor), i), ctx, False, opts)
    definitions = as_dict(schema.get("definitions"))
    for name in sorted(definitions):
        errs += validate_openapi_schema(definitions[name], key(child(path, "definitions"), name), ctx, False, opts)
    items = schema.get("items")
    if isinstance(items, Mapping):
        errs += validate_openapi_schema(items, child(path, "items"), ctx, False, opts)
    elif isinstance(items, list):
        for i, item in enumerate(items):
            errs += validate_openapi_schema(item, key(child(path, "items"), i), ctx, False, opts)
    dependencies = as_dict(schema.get("dependencies"))
    for name in sorted(dependencies):
        errs += validate_openapi_schema(dependencies[name], key(child(path, "dependencies"), name), ctx, False, opts)
    errs += _extensions(schema, path, opts)
    errs += _rules(schema, path, opts)
    return errs


def _json(value: Any) -> RawValue:
    return RawValue(gofmt.json(value))


def _extensions(schema: Mapping[str, Any], path: str, opts: Options) -> list[FieldError]:
    errs: list[FieldError] = []
    schema_type = as_str(schema.get("type"))
    if schema.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(
            FieldError.invalid(child(path, "x-kubernetes-preserve-unknown-fields"), False, "must be true or undefined")
        )
    map_type = schema.get("x-kubernetes-map-type")
    if map_type is not None and schema_type != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        if not schema_type:
            errs.append(FieldError.required(child(path, "type"), detail))
        else:
            errs.append(FieldError.invalid(child(path, "type"), schema_type, detail))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(FieldError.not_supported(child(path, "x-kubernetes-map-type"), map_type, ["atomic", "granular"]))

    list_type = schema.get("x-kubernetes-list-type")
    items = schema.get("items")
    item = items if isinstance(items, Mapping) else None
    if list_type is not None and schema_type != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        if not schema_type:
            errs.append(FieldError.required(child(path, "type"), detail))
        else:
            errs.append(FieldError.invalid(child(path, "type"), schema_type, detail))
    elif opts.require_atomic_set_type and list_type == "set" and item is not None:
        detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
        item_list_type = item.get("x-kubernetes-list-type")
        if item.get("type") == "array":
            if item_list_type is not None and item_list_type != "atomic":
                errs.append(
                    FieldError.invalid(child(path, "items", "x-kubernetes-list-type"), _json(item_list_type), detail)
                )
        elif item.get("type") == "object":
            if item.get("x-kubernetes-map-type") != "atomic":
                # kube reports the item's list type here, whatever it is
                errs.append(
                    FieldError.invalid(child(path, "items", "x-kubernetes-map-type"), _json(item_list_type), detail)
                )
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(
            FieldError.not_supported(child(path, "x-kubernetes-list-type"), list_type, ["atomic", "set", "map"])
        )
    map_keys = as_list(schema.get("x-kubernetes-list-map-keys"))
    if map_keys:
        detail = "must be map if x-kubernetes-list-map-keys is non-empty"
        if list_type is None:
            errs.append(FieldError.required(child(path, "x-kubernetes-list-type"), detail))
        elif list_type != "map":
            errs.append(FieldError.invalid(child(path, "x-kubernetes-list-type"), list_type, detail))
    if list_type == "map":
        if not map_keys:
            errs.append(
                FieldError.required(
                    child(path, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"
                )
            )
        if items is None:
            errs.append(
                FieldError.required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map")
            )
        elif item is None:
            errs.append(
                FieldError.invalid(
                    child(path, "items"),
                    items_value(items),
                    "must only have a single schema if x-kubernetes-list-type is map",
                )
            )
        if item is not None and item.get("type") != "object":
            errs.append(
                FieldError.invalid(
                    child(path, "items", "type"),
                    as_str(item.get("type")),
                    "must be object if parent array's x-kubernetes-list-type is map",
                )
            )
        if item is not None and item.get("type") == "object":
            item_properties = as_dict(item.get("properties"))
            seen: set[str] = set()
            for map_key in map_keys:
                map_key = as_str(map_key)
                if map_key in item_properties:
                    if as_dict(item_properties[map_key]).get("type") in ("array", "object"):
                        errs.append(
                            FieldError.invalid(
                                child(key(child(path, "items", "properties"), map_key), "type"),
                                "object",
                                "must be a scalar type if parent array's x-kubernetes-list-type is map",
                            )
                        )
                else:
                    errs.append(
                        FieldError.invalid(
                            child(path, "x-kubernetes-list-map-keys"), map_keys,
                            "entries must all be names of item properties",
                        )
                    )  # fmt: skip
                if map_key in seen:
                    errs.append(
                        FieldError.invalid(
                            child(path, "x-kubernetes-list-map-keys"), map_keys, "must not contain duplicate entries"
                        )
                    )
                seen.add(map_key)
    if opts.require_map_list_keys_map_set_validation:
        errs += map_list_keys_map_set(schema, path)
    return errs


def map_list_keys_map_set(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """validateMapListKeysMapSet: set and map items are never null; map keys are required or defaulted."""
    item = schema.get("items")
    list_type = schema.get("x-kubernetes-list-type")
    if not isinstance(item, Mapping) or list_type not in ("set", "map"):
        return []
    errs: list[FieldError] = []
    if item.get("nullable") is True:
        errs.append(
            FieldError.forbidden(
                child(path, "items", "nullable"), f"cannot be nullable when x-kubernetes-list-type is {list_type}"
            )
        )
    if list_type == "map":
        required = {as_str(name) for name in as_list(item.get("required"))}
        properties = as_dict(item.get("properties"))
        for map_key in as_list(schema.get("x-kubernetes-list-map-keys")):
            map_key = as_str(map_key)
            prop = properties.get(map_key)
            if not isinstance(prop, Mapping):
                continue  # reported as not an item property
            key_path = key(child(path, "items", "properties"), map_key)
            if map_key not in required and prop.get("default") is None:
                errs.append(
                    FieldError.required(
                        child(key_path, "default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required"
                        " property",
                    )
                )
            if prop.get("nullable") is True:
                errs.append(
                    FieldError.forbidden(
                        child(key_path, "nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    )
                )
    return errs


def _rules(schema: Mapping[str, Any], path: str, opts: Options) -> list[FieldError]:
    """The static shape of each x-kubernetes-validations rule."""
    errs: list[FieldError] = []
    for i, raw_rule in enumerate(as_list(schema.get("x-kubernetes-validations"))):
        rule = as_dict(raw_rule)
        rule_path = key(child(path, "x-kubernetes-validations"), i)
        text, message = as_str(rule.get("rule")), as_str(rule.get("message"))
        message_expression = as_str(rule.get("messageExpression"))
        trimmed_rule, trimmed_message = text.strip(), message.strip()
        if not trimmed_rule:
            errs.append(FieldError.required(child(rule_path, "rule"), "rule is not specified"))
        elif message and not trimmed_message:
            errs.append(FieldError.invalid(child(rule_path, "message"), message, "must be non-empty if specified"))
        elif _NEWLINES_RE.search(trimmed_message):
            errs.append(FieldError.invalid(child(rule_path, "message"), message, "must not contain line breaks"))
        elif _NEWLINES_RE.search(trimmed_rule) and not trimmed_message:
            errs.append(
                FieldError.required(
                    child(rule_path, "message"), "message must be specified if rule contains line breaks"
                )
            )
        if message_expression and not message_expression.strip():
            errs.append(
                FieldError.required(
                    child(rule_path, "messageExpression"), "messageExpression must be non-empty if specified"
                )
            )
        reason = rule.get("reason")
        if isinstance(reason, str) and reason not in SUPPORTED_RULE_REASONS:
            errs.append(FieldError.not_supported(child(rule_path, "reason"), reason, SUPPORTED_RULE_REASONS))
        field_path = as_str(rule.get("fieldPath"))
        if field_path and not field_path.strip():
            errs.append(FieldError.invalid(child(rule_path, "fieldPath"), field_path, "must be non-empty if specified"))
        if _NEWLINES_RE.search(field_path):
            errs.append(FieldError.invalid(child(rule_path, "fieldPath"), field_path, "must not contain line breaks"))
        if field_path and not _field_path_valid(schema, field_path, opts):
            errs.append(FieldError.invalid(child(rule_path, "fieldPath"), field_path, "must be a valid path"))
    return errs


def _field_path_valid(schema: Mapping[str, Any], field_path: str, opts: Options) -> bool:
    if structural_error(schema, opts.structural_cache) is not None:
        return True  # reported elsewhere; the path cannot be judged against it
    try:
        resolve_field_path(field_path, schema)
    except FieldPathError:
        return False
    return True
