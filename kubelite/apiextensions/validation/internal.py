"""The internal form of a CRD that kube validates, and how kube prints its structs as bad values.

kube-apiserver converts an apiextensions.k8s.io/v1 CRD to its internal type before validating it, and the
conversion moves every per-version field (schema, subresources, additionalPrinterColumns, selectableFields) that
is identical in all versions up to the spec's top level (`spec.validation`, `spec.subresources`, ...). Error paths
follow that internal layout: a single-version CRD's schema errors read `spec.validation.openAPIV3Schema...`, and a
conversion webhook's settings read `spec.conversion.webhookClientConfig`. `internal_spec` reproduces the move.

An internal struct given as a bad value is printed by field.Error through encoding/json with Go's own field names
(the internal types carry no json tags) and every field present; `versions_value` and `schema_value` render the
two such values kube reports (`spec.versions` and a root schema).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import RawValue

PER_VERSION_FIELDS = (
    ("schema", "validation"),
    ("subresources", "subresources"),
    ("additionalPrinterColumns", "additionalPrinterColumns"),
    ("selectableFields", "selectableFields"),
)


_EMPTY: Mapping[str, Any] = {}


_INTERNAL_ONLY = frozenset({"version", "validation", "subresources", "additionalPrinterColumns", "selectableFields"})


def as_dict(value: Any) -> Mapping[str, Any]:
    # parsed JSON gives plain dicts: test their exact type before the (slow) abstract one
    if type(value) is dict or isinstance(value, Mapping):
        return value
    return _EMPTY


def as_list(value: Any) -> list[Any]:
    return value if type(value) is list or isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def internal_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The v1 spec as the internal type lays it out: identical per-version fields hoisted to the top level, the
    conversion webhook flattened, `version` set to the first version's name."""
    # v1 has no top-level schema fields: any left in the dict are unknown fields, not the internal ones
    out = {k: v for k, v in spec.items() if k not in _INTERNAL_ONLY}
    versions = [dict(v) if isinstance(v, Mapping) else {} for v in as_list(spec.get("versions"))]
    # a missing list stays nil (printed `null`), as the conversion leaves it
    out["versions"] = versions if isinstance(spec.get("versions"), list) else None
    if versions:
        out["version"] = as_str(versions[0].get("name"))
        for per_version, top_level in PER_VERSION_FIELDS:
            first = _present(versions[0].get(per_version))
            if all(_present(v.get(per_version)) == first for v in versions):
                if first is not None:
                    out[top_level] = first
                for v in versions:
                    v.pop(per_version, None)
    conversion = spec.get("conversion")
    if isinstance(conversion, Mapping):
        flat = {"strategy": conversion.get("strategy")}
        webhook = conversion.get("webhook")
        if isinstance(webhook, Mapping):
            if webhook.get("conversionReviewVersions") is not None:
                flat["conversionReviewVersions"] = webhook.get("conversionReviewVersions")
            if isinstance(webhook.get("clientConfig"), Mapping):
                flat["webhookClientConfig"] = webhook["clientConfig"]
        out["conversion"] = flat
    return out


def _present(value: Any) -> Any:
    # an absent field and a JSON null are both nil, and Semantic.DeepEqual holds an empty slice equal to nil
    return None if value is None or value == [] else value


# -- Go's json.Marshal of the internal structs ---------------------------------------------------------------


