"""fieldValidation=Strict|Warn|Ignore: unknown and duplicate fields in a request body, checked against the
kind's published schema (kube's strict decoding). Strict turns findings into a 400, Warn into `Warning`
headers, Ignore says nothing. Unknown fields are always dropped, as decoding into kube's Go types does."""

from __future__ import annotations

import json
from typing import Any

from kubelite.apimachinery import errors
from kubelite.endpoints.openapi import schemas
from kubelite.registry.spec import ResourceSpec

_MAX_FINDINGS = 100


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return schemas.definitions().get(ref[len("#/$defs/") :], {})
    return schema


def _walk(value: Any, schema: dict[str, Any], path: str, found: list[str]) -> None:
    if len(found) >= _MAX_FINDINGS:
        return
    schema = _resolve(schema)
    if schema.get("x-kubernetes-preserve-unknown-fields") or "oneOf" in schema:
        return
    if isinstance(value, dict):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key in list(value):
            child_path = f"{path}.{key}" if path else key
            if properties is not None and key in properties:
                _walk(value[key], properties[key], child_path, found)
            elif isinstance(extra, dict):
                _walk(value[key], extra, child_path, found)
            elif properties is not None:
                found.append(child_path)
                del value[key]
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, child in enumerate(value):
                _walk(child, items, f"{path}[{index}]", found)


def prune_unknown_fields(spec: ResourceSpec, obj: Any) -> list[str]:
    """Drop fields the kind's schema does not know, in place; returns their paths."""
    name = schemas.definition_for(spec.group, spec.version, spec.kind)
    if name is None:
        return []
    found: list[str] = []
    _walk(obj, schemas.definitions()[name], "", found)
    return found


def duplicate_fields(body: bytes) -> list[str]:
    """Paths of keys that appear twice in one JSON object (the last one wins when decoding)."""
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                found.append(key)
            seen[key] = value
        return seen

    try:
        json.loads(body, object_pairs_hook=pairs)
    except ValueError:
        return []
    return found


def check(spec: ResourceSpec, obj: Any, body: bytes, directive: str | None, is_json: bool) -> list[str]:
    """Run the check the directive asks for; returns Warning header values, or raises a 400 for Strict."""
    if directive == "Ignore":
        return []
    findings = [f'unknown field "{path}"' for path in prune_unknown_fields(spec, obj)]
    if directive in ("Strict", "Warn") and is_json:
        findings = [f'duplicate field "{key}"' for key in duplicate_fields(body)] + findings
    if not findings:
        return []
    if directive == "Strict":
        raise errors.bad_request(
            f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: strict decoding error: '
            + ", ".join(findings)
        )
    return [f'299 - "{finding.replace(chr(34), chr(92) + chr(34))}"' for finding in findings]
