"""Decoding into kube's Go types, checked against the kind's schema model (kubelite.apimachinery.schema).

fieldValidation=Strict|Warn|Ignore: unknown and duplicate fields in a request body (kube's strict decoding).
Strict turns findings into a 400, Warn into `Warning` headers, Ignore says nothing. Unknown fields are always
dropped, as decoding into Go types does. Whatever the directive, what Go's decoder refuses is a 400 with its
text: a value of the wrong JSON type, an integer its int32 / int64 field cannot hold, a float where an
integer belongs."""

from __future__ import annotations

import json
import re
from typing import Any

from kubelite.apimachinery import errors, gofmt
from kubelite.apimachinery.schema import SchemaNode, registry
from kubelite.endpoints.handlers.warnings import format_warning
from kubelite.registry.spec import ResourceSpec

_MAX_FINDINGS = 100

#: the key of this layer's compiled form in SchemaNode.compiled
_COMPILED = "field_validation"

#: the values a Go integer field of each format holds
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _go_type(node: SchemaNode, types: frozenset[str]) -> str:
    if "string" in types and "integer" in types:
        return "intstr.IntOrString"
    kind = min(types)
    if kind == "integer":
        return "int32" if node.format == "int32" else "int64"
    if kind == "array":
        # the element's Go type is not what kube's tests look at; every list reads as []string
        return "[]string" if node.items is not None else "[]"
    if kind == "object":
        return "map[string]string" if node.additional is not None else "struct"
    return {"string": "string", "number": "float64", "boolean": "bool"}.get(kind, kind)


class _Shape:
    """A schema node compiled for the walk: its fields, what its values may be, and the Go names its type
    errors use. One per node, built on first use and kept in the node, so a request walks attributes."""

    __slots__ = ("extra", "go_type", "int_range", "items", "opaque", "preserve", "properties", "struct", "types")

    def __init__(self) -> None:
        self.properties: dict[str, _Shape] | None = None
        self.extra: _Shape | None = None
        self.items: _Shape | None = None
        #: oneOf (IntOrString, Quantity), or preserve-unknown-fields declaring no fields: not walked below
        self.opaque = False
        #: x-kubernetes-preserve-unknown-fields: undeclared fields stay, declared ones are walked
        self.preserve = False
        #: the JSON types the field takes; empty when anything goes
        self.types: frozenset[str] = frozenset()
        self.struct = ""  # the Go struct, for a definition
        self.go_type = ""
        #: the values a Go int32 / int64 field holds; None for other fields
        self.int_range: tuple[int, int] | None = None


def _shape(node: SchemaNode) -> _Shape:
    target = node.target  # a reference reads as the definition it names
    cached = target.compiled.get(_COMPILED)
    if cached is None:
        # kept before it is filled, so definitions that contain themselves end
        cached = target.compiled[_COMPILED] = _Shape()
        _fill(cached, target, target.name.rsplit(".", 1)[-1] if target.name else "")
    shape: _Shape = cached
    return shape


def _fill(shape: _Shape, node: SchemaNode, struct: str) -> None:
    types = node.types
    shape.types = types
    shape.struct = struct
    shape.go_type = (f"v1.{struct}" if struct else _go_type(node, types)) if types else ""
    shape.preserve = node.preserve_unknown_fields
    shape.opaque = node.composite or (
        node.preserve_unknown_fields and node.properties is None and node.additional is None
    )
    if types == {"integer"}:
        shape.int_range = _INT_RANGES.get(node.format or "int64")
    if node.properties is not None:
        shape.properties = {key: _shape(child) for key, child in node.properties.items()}
    if node.additional is not None:
        shape.extra = _shape(node.additional)
    if node.items is not None:
        shape.items = _shape(node.items)


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


class _Mistyped:
    """A value decoding into Go types refuses: why, where, and for a number its text when known."""

    __slots__ = ("go_type", "owner", "path", "value")

    def __init__(self, value: Any, owner: str, path: str, go_type: str) -> None:
        self.value = value
        self.owner = owner
        self.path = path
        self.go_type = go_type

    def message(self, numbers: _NumberText | None) -> str:
        value = self.value
        if type(value) is bool or not isinstance(value, int | float) or self.go_type not in _INT_RANGES:
            what = gofmt.json_type(value)
        else:  # encoding/json names the number it could not store in an integer by its text
            literal = numbers.at(self.path) if numbers is not None else None
            what = "number " + (literal if literal is not None else _number_text(value))
        return f"json: cannot unmarshal {what} into Go struct field {self.owner}.{self.path} of type {self.go_type}"


