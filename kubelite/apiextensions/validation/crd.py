"""A CustomResourceDefinition as a whole: kube's ValidateCustomResourceDefinition, ...Update and the status
update's validation (pkg/apis/apiextensions/validation/validation.go).

The object is validated in kube's internal layout (see `internal`), so paths and values read as kube prints
them. Generic object metadata (name format, labels, ...) is the registry's; only the CRD's own name rule is here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any, Final

from kubelite.apiextensions.validation import gourl
from kubelite.apiextensions.validation.conversion import has_valid_review_version_or_empty, validate_conversion
from kubelite.apiextensions.validation.internal import as_dict, as_list, as_str, internal_spec, versions_value
from kubelite.apiextensions.validation.names import validate_names
from kubelite.apiextensions.validation.options import DefaultChecker, Options
from kubelite.apiextensions.validation.paths import key
from kubelite.apiextensions.validation.schema_props import OPENAPI_V3_TYPES, map_list_keys_map_set, validate_validation
from kubelite.apiextensions.validation.structural import structural_error, validate_structural
from kubelite.apiextensions.validation.versions import (
    _selectable_fields_with_schema,
    validate_column,
    validate_subresources,
    validate_version,
)
from kubelite.apiextensions.validation.webhook import validate_ca_bundle
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import (
    FIELD_IMMUTABLE,
    FieldError,
    RawValue,
    is_dns1035_label,
    is_dns1123_subdomain,
)

SCOPES: Final = ["Cluster", "Namespaced"]
APPROVAL_ANNOTATION: Final = "api-approved.kubernetes.io"
_NAME_RULE: Final = 'must be spec.names.plural+"."+spec.group'


# -- walking schemas ------------------------------------------------------------------------------------


def _subschemas(schema: Mapping[str, Any]) -> Iterator[Any]:
    items = schema.get("items")
    if isinstance(items, list):
        yield from items
    else:
        yield items
    for junctor in ("allOf", "anyOf", "oneOf"):
        yield from as_list(schema.get(junctor))
    yield schema.get("not")
    for maps in ("properties", "patternProperties", "definitions", "dependencies"):
        yield from as_dict(schema.get(maps)).values()
    yield schema.get("additionalProperties")
    yield schema.get("additionalItems")


def schema_has(schema: Any, predicate: Callable[[Mapping[str, Any]], bool]) -> bool:
    """SchemaHas: whether any node of the schema satisfies the predicate."""
    if not isinstance(schema, Mapping):
        return False
    return predicate(schema) or any(schema_has(sub, predicate) for sub in _subschemas(schema))


def _schemas(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    top = as_dict(spec.get("validation")).get("openAPIV3Schema")
    if isinstance(top, Mapping):
        yield top
    for version in as_list(spec.get("versions")):
        found = as_dict(as_dict(version).get("schema")).get("openAPIV3Schema")
        if isinstance(found, Mapping):
            yield found


def has_schema_with(spec: Mapping[str, Any], predicate: Callable[[Mapping[str, Any]], bool]) -> bool:
    return any(predicate(s) for s in _schemas(spec))


def _has_defaults(schema: Mapping[str, Any]) -> bool:
    return schema_has(schema, lambda s: s.get("default") is not None)


def _has_kubernetes_extensions(node: Mapping[str, Any]) -> bool:
    return (
        node.get("x-kubernetes-embedded-resource") is True
        or node.get("x-kubernetes-preserve-unknown-fields") is not None
        or node.get("x-kubernetes-int-or-string") is True
        or bool(as_list(node.get("x-kubernetes-list-map-keys")))
        or node.get("x-kubernetes-list-type") is not None
        or bool(as_list(node.get("x-kubernetes-validations")))
    )


def _is_non_structural(schema: Mapping[str, Any]) -> bool:
    return structural_error(schema) is not None or bool(validate_structural(schema))


def _has_non_atomic_set(node: Mapping[str, Any]) -> bool:
    item = node.get("items")
    if node.get("x-kubernetes-list-type") != "set" or not isinstance(item, Mapping):
        return False
    if item.get("type") == "array":
        return item.get("x-kubernetes-list-type") not in (None, "atomic")
    if item.get("type") == "object":
        return item.get("x-kubernetes-map-type") != "atomic"
    return False


def _has_invalid_type(node: Mapping[str, Any]) -> bool:
    schema_type = as_str(node.get("type"))
    return bool(schema_type) and schema_type not in OPENAPI_V3_TYPES


def _all_versions_have_schema(spec: Mapping[str, Any]) -> bool:
    if isinstance(as_dict(spec.get("validation")).get("openAPIV3Schema"), Mapping):
        return True
    return all(
        isinstance(as_dict(as_dict(v).get("schema")).get("openAPIV3Schema"), Mapping)
        for v in as_list(spec.get("versions"))
    )


# -- the spec -------------------------------------------------------------------------------------------


def _has_status(subresources: Any) -> bool:
    return isinstance(as_dict(subresources).get("status"), Mapping)


def _subresources_for(spec: Mapping[str, Any], name: str) -> Any:
    versions = [as_dict(v) for v in as_list(spec.get("versions"))]
    if not any(v.get("subresources") is not None for v in versions):
        return spec.get("subresources")
    for v in versions:
        if v.get("name") == name:
            return v.get("subresources")
    return None


def _identical_per_version(versions: list[Mapping[str, Any]], name: str) -> bool:
    if not versions:
        return False
    first = versions[0].get(name)
    return all(v.get(name) not in (None, []) and v.get(name) == first for v in versions)


def validate_spec(spec: Mapping[str, Any], opts: Options, path: str = "spec") -> list[FieldError]:
    """validateCustomResourceDefinitionSpec on the internal layout."""
    errs: list[FieldError] = []
    group = as_str(spec.get("group"))
    if not group:
        errs.append(FieldError.required(f"{path}.group"))
    elif problems := is_dns1123_subdomain(group):
        errs.append(FieldError.invalid(f"{path}.group", group, ",".join(problems)))
    elif len(group.split(".")) < 2:
        errs.append(FieldError.invalid(f"{path}.group", group, "should be a domain with at least one dot"))

    scope = as_str(spec.get("scope"))
    if not scope:
        errs.append(FieldError.required(f"{path}.scope"))
    elif scope not in SCOPES:
        errs.append(FieldError.not_supported(f"{path}.scope", scope, SCOPES))

    # v1's preserveUnknownFields is a plain bool, so it is never unset here
    preserve_unknown = spec.get("preserveUnknownFields") is True
    if not preserve_unknown:
        opts = opts.with_structural_required()  # pruning needs a structural schema
    versions = [as_dict(v) for v in as_list(spec.get("versions"))]
    has_top_schema = isinstance(as_dict(spec.get("validation")).get("openAPIV3Schema"), Mapping)
    if not has_top_schema:
        for i, v in enumerate(versions):
            if isinstance(as_dict(v.get("schema")).get("openAPIV3Schema"), Mapping):
                continue
            schema_path = f"{path}.versions[{i}].schema.openAPIV3Schema"
            if opts.require_openapi_schema:
                errs.append(FieldError.required(schema_path))
            elif not preserve_unknown and v.get("served") is True:
                errs.append(FieldError.required(schema_path, "because otherwise all fields are pruned"))
    if opts.allow_defaults and has_schema_with(spec, _has_defaults):
        opts = opts.with_structural_required()
        if preserve_unknown:
            errs.append(
                FieldError.invalid(
                    f"{path}.preserveUnknownFields", True, "must be false in order to use defaults in the schema"
                )
            )
    if has_schema_with(spec, lambda s: schema_has(s, _has_kubernetes_extensions)):
        opts = opts.with_structural_required()

    storage_count = 0
    seen: set[str] = set()
    unique = True
    for i, v in enumerate(versions):
        name = as_str(v.get("name"))
        storage_count += v.get("storage") is True
        unique = unique and name not in seen
        seen.add(name)
        if problems := is_dns1035_label(name):
            errs.append(FieldError.invalid(f"{path}.versions[{i}].name", name, ",".join(problems)))
        status_enabled = _has_status(_subresources_for(spec, name))
        errs += validate_version(v, f"{path}.versions[{i}]", status_enabled, opts)

    if spec.get("validation") is not None and any(v.get("schema") is not None for v in versions):
        errs.append(
            FieldError.forbidden(f"{path}.validation", "top-level and per-version schemas are mutually exclusive")
        )
    if spec.get("subresources") is not None and any(v.get("subresources") is not None for v in versions):
        errs.append(
            FieldError.forbidden(
                f"{path}.subresources", "top-level and per-version subresources are mutually exclusive"
            )
        )
    if as_list(spec.get("additionalPrinterColumns")) and any(
        as_list(v.get("additionalPrinterColumns")) for v in versions
    ):
        errs.append(
            FieldError.forbidden(
                f"{path}.additionalPrinterColumns",
                "top-level and per-version additionalPrinterColumns are mutually exclusive",
            )
        )
    for field_name, what, top in (
        ("schema", "schemas", "validation"),
        ("subresources", "subresources", "subresources"),
        ("additionalPrinterColumns", "additionalPrinterColumns", "additionalPrinterColumns"),
    ):
        if _identical_per_version(versions, field_name):
            errs.append(
                FieldError.invalid(
                    f"{path}.versions",
                    versions_value(spec.get("versions")),
                    f"per-version {what} may not all be set to identical values"
                    f" (top-level {top} should be used instead)",
                )
            )
    if not unique:
        errs.append(
            FieldError.invalid(
                f"{path}.versions", versions_value(spec.get("versions")), "must contain unique version names"
            )
        )
    if storage_count != 1:
        errs.append(
            FieldError.invalid(
                f"{path}.versions",
                versions_value(spec.get("versions")),
                "must have exactly one version marked as storage version",
            )
        )
    top_version = as_str(spec.get("version"))
    if top_version:
        if problems := is_dns1035_label(top_version):
            errs.append(FieldError.invalid(f"{path}.version", top_version, ",".join(problems)))
        if versions and as_str(versions[0].get("name")) != top_version:
            errs.append(
                FieldError.invalid(f"{path}.version", top_version, "must match the first version in spec.versions")
            )

    names = as_dict(spec.get("names"))
    for name_key in ("plural", "singular", "kind", "listKind"):
        if not as_str(names.get(name_key)):
            errs.append(FieldError.required(f"{path}.names.{name_key}"))
    errs += validate_names(names, f"{path}.names")

    any_status = _has_status(spec.get("subresources")) or any(_has_status(v.get("subresources")) for v in versions)
    errs += validate_validation(spec.get("validation"), any_status, opts, f"{path}.validation")
    errs += validate_subresources(spec.get("subresources"), f"{path}.subresources")
    for i, column in enumerate(as_list(spec.get("additionalPrinterColumns"))):
        errs += validate_column(as_dict(column), f"{path}.additionalPrinterColumns[{i}]")
    fields = as_list(spec.get("selectableFields"))
    if fields:
        if spec.get("validation") is None:
            errs.append(
                FieldError.invalid(
                    f"{path}.selectableFields", "", "may only be set when validations.schema is included"
                )
            )
        else:
            top_schema = as_dict(as_dict(spec.get("validation")).get("openAPIV3Schema"))
            errs += _selectable_fields_with_schema(fields, top_schema, path, opts, "")

    conversion = spec.get("conversion")
    if isinstance(conversion, Mapping) and conversion.get("strategy") != "None" and preserve_unknown:
        errs.append(
            FieldError.invalid(
                f"{path}.conversion.strategy",
                as_str(conversion.get("strategy")),
                "must be None if spec.preserveUnknownFields is true",
            )
        )
    errs += validate_conversion(
        conversion, opts.require_recognized_conversion_review_version, f"{path}.conversion", opts
    )
    return errs


# -- status -----------------------------------------------------------------------------------------------


def validate_stored_versions(stored: Any, versions: list[Mapping[str, Any]], path: str) -> list[FieldError]:
    listed = [as_str(v) for v in as_list(stored)]
    shown = RawValue(gofmt.json(listed if isinstance(stored, list) else None))
    if not listed:
        return [FieldError.invalid(path, shown, "must have at least one stored version")]
    errs: list[FieldError] = []
    remaining = {name: i for i, name in enumerate(listed)}
    for v in versions:
        name = as_str(v.get("name"))
        if v.get("storage") is True and name not in remaining:
            errs.append(FieldError.invalid(path, shown, "must have the storage version " + name))
        remaining.pop(name, None)
    for name, i in sorted(remaining.items(), key=lambda item: item[1]):
        errs.append(
            FieldError.invalid(
                key(path, i),
                name,
                f"missing from spec.versions; {name} was previously a storage version, and must remain in "
                f"spec.versions until a storage migration ensures no data remains persisted in {name} and removes "
                f"{name} from status.storedVersions",
            )
        )
    return errs


def _status_errors(crd: Obj) -> list[FieldError]:
    accepted = as_dict(as_dict(crd.get("status")).get("acceptedNames"))
    return validate_names(accepted, "status.acceptedNames")


# -- API approval and preserveUnknownFields ----------------------------------------------------------------


def _is_protected_group(group: str) -> bool:
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def _approval_state(annotations: Mapping[str, Any]) -> tuple[str, str]:
    value = as_str(annotations.get(APPROVAL_ANNOTATION))
    if not value:
        return "missing", (
            f"protected groups must have approval annotation {gofmt.quote(APPROVAL_ANNOTATION)}, "
            "see https://github.com/kubernetes/enhancements/pull/1111"
        )
    if value.startswith("unapproved"):
        return "bypassed", f"not approved: {gofmt.quote(value)}"
    try:
        parts = gourl.parse_request_uri(value)
    except gourl.URLError:
        parts = None
    if parts is not None and parts.scheme and parts.host:
        return "approved", f"approved in {value}"
    return "invalid", (
        f"protected groups must have approval annotation {gofmt.quote(APPROVAL_ANNOTATION)} with either a URL or a "
        'reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111'
    )


def _annotations(crd: Obj | None) -> Mapping[str, Any]:
    return as_dict(as_dict(crd.get("metadata") if crd else None).get("annotations"))


def validate_api_approval(new: Obj, old: Obj | None) -> list[FieldError]:
    if not _is_protected_group(as_str(as_dict(new.get("spec")).get("group"))):
        return []
    state, reason = _approval_state(_annotations(new))
    if old is not None and _approval_state(_annotations(old))[0] == state:
        return []  # an unchanged approval never fails, so a controller updating the spec is not rejected
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if state == "missing":
        return [FieldError.required(path, reason)]
    if state == "invalid":
        return [FieldError.invalid(path, as_str(_annotations(new).get(APPROVAL_ANNOTATION)), reason)]
    return []


def validate_preserve_unknown_fields(new: Obj, old: Obj | None) -> list[FieldError]:
    if old is not None and as_dict(old.get("spec")).get("preserveUnknownFields") is True:
        return []  # kept for the data stored under it
    if as_dict(new.get("spec")).get("preserveUnknownFields") is True:
        return [
            FieldError.invalid(
                "spec.preserveUnknownFields",
                True,
                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema"
                " instead",
            )
        ]
    return []


# -- entry points ---------------------------------------------------------------------------------------------


def _name_rule_errors(crd: Obj) -> list[FieldError]:
    meta = as_dict(crd.get("metadata"))
    spec = as_dict(crd.get("spec"))
    required = as_str(as_dict(spec.get("names")).get("plural")) + "." + as_str(spec.get("group"))
    errs: list[FieldError] = []
    for field_name in ("generateName", "name"):
        value = as_str(meta.get(field_name))
        if value and value != required:
            errs.append(FieldError.invalid(f"metadata.{field_name}", value, _NAME_RULE))
    return errs


def validate_crd(crd: Obj, *, check_default: DefaultChecker | None = None) -> list[FieldError]:
    """ValidateCustomResourceDefinition for a v1 CRD (defaults applied), without the generic metadata checks."""
    spec = internal_spec(as_dict(crd.get("spec")))
    errs = _name_rule_errors(crd)
    errs += validate_spec(spec, Options(check_default=check_default))
    errs += _status_errors(crd)
    errs += validate_stored_versions(
        as_dict(crd.get("status")).get("storedVersions"), as_list(spec["versions"]), "status.storedVersions"
    )
    errs += validate_api_approval(crd, None)
    errs += validate_preserve_unknown_fields(crd, None)
    return errs


def _condition_true(crd: Obj, condition_type: str) -> bool:
    return any(
        as_dict(c).get("type") == condition_type and as_dict(c).get("status") == "True"
        for c in as_list(as_dict(crd.get("status")).get("conditions"))
    )


def _ca_bundle_invalid(crd: Obj) -> bool:
    conversion = as_dict(internal_spec(as_dict(crd.get("spec"))).get("conversion"))
    ca_bundle = as_str(as_dict(conversion.get("webhookClientConfig")).get("caBundle"))
    return bool(ca_bundle) and bool(validate_ca_bundle("caBundle", ca_bundle))


def _update_options(new_spec: Mapping[str, Any], old: Obj, old_spec: Mapping[str, Any]) -> Options:
    established = _condition_true(old, "Established")
    old_conversion = old_spec.get("conversion")
    too_many: dict[str, bool] = {}
    if len(as_list(old_spec.get("selectableFields"))) > 8 and new_spec.get("selectableFields") == old_spec.get(
        "selectableFields"
    ):
        too_many[""] = True
    old_versions = {as_str(as_dict(v).get("name")): as_dict(v) for v in as_list(old_spec.get("versions"))}
    for v in as_list(new_spec.get("versions")):
        name = as_str(as_dict(v).get("name"))
        old_v = old_versions.get(name)
        if old_v is not None and len(as_list(old_v.get("selectableFields"))) > 8:
            if as_dict(v).get("selectableFields") == old_v.get("selectableFields"):
                too_many[name] = True
    return Options(
        require_recognized_conversion_review_version=not isinstance(old_conversion, Mapping)
        or has_valid_review_version_or_empty(old_conversion.get("conversionReviewVersions")),
        require_immutable_names=established,
        require_openapi_schema=_all_versions_have_schema(old_spec),
        require_valid_property_type=not has_schema_with(old_spec, lambda s: schema_has(s, _has_invalid_type)),
        require_structural_schema=not has_schema_with(old_spec, _is_non_structural),
        require_atomic_set_type=not has_schema_with(old_spec, lambda s: schema_has(s, _has_non_atomic_set)),
        require_map_list_keys_map_set_validation=not has_schema_with(
            old_spec, lambda s: schema_has(s, lambda n: bool(map_list_keys_map_set(n, "")))
        ),
        allow_invalid_ca_bundle=not established or _ca_bundle_invalid(old),
        allow_too_many_selectable_fields=too_many,
    )


def validate_crd_update(new: Obj, old: Obj, *, check_default: DefaultChecker | None = None) -> list[FieldError]:
    """ValidateCustomResourceDefinitionUpdate, without the generic metadata update checks."""
    new_spec = internal_spec(as_dict(new.get("spec")))
    old_spec = internal_spec(as_dict(old.get("spec")))
    opts = replace(_update_options(new_spec, old, old_spec), check_default=check_default)
    errs = validate_spec(new_spec, opts)
    if opts.require_immutable_names:
        # the storage path and the served kind hang on these once the resource is established
        errs += _immutable(new_spec.get("scope"), old_spec.get("scope"), "spec.scope")
        errs += _immutable(
            as_dict(new_spec.get("names")).get("kind"), as_dict(old_spec.get("names")).get("kind"), "spec.names.kind"
        )
    # these make the resource name, which never changes
    errs += _immutable(new_spec.get("group"), old_spec.get("group"), "spec.group")
    errs += _immutable(
        as_dict(new_spec.get("names")).get("plural"), as_dict(old_spec.get("names")).get("plural"), "spec.names.plural"
    )
    errs += _status_errors(new)
    errs += validate_stored_versions(
        as_dict(new.get("status")).get("storedVersions"), as_list(new_spec["versions"]), "status.storedVersions"
    )
    errs += validate_api_approval(new, old)
    errs += validate_preserve_unknown_fields(new, old)
    return errs


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    if as_str(new) == as_str(old):
        return []
    return [FieldError.invalid(path, as_str(new), FIELD_IMMUTABLE)]


def validate_crd_status(crd: Obj) -> list[FieldError]:
    """ValidateUpdateCustomResourceDefinitionStatus without the metadata update checks: the accepted names."""
    return _status_errors(crd)
