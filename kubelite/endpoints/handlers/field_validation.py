"""fieldValidation=Strict|Warn|Ignore: unknown and duplicate fields in a request body, checked against the
kind's published schema (kube's strict decoding). Strict turns findings into a 400, Warn into `Warning`
headers, Ignore says nothing. Unknown fields are always dropped, as decoding into kube's Go types does."""

from __future__ import annotations

import json
from typing import Any

from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery import schema_definitions as schemas
from kubelite.registry.spec import ResourceSpec

_MAX_FINDINGS = 100


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return schemas.definitions().get(ref[len("#/$defs/") :], {})
    return schema


def _type_error(value: Any, schema: dict[str, Any], path: str, owner: str, go_type: str) -> str | None:
    """Go's json error when the value cannot decode into the field's type; None when it can."""
    if value is None:
        return None  # null decodes into any field as its zero value
    declared = schema.get("type")
    types = set(declared) if isinstance(declared, list) else {declared} if declared else set()
    for option in schema.get("oneOf") or ():  # IntOrString, Quantity
        option_type = option.get("type")
        types.update(option_type if isinstance(option_type, list) else [option_type])
    types.discard("null")
    types.discard(None)
    if not types:
        return None
    fits = {
        "string": isinstance(value, str),
        "integer": (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer()),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }
    if any(fits.get(t, True) for t in types):
        return None
    return (
        f"json: cannot unmarshal {serializers.go_json_type(value)} into Go struct field "
        f"{owner}.{path} of type {go_type or _go_type(schema, types)}"
    )


def _go_type(schema: dict[str, Any], types: set[str]) -> str:
    if "string" in types and "integer" in types:
        return "intstr.IntOrString"
    kind = next(iter(sorted(types)))
    if kind == "integer":
        return "int32" if schema.get("format") == "int32" else "int64"
    if kind == "array":
        return "[]" + _go_type(_resolve(schema.get("items") or {}), {"string"}) if schema.get("items") else "[]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return "map[string]string" if isinstance(extra, dict) else "struct"
    return {"string": "string", "number": "float64", "boolean": "bool"}.get(kind, kind)


def _walk(
    value: Any,
    schema: dict[str, Any],
    path: str,
    found: list[str],
    mistyped: list[str] | None = None,
    owner: str = "",
) -> None:
    """Prune unknown fields below `value`; `owner` is the Go struct that holds the field at `path`."""
    ref = schema.get("$ref")
    struct = ref.rsplit(".", 1)[-1] if isinstance(ref, str) else ""
    resolved = _resolve(schema)
    if mistyped is not None and path and len(mistyped) < _MAX_FINDINGS:
        problem = _type_error(value, resolved, path, owner, f"v1.{struct}" if struct else "")
        if problem is not None:
            mistyped.append(problem)
            return
    schema = resolved
    if struct:
        owner = struct
    if schema.get("x-kubernetes-preserve-unknown-fields") or "oneOf" in schema:
        return
    if isinstance(value, dict):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        # key order, as kube reports what it decodes from a map (YAML bodies, patch results)
        for key in sorted(value):
            child_path = f"{path}.{key}" if path else key
            if properties is not None and key in properties:
                _walk(value[key], properties[key], child_path, found, mistyped, owner)
            elif isinstance(extra, dict):
                _walk(value[key], extra, child_path, found, mistyped, owner)
            elif properties is not None:
                if len(found) < _MAX_FINDINGS:  # the report is capped; the pruning is not
                    found.append(child_path)
                del value[key]
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, child in enumerate(value):
                _walk(child, items, f"{path}[{index}]", found, mistyped, owner)


def prune_unknown_fields(spec: ResourceSpec, obj: Any, mistyped: list[str] | None = None) -> list[str]:
    """Drop fields the kind's schema does not know, in place; returns their paths. With `mistyped`, also
    collect the values whose JSON type does not fit their field (what decoding into Go types refuses)."""
    name = schemas.definition_for(spec.group, spec.version, spec.kind)
    if name is None:
        return []
    found: list[str] = []
    _walk(obj, {"$ref": "#/$defs/" + name}, "", found, mistyped, spec.kind)
    return found


class _Members(list[tuple[str, Any]]):
    """A JSON object as it was written: every member in order, repeated keys included."""


def _document_findings(value: Any, schema: dict[str, Any], path: str, found: list[str]) -> None:
    """Unknown and duplicate fields in the order they appear in the body, as kube's strict decoder reports
    them; a key both unknown and repeated is reported once, as unknown."""
    if len(found) >= _MAX_FINDINGS:
        return
    schema = _resolve(schema)
    if schema.get("x-kubernetes-preserve-unknown-fields") or "oneOf" in schema:
        return
    if isinstance(value, _Members):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        seen: set[str] = set()
        for key, child in value:
            child_path = f"{path}.{key}" if path else key
            if properties is not None and key in properties:
                child_schema = properties[key]
            elif isinstance(extra, dict):
                child_schema = extra
            else:
                if properties is not None and key not in seen:
                    found.append(f'unknown field "{child_path}"')
                seen.add(key)
                continue
            if key in seen:
                found.append(f'duplicate field "{child_path}"')
            seen.add(key)
            _document_findings(child, child_schema, child_path, found)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, child in enumerate(value):
                _document_findings(child, items, f"{path}[{index}]", found)


def json_findings(spec: ResourceSpec, body: bytes) -> list[str] | None:
    """What strict decoding of a JSON body says: `unknown field "a.b"` and `duplicate field "a.c"`, in order;
    None when the body cannot be read here."""
    name = schemas.definition_for(spec.group, spec.version, spec.kind)
    if name is None:
        return []
    try:
        document = json.loads(body, object_pairs_hook=_Members)
    except ValueError:
        return None
    found: list[str] = []
    _document_findings(document, schemas.definitions()[name], "", found)
    return found


def check(spec: ResourceSpec, obj: Any, body: bytes, directive: str | None, is_json: bool) -> list[str]:
    """Run the check the directive asks for; returns Warning header values, or raises a 400 for Strict."""
    mistyped: list[str] = []
    findings = [f'unknown field "{path}"' for path in prune_unknown_fields(spec, obj, mistyped)]
    if mistyped:
        raise errors.bad_request(
            f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: {mistyped[0]}'
        )
    if directive == "Ignore":  # still pruned: Ignore only silences what decoding drops
        return []
    # unset means Warn, as in kube
    in_body = json_findings(spec, body) if is_json else None
    if in_body is not None:  # the body also shows repeated keys, and the order kube reports things in
        findings = in_body
    if not findings:
        return []
    if directive == "Strict":
        raise errors.bad_request(
            f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: strict decoding error: '
            + ", ".join(findings)
        )
    return [f'299 - "{finding.replace(chr(34), chr(92) + chr(34))}"' for finding in findings]