def _number_text(value: int | float) -> str:
    """A number as the JSON kube decodes would carry it: YAML and patched objects reach kube's decoder
    re-encoded by encoding/json, where an integer beyond 64 bits has become a float64."""
    if isinstance(value, int) and -(2**63) <= value < 2**64:
        return str(value)
    return gofmt.float_json(float(value))


class _Literal(str):
    """A number's text in a JSON body."""


class _NumberText:
    """The JSON text an object's numbers were written in, read (once) only when a number's text is asked for:
    for an error message, or whether a float was written as one."""

    __slots__ = ("_body", "_document")

    def __init__(self, body: bytes) -> None:
        self._body = body
        self._document: Any = _UNREAD

    def at(self, path: str) -> str | None:
        """The text of the number at `path` (`spec.template.spec.containers[0].ports[1].containerPort`);
        None when the text or the path cannot be followed."""
        if self._document is _UNREAD:
            try:
                self._document = json.loads(self._body, parse_int=_Literal, parse_float=_Literal)
            except ValueError:
                self._document = None
        node = self._document
        rest = path
        while rest:
            if rest[0] == "[":
                end = rest.find("]")
                if end < 0 or not isinstance(node, list) or not rest[1:end].isdigit() or int(rest[1:end]) >= len(node):
                    return None
                node = node[int(rest[1:end])]
                rest = rest[end + 1 :]
                continue
            rest = rest.removeprefix(".")
            if not isinstance(node, dict):
                return None
            # the longest key that the path continues with: map keys may hold dots themselves
            key = max(
                (k for k in node if rest.startswith(k) and rest[len(k) : len(k) + 1] in ("", ".", "[")),
                key=len,
                default=None,
            )
            if key is None:
                return None
            node = node[key]
            rest = rest[len(key) :]
        return str(node) if isinstance(node, _Literal) else None


_UNREAD: Any = object()


def _walk(
    value: Any,
    shape: _Shape,
    path: str,
    found: list[str] | None,
    mistyped: list[_Mistyped] | None,
    owner: str,
    members: list[int] | None,
    literals: _NumberText | None = None,
) -> int | None:
    """Prune unknown fields below `value` into `found` (None: leave them); `owner` is the Go struct that
    holds the field at `path`.
    `members[0]` counts the object members seen, pruned ones included (see `_may_repeat_keys`).
    `literals`: the JSON text the numbers were written in, where a float written as one (even `2.0`) is no
    integer. Returns the integer that replaces an integral float in an integer field, else None."""
    if (
        mistyped is not None
        and path
        and value is not None  # null decodes into any field as its zero value
        and shape.types
        and len(mistyped) < _MAX_FINDINGS
    ):
        if not _fits(value, shape.types):
            mistyped.append(_Mistyped(value, owner, path, shape.go_type))
            return None
        int_range = shape.int_range
        if int_range is not None and type(value) is not bool:
            if not int_range[0] <= value <= int_range[1] or (
                type(value) is float and literals is not None and literals.at(path) is not None
            ):
                mistyped.append(_Mistyped(value, owner, path, shape.go_type))
                return None
            if type(value) is float:  # 2.0 from YAML or a patch: Go's integer field holds 2
                return int(value)
    if shape.struct:
        owner = shape.struct
    if shape.opaque:
        if members is not None:
            members[0] += _count_members(value)
        return None
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
                fixed = _walk(value[key], child, child_path, found, mistyped, owner, members, literals)
                if fixed is not None:
                    value[key] = fixed
            elif properties is not None and found is not None and not shape.preserve:
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
                fixed = _walk(child_value, items, f"{path}[{index}]", found, mistyped, owner, members, literals)
                if fixed is not None:
                    value[index] = fixed
        elif members is not None:
            members[0] += _count_members(value)
    return None


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
    spec: ResourceSpec,
    obj: Any,
    mistyped: list[_Mistyped] | None = None,
    members: list[int] | None = None,
    *,
    literals: bytes | None = None,
) -> list[str]:
    """Drop fields the kind's schema does not know, in place; returns their paths. With `mistyped`, also
    collect the values decoding into Go types refuses (a JSON type that does not fit the field, an integer
    outside its int32 / int64, a float where an integer belongs); with `members`, count the object members
    in `members[0]`. `literals`: the JSON text `obj`'s numbers were read from, whose `2.0` is a float to Go."""
    return _prune(spec, obj, mistyped, members, _NumberText(literals) if literals is not None else None)