def _free(value: Any) -> Any:
    """A free-form JSON value (default, example, enum entry): Go marshals its maps with sorted keys."""
    if isinstance(value, Mapping):
        return {k: _free(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_free(v) for v in value]
    return value


def _str_list(value: Any) -> list[str] | None:
    return [str(v) for v in value] if isinstance(value, list) else None


def _schema_struct(schema: Any) -> dict[str, Any] | None:
    if not isinstance(schema, Mapping):
        return None
    s = schema

    def text(key: str) -> str:
        return as_str(s.get(key))

    def flag(key: str) -> bool:
        return s.get(key) is True

    def number(key: str) -> Any:
        value = s.get(key)
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    def schemas(key: str) -> list[Any] | None:
        value = s.get(key)
        return [_schema_struct(v) for v in value] if isinstance(value, list) else None

    def schema_map(key: str) -> dict[str, Any] | None:
        value = s.get(key)
        return {k: _schema_struct(value[k]) for k in sorted(value)} if isinstance(value, Mapping) else None

    def or_bool(key: str) -> dict[str, Any] | None:
        value = s.get(key)
        if isinstance(value, bool):
            return {"Allows": value, "Schema": None}
        if isinstance(value, Mapping):
            return {"Allows": True, "Schema": _schema_struct(value)}
        return None

    items = s.get("items")
    if isinstance(items, Mapping):
        items_struct: Any = {"Schema": _schema_struct(items), "JSONSchemas": None}
    elif isinstance(items, list):
        items_struct = {"Schema": None, "JSONSchemas": [_schema_struct(v) for v in items]}
    else:
        items_struct = None
    dependencies = s.get("dependencies")
    deps_struct: Any = None
    if isinstance(dependencies, Mapping):
        deps_struct = {}
        for key in sorted(dependencies):
            dep = dependencies[key]
            if isinstance(dep, list):
                deps_struct[key] = {"Schema": None, "Property": _str_list(dep)}
            else:
                deps_struct[key] = {"Schema": _schema_struct(dep), "Property": None}
    docs = s.get("externalDocs")
    rules = s.get("x-kubernetes-validations")
    return {
        "ID": text("id"),
        "Schema": text("$schema"),
        "Ref": s.get("$ref") if isinstance(s.get("$ref"), str) else None,
        "Description": text("description"),
        "Type": text("type"),
        "Nullable": flag("nullable"),
        "Format": text("format"),
        "Title": text("title"),
        "Default": _free(s.get("default")),
        "Maximum": number("maximum"),
        "ExclusiveMaximum": flag("exclusiveMaximum"),
        "Minimum": number("minimum"),
        "ExclusiveMinimum": flag("exclusiveMinimum"),
        "MaxLength": number("maxLength"),
        "MinLength": number("minLength"),
        "Pattern": text("pattern"),
        "MaxItems": number("maxItems"),
        "MinItems": number("minItems"),
        "UniqueItems": flag("uniqueItems"),
        "MultipleOf": number("multipleOf"),
        "Enum": _free(s.get("enum")) if isinstance(s.get("enum"), list) else None,
        "MaxProperties": number("maxProperties"),
        "MinProperties": number("minProperties"),
        "Required": _str_list(s.get("required")),
        "Items": items_struct,
        "AllOf": schemas("allOf"),
        "OneOf": schemas("oneOf"),
        "AnyOf": schemas("anyOf"),
        "Not": _schema_struct(s.get("not")),
        "Properties": schema_map("properties"),
        "AdditionalProperties": or_bool("additionalProperties"),
        "PatternProperties": schema_map("patternProperties"),
        "Dependencies": deps_struct,
        "AdditionalItems": or_bool("additionalItems"),
        "Definitions": schema_map("definitions"),
        "ExternalDocs": (
            {"Description": as_str(docs.get("description")), "URL": as_str(docs.get("url"))}
            if isinstance(docs, Mapping)
            else None
        ),
        "Example": _free(s.get("example")),
        "XPreserveUnknownFields": s.get("x-kubernetes-preserve-unknown-fields")
        if isinstance(s.get("x-kubernetes-preserve-unknown-fields"), bool)
        else None,
        "XEmbeddedResource": flag("x-kubernetes-embedded-resource"),
        "XIntOrString": flag("x-kubernetes-int-or-string"),
        "XListMapKeys": _str_list(s.get("x-kubernetes-list-map-keys")),
        "XListType": s.get("x-kubernetes-list-type") if isinstance(s.get("x-kubernetes-list-type"), str) else None,
        "XMapType": s.get("x-kubernetes-map-type") if isinstance(s.get("x-kubernetes-map-type"), str) else None,
        "XValidations": [_rule_struct(r) for r in rules] if isinstance(rules, list) else None,
    }


def _rule_struct(rule: Any) -> dict[str, Any]:
    r = as_dict(rule)
    return {
        "Rule": as_str(r.get("rule")),
        "Message": as_str(r.get("message")),
        "MessageExpression": as_str(r.get("messageExpression")),
        "Reason": r.get("reason") if isinstance(r.get("reason"), str) else None,
        "FieldPath": as_str(r.get("fieldPath")),
        "OptionalOldSelf": r.get("optionalOldSelf") if isinstance(r.get("optionalOldSelf"), bool) else None,
    }


def _validation_struct(validation: Any) -> dict[str, Any] | None:
    if not isinstance(validation, Mapping):
        return None
    return {"OpenAPIV3Schema": _schema_struct(validation.get("openAPIV3Schema"))}


def _subresources_struct(subresources: Any) -> dict[str, Any] | None:
    if not isinstance(subresources, Mapping):
        return None
    scale = subresources.get("scale")
    scale_struct = None
    if isinstance(scale, Mapping):
        selector = scale.get("labelSelectorPath")
        scale_struct = {
            "SpecReplicasPath": as_str(scale.get("specReplicasPath")),
            "StatusReplicasPath": as_str(scale.get("statusReplicasPath")),
            "LabelSelectorPath": selector if isinstance(selector, str) else None,
        }
    return {"Status": {} if isinstance(subresources.get("status"), Mapping) else None, "Scale": scale_struct}


def _columns_struct(columns: Any) -> list[dict[str, Any]] | None:
    if not isinstance(columns, list):
        return None
    out = []
    for column in columns:
        c = as_dict(column)
        priority = c.get("priority")
        out.append(
            {
                "Name": as_str(c.get("name")),
                "Type": as_str(c.get("type")),
                "Format": as_str(c.get("format")),
                "Description": as_str(c.get("description")),
                "Priority": priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
                "JSONPath": as_str(c.get("jsonPath")),
            }
        )
    return out


def _version_struct(version: Mapping[str, Any]) -> dict[str, Any]:
    warning = version.get("deprecationWarning")
    fields = version.get("selectableFields")
    return {
        "Name": as_str(version.get("name")),
        "Served": version.get("served") is True,
        "Storage": version.get("storage") is True,
        "Deprecated": version.get("deprecated") is True,
        "DeprecationWarning": warning if isinstance(warning, str) else None,
        "Schema": _validation_struct(version.get("schema")),
        "Subresources": _subresources_struct(version.get("subresources")),
        "AdditionalPrinterColumns": _columns_struct(version.get("additionalPrinterColumns")),
        "SelectableFields": (
            [{"JSONPath": as_str(as_dict(f).get("jsonPath"))} for f in fields] if isinstance(fields, list) else None
        ),
    }


def items_value(items: Any) -> RawValue:
    """An internal JSONSchemaPropsOrArray (`items`) as field.Error prints it."""
    value: dict[str, Any]
    if isinstance(items, list):
        value = {"Schema": None, "JSONSchemas": [_schema_struct(v) for v in items]}
    else:
        value = {"Schema": _schema_struct(items), "JSONSchemas": None}
    return RawValue(gofmt.json(value, sort_keys=False))


def versions_value(versions: Any) -> RawValue:
    """`spec.Versions` (internal) as field.Error prints it."""
    if not isinstance(versions, list):
        return RawValue("null")
    return RawValue(gofmt.json([_version_struct(as_dict(v)) for v in versions], sort_keys=False))


def schema_value(schema: Mapping[str, Any]) -> RawValue:
    """An internal JSONSchemaProps as field.Error prints it."""
    return RawValue(gofmt.json(_schema_struct(schema), sort_keys=False))


def bytes_value(text: str) -> RawValue:
    """A []byte bad value: encoding/json writes it base64-encoded."""
    return RawValue(gofmt.json(text))


def decode_base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (ValueError, TypeError):
        return None
