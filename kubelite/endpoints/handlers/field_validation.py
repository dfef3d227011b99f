"""fieldValidation=Strict|Warn|Ignore: unknown and duplicate fields in a request body, checked against the
kind's published schema (kube's strict decoding). Strict turns findings into a 400, Warn into `Warning`
headers, Ignore says nothing. Unknown fields are always dropped, as decoding into kube's Go types does."""

from __future__ import annotations

import json
import re
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


class _Shape:
    """A schema node compiled for the walk: its fields, what its values may be, and the Go names its type
    errors use. One per definition, built on first use, so a request walks attributes, not JSON schema."""

    __slots__ = ("extra", "go_type", "items", "opaque", "properties", "struct", "types")

    def __init__(self) -> None:
        self.properties: dict[str, _Shape] | None = None
        self.extra: _Shape | None = None
        self.items: _Shape | None = None
        #: preserve-unknown-fields or oneOf (IntOrString, Quantity): not walked below
        self.opaque = False
        #: the JSON types the field takes; empty when anything goes
        self.types: frozenset[str] = frozenset()
        self.struct = ""  # the Go struct, for a $ref to a definition
        self.go_type = ""


_shapes: dict[str, _Shape] = {}


def _shape(schema: dict[str, Any]) -> _Shape:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/") :]
        cached = _shapes.get(name)
        if cached is None:
            # registered before it is filled, so definitions that contain themselves end
            cached = _shapes[name] = _Shape()
            _fill(cached, schemas.definitions().get(name, {}), name.rsplit(".", 1)[-1])
        return cached
    shape = _Shape()
    _fill(shape, schema, "")
    return shape


def _fill(shape: _Shape, schema: dict[str, Any], struct: str) -> None:
    declared = schema.get("type")
    types = set(declared) if isinstance(declared, list) else {declared} if declared else set()
    for option in schema.get("oneOf") or ():
        option_type = option.get("type")
        types.update(option_type if isinstance(option_type, list) else [option_type])
    types.discard("null")
    types.discard(None)
    shape.types = frozenset(types)
    shape.struct = struct
    shape.go_type = (f"v1.{struct}" if struct else _go_type(schema, types)) if types else ""
    shape.opaque = bool(schema.get("x-kubernetes-preserve-unknown-fields") or "oneOf" in schema)
    properties = schema.get("properties")
    if properties is not None:
        shape.properties = {key: _shape(child) for key, child in properties.items()}
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        shape.extra = _shape(extra)
    items = schema.get("items")
    if isinstance(items, dict):
        shape.items = _shape(items)


def _fits(value: Any, types: frozenset[str]) -> bool:
    kind = type(value)
    for declared in types:
        if declared == "string":
            if kind is str:
                return True
        elif declared == "integer":
            if kind is int or (kind is float and value.is_integer()):
                return True
        elif declared == "number":
            if kind is int or kind is float:
                return True
        elif declared == "boolean":
            if kind is bool:
                return True
        elif declared == "object":
            if kind is dict:
                return True
        elif declared == "array":
            if kind is list:
                return True
        else:
            return True  # a type this check does not know: let it pass
    return False


def _walk(
    value: Any,
    shape: _Shape,
    path: str,
    found: list[str],
    mistyped: list[str] | None,
    owner: str,
    members: list[int] | None,
) -> None:
    """Prune unknown fields below `value`; `owner` is the Go struct that holds the field at `path`.
    `members[0]` counts the object members seen, pruned ones included (see `_may_repeat_keys`)."""
    if (
        mistyped is not None
        and path
        and value is not None  # null decodes into any field as its zero value
        and shape.types
        and len(mistyped) < _MAX_FINDINGS
        and not _fits(value, shape.types)
    ):
        mistyped.append(
            f"json: cannot unmarshal {serializers.go_json_type(value)} into Go struct field "
            f"{owner}.{path} of type {shape.go_type}"
        )
        return
    if shape.struct:
        owner = shape.struct
    if shape.opaque:
        if members is not None:
            members[0] += _count_members(value)
        return
    kind = type(value)
    if kind is dict:
        if members is not None:
            members[0] += len(value)
        properties = shape.properties
        extra = shape.extra
        # key order, as kube reports what it decodes from a map (YAML bodies, patch results)
        for key in sorted(value):
            child_path = f"{path}.{key}" if path else key
            child = properties.get(key) if properties is not None else None
            if child is None and extra is not None:
                child = extra
            if child is not None:
                _walk(value[key], child, child_path, found, mistyped, owner, members)
            elif properties is not None:
                if len(found) < _MAX_FINDINGS:  # the report is capped; the pruning is not
                    found.append(child_path)
                if members is not None:
                    members[0] += _count_members(value[key])
                del value[key]
            elif members is not None:
                members[0] += _count_members(value[key])
    elif kind is list:
        items = shape.items
        if items is not None:
            for index, child_value in enumerate(value):
                _walk(child_value, items, f"{path}[{index}]", found, mistyped, owner, members)
        elif members is not None:
            members[0] += _count_members(value)


def _count_members(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_count_members(child) for child in value.values())
    if isinstance(value, list):
        return sum(_count_members(child) for child in value)
    return 0


#: a JSON string token, escapes included
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')

#: a quote followed by whitespace, as a key's closing quote before a spaced-out colon would be
_SPACED_QUOTES = (b'" ', b'"\t', b'"\n', b'"\r')


def _may_repeat_keys(body: bytes, members: int) -> bool:
    """Whether a JSON body that parsed into `members` object members can hold a repeated key.

    Every member is a key and a colon outside strings, and a repeated key is one more member in the text than
    in the parsed object; so with exactly `members` colons outside strings nothing repeats. Three counts, each
    an upper bound of the keys in the text, cheapest first:
    - every colon: settles bodies without colons in their strings;
    - every quote followed by a colon, when no quote is followed by whitespace: then each key is one of
      those, and a string holds one only after an escaped quote (or as its first character). This settles
      compact bodies with colons in strings (images, times, and managedFields, whose keys are all `f:...`);
    - colons outside strings, after blanking every string."""
    if body.count(b":") <= members:
        return False
    if body.count(b'":') <= members and not any(gap in body for gap in _SPACED_QUOTES):
        return False
    return _JSON_STRING.sub(b'""', body).count(b":") > members


def prune_unknown_fields(
    spec: ResourceSpec, obj: Any, mistyped: list[str] | None = None, members: list[int] | None = None
) -> list[str]:
    """Drop fields the kind's schema does not know, in place; returns their paths. With `mistyped`, also
    collect the values whose JSON type does not fit their field (what decoding into Go types refuses); with
    `members`, count the object members in `members[0]`."""
    name = schemas.definition_for(spec.group, spec.version, spec.kind)
    if name is None:
        if members is not None:
            members[0] += _count_members(obj)
        return []
    found: list[str] = []
    _walk(obj, _shape({"$ref": "#/$defs/" + name}), "", found, mistyped, spec.kind, members)
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
    members = [0]
    findings = [f'unknown field "{path}"' for path in prune_unknown_fields(spec, obj, mistyped, members)]
    if mistyped:
        raise errors.bad_request(
            f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: {mistyped[0]}'
        )
    if directive == "Ignore":  # still pruned: Ignore only silences what decoding drops
        return []
    # unset means Warn, as in kube
    # the body's own reading is needed for repeated keys, and for the order of what was pruned
    in_body = json_findings(spec, body) if is_json and (findings or _may_repeat_keys(body, members[0])) else None
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