def _prune(
    spec: ResourceSpec,
    obj: Any,
    mistyped: list[_Mistyped] | None,
    members: list[int] | None,
    numbers: _NumberText | None,
) -> list[str]:
    model = registry().model(spec.group, spec.version, spec.kind)
    if model is None:
        if members is not None:
            members[0] += _count_members(obj)
        return []
    found: list[str] = []
    _walk(obj, _shape(model), "", found, mistyped, spec.kind, members, numbers)
    return found


class _Members(list[tuple[str, Any]]):
    """A JSON object as it was written: every member in order, repeated keys included."""


def _document_findings(value: Any, node: SchemaNode, path: str, found: list[str]) -> None:
    """Unknown and duplicate fields in the order they appear in the body, as kube's strict decoder reports
    them; a key both unknown and repeated is reported once, as unknown."""
    if len(found) >= _MAX_FINDINGS:
        return
    node = node.target
    if node.composite:
        return
    if isinstance(value, _Members):
        properties = node.properties
        extra = node.additional
        seen: set[str] = set()
        for key, child in value:
            child_path = f"{path}.{key}" if path else key
            child_node = properties.get(key) if properties is not None else None
            if child_node is None:
                child_node = extra
            if child_node is None:
                if properties is not None and key not in seen and not node.preserve_unknown_fields:
                    _report(found, f"unknown field {gofmt.quote(child_path)}")
                seen.add(key)
                continue
            if key in seen:
                _report(found, f"duplicate field {gofmt.quote(child_path)}")
            seen.add(key)
            _document_findings(child, child_node, child_path, found)
    elif isinstance(value, list):
        items = node.items
        if items is not None:
            for index, child in enumerate(value):
                _document_findings(child, items, f"{path}[{index}]", found)


def _report(found: list[str], finding: str) -> None:
    """Record a finding once (kube's strict decoder keeps each message once: a key written three times is
    one duplicate), up to the cap."""
    if len(found) < _MAX_FINDINGS and finding not in found:
        found.append(finding)


def json_findings(spec: ResourceSpec, body: bytes) -> list[str] | None:
    """What strict decoding of a JSON body says: `unknown field "a.b"` and `duplicate field "a.c"`, in order,
    each path quoted as Go's %q quotes it; None when the body cannot be read here."""
    model = registry().model(spec.group, spec.version, spec.kind)
    if model is None:
        return []
    try:
        document = json.loads(body, object_pairs_hook=_Members)
    except ValueError:
        return None
    found: list[str] = []
    _document_findings(document, model, "", found)
    return found


_INT32_MIN, _INT32_MAX = _INT_RANGES["int32"]


def _has_float_or_wide_int(value: Any) -> bool:
    """Whether any number below `value` is a float or beyond int32: else every integer field fits, and the
    schema need not be walked (a plain scan costs a fraction of the walk)."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is float or (kind is int and not _INT32_MIN <= item <= _INT32_MAX):
            return True
    return False


def refuse_unfit_integers(spec: ResourceSpec, obj: Any) -> None:
    """Raise the 400 kube's decoder gives for the first integer field of `obj` holding a number the field
    cannot (out of its int32 / int64, or a fraction), as for an applied configuration, whose other
    mistakes its typed conversion reports; integral floats in integer fields become integers. Unknown
    fields are left alone."""
    model = registry().model(spec.group, spec.version, spec.kind)
    # a custom resource has no Go types to decode into: its schema's validation reports mistyped values
    if model is None or spec.custom or not _has_float_or_wide_int(obj):
        return
    found: list[_Mistyped] = []
    _walk(obj, _shape(model), "", None, found, spec.kind, None)
    mistyped = [m for m in found if m.go_type in _INT_RANGES and type(m.value) in (int, float)]
    if mistyped:
        why = mistyped[0].message(None)
        raise errors.bad_request(f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: {why}')


def check(
    spec: ResourceSpec,
    obj: Any,
    body: bytes,
    directive: str | None,
    is_json: bool,
    *,
    numbers: bytes | None = None,
) -> list[str]:
    """Run the check the directive asks for; returns Warning header values, or raises a 400 for Strict.
    `numbers`: for an object that is not `body` decoded, the JSON text its new numbers were written in (a
    merge patch, which kube applies to JSON text, so a number keeps its text)."""
    mistyped: list[_Mistyped] = []
    members = [0]
    text = body if is_json else numbers
    number_text = _NumberText(text) if text is not None else None
    pruned = _prune(spec, obj, None if spec.custom else mistyped, members, number_text)
    why = mistyped[0].message(number_text) if mistyped else ""
    findings = [f"unknown field {gofmt.quote(path)}" for path in pruned]
    if mistyped:
        raise errors.bad_request(f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: {why}')
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
    return [format_warning(finding) for finding in findings]
