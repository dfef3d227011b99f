"""The CEL view of a structural schema: the declared type of `self` at each node, and kube's size bounds.

kube types `self` from the schema (k8s.io/apiserver/pkg/cel/common/schemas.go): objects as structs of their
escaped property names, maps, lists, strings (or bytes, timestamps, durations by format), and
int-or-string / preserve-unknown values as dyn. cel-expr-python declares no struct types without protobuf
messages, so an object is declared here as `map(string, dyn)`; `Decl` keeps the fields so that cost
estimation can follow a path through them. `max_elements` and `min_size` are kube's estimates (string
length, items, properties; the smallest serialized size), which bound loops in cost estimation.

`convert` turns a JSON value into what the rule sees: property names escaped as kube does (`__dash__`, ...),
date-time and date strings as timestamps and durations (as protobuf's well-known messages), base64 bytes,
integers of `number` fields as doubles.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from cel_expr_python import cel
from google.protobuf import duration_pb2, timestamp_pb2

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MIN_STRING_SIZE = 2
MIN_BOOL_SIZE = 4
MIN_NUMBER_SIZE = 1
MAX_DURATION_SIZE_JSON = 32
MAX_DATETIME_SIZE_JSON = 32
MIN_DURATION_SIZE_JSON = 3
JSON_DATE_SIZE = 12
MIN_DATETIME_SIZE_JSON = 21

_RESERVED = frozenset(
    {"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
     "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
)
_IDENT_CHARS = re.compile(r"[a-zA-Z0-9_./-]*")
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_ESCAPE_RE = re.compile(r"__|[-./]")


def escape(name: str) -> str | None:
    """kube's property-name escaping for CEL (cel.Escape); None when the name cannot be a CEL field."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if not _IDENT_CHARS.fullmatch(name) or not name.isascii():
        return None
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], name)


@dataclass(slots=True)
class Decl:
    """The declared CEL type of one schema node with kube's size estimates."""

    kind: str  # object, map, list, string, bytes, int, double, bool, duration, timestamp, dyn
    max_elements: int = 0
    min_size: int = 0
    fields: dict[str, Decl] = field(default_factory=dict)  # escaped name -> type (objects)
    originals: dict[str, str] = field(default_factory=dict)  # escaped name -> property name
    elem: Decl | None = None  # list items, map values
    needs_convert: bool = False

    def cel_type(self) -> cel.Type:
        if self.kind in ("object", "dyn"):
            return cel.Type.Map(cel.Type.STRING, cel.Type.DYN) if self.kind == "object" else cel.Type.DYN
        if self.kind == "map":
            assert self.elem is not None
            return cel.Type.Map(cel.Type.STRING, self.elem.cel_type())
        if self.kind == "list":
            assert self.elem is not None
            return cel.Type.List(self.elem.cel_type())
        return _SCALARS[self.kind]


_SCALARS = {
    "string": cel.Type.STRING,
    "bytes": cel.Type.BYTES,
    "int": cel.Type.INT,
    "double": cel.Type.DOUBLE,
    "bool": cel.Type.BOOL,
    "duration": cel.Type.DURATION,
    "timestamp": cel.Type.TIMESTAMP,
}


def _nonneg(value: Any) -> int:
    return max(int(value), 0)


def _string_max(schema: Mapping[str, Any]) -> int:
    fmt = schema.get("format")
    if fmt == "duration":
        return MAX_DURATION_SIZE_JSON
    if fmt == "date":
        return JSON_DATE_SIZE
    if fmt == "date-time":
        return MAX_DATETIME_SIZE_JSON
    return MAX_REQUEST_SIZE_BYTES - 2


def with_type_and_object_meta(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An embedded resource's schema as CEL sees it: apiVersion, kind and metadata.name/generateName declared."""
    props = dict(schema.get("properties") or {})

    def typed(prop: Any, kind: str) -> bool:
        return isinstance(prop, Mapping) and prop.get("type") == kind

    meta = props.get("metadata")
    meta_props = meta.get("properties") if isinstance(meta, Mapping) else None
    if (typed(props.get("kind"), "string") and typed(props.get("apiVersion"), "string") and typed(meta, "object")
            and isinstance(meta_props, Mapping) and typed(meta_props.get("name"), "string")
            and typed(meta_props.get("generateName"), "string")):
        return dict(schema)
    # otherwise kube declares exactly these: the rest of metadata is not visible to rules
    props["kind"] = {"type": "string"}
    props["apiVersion"] = {"type": "string"}
    props["metadata"] = {"type": "object", "properties": {"name": {"type": "string"},
                                                          "generateName": {"type": "string"}}}
    return {**schema, "type": "object", "properties": props}


def schema_decl(schema: Mapping[str, Any], resource_root: bool = False) -> Decl | None:
    """The Decl of a schema node (kube's SchemaDeclType), or None where kube has no type for it."""
    if schema.get("x-kubernetes-int-or-string"):
        max_len = schema.get("maxLength")
        est = _nonneg(max_len) * 4 if max_len is not None else MAX_REQUEST_SIZE_BYTES - 2
        return Decl("dyn", max_elements=est, min_size=1)
    if resource_root or schema.get("x-kubernetes-embedded-resource"):
        schema = with_type_and_object_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, Mapping):
            return None
        item = schema_decl(items)
        if item is None:
            return None
        max_items = schema.get("maxItems")
        count = _nonneg(max_items) if max_items is not None else (MAX_REQUEST_SIZE_BYTES - 2) // (item.min_size + 1)
        return Decl("list", max_elements=count, min_size=2, elem=item, needs_convert=item.needs_convert)
    if kind == "object":
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            value = schema_decl(additional)
            if value is None:
                return None
            max_props = schema.get("maxProperties")
            count = (_nonneg(max_props) if max_props is not None
                     else (MAX_REQUEST_SIZE_BYTES - 2) // (value.min_size + 6))
            return Decl("map", max_elements=count, min_size=2, elem=value, needs_convert=value.needs_convert)
        # an object exposes its declared properties only, whatever x-kubernetes-preserve-unknown-fields says
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        decl = Decl("object", min_size=2)
        for name, prop in properties.items():
            if not isinstance(prop, Mapping):
                continue
            prop_decl = schema_decl(prop)
            if prop_decl is None:
                continue
            escaped = escape(name)
            if escaped is not None:
                decl.fields[escaped] = prop_decl
                decl.originals[escaped] = name
                if escaped != name or prop_decl.needs_convert:
                    decl.needs_convert = True
            if name in required and "default" not in prop:
                decl.min_size += len(name) + prop_decl.min_size + 4
        return decl
    if kind == "string":
        fmt = schema.get("format")
        max_len = schema.get("maxLength")
        if fmt == "byte":
            est = _nonneg(max_len) if max_len is not None else _string_max(schema)
            return Decl("bytes", max_elements=est, min_size=MIN_STRING_SIZE, needs_convert=True)
        if fmt == "duration":
            return Decl("duration", max_elements=_string_max(schema), min_size=MIN_DURATION_SIZE_JSON,
                        needs_convert=True)
        if fmt in ("date", "date-time"):
            return Decl("timestamp", max_elements=_string_max(schema),
                        min_size=JSON_DATE_SIZE if fmt == "date" else MIN_DATETIME_SIZE_JSON, needs_convert=True)
        if max_len is not None:
            est = _nonneg(max_len) * 4
        elif schema.get("enum"):
            est = max((len(v) for v in schema["enum"] if isinstance(v, str)), default=0)
        else:
            est = _string_max(schema)
        return Decl("string", max_elements=est, min_size=MIN_STRING_SIZE)
    if kind == "boolean":
        return Decl("bool", min_size=MIN_BOOL_SIZE)
    if kind == "number":
        return Decl("double", min_size=MIN_NUMBER_SIZE, needs_convert=True)
    if kind == "integer":
        return Decl("int", min_size=MIN_NUMBER_SIZE)
    return None  # an untyped node (preserved unknown data) is not visible to rules


def max_cardinality(min_size: int) -> int:
    """How many times data of this minimal size can repeat in one request (kube's maxCardinality)."""
    return MAX_REQUEST_SIZE_BYTES // (min_size + 1)


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_NS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}


def parse_duration(text: str) -> timedelta:
    """Go's time.ParseDuration ("1h30m", "-1.5s", "0"), as kube reads `format: duration` strings."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return timedelta(0)
    pos, total = 0, 0.0
    while pos < len(body):
        match = _DURATION_PART.match(body, pos)
        if match is None or match.group(1) in ("", "."):
            raise ConversionError(text)
        total += float(match.group(1)) * _UNIT_NS[match.group(2)]
        pos = match.end()
    if not body:
        raise ConversionError(text)
    ns = -total if text.startswith("-") else total
    return timedelta(microseconds=ns / 1000)


class ConversionError(ValueError):
    """A value the schema types but that does not parse as its format (schema validation reports it)."""


def _timestamp(text: str) -> datetime:
    try:
        if len(text) == 10:
            return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as err:
        raise ConversionError(text) from err
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def convert(value: Any, decl: Decl | None, memo: dict[tuple[int, int], Any] | None = None) -> Any:
    """The value a rule sees for JSON `value` typed by `decl`. `memo` keeps what one validation converted, by
    value and declaration, so that the rules of nested nodes do not convert their subtrees again (which made
    deeply ruled schemas quadratic)."""
    if decl is None or not decl.needs_convert or value is None:
        return value
    kind = decl.kind
    if kind in ("object", "map", "list") and memo is not None:
        key = (id(value), id(decl))
        found = memo.get(key, _UNSET)
        if found is not _UNSET:
            return found
        converted = _convert_container(value, decl, memo)
        memo[key] = converted
        return converted
    if kind in ("object", "map", "list"):
        return _convert_container(value, decl, memo)
    return _convert_scalar(value, decl)


_UNSET: Any = object()


def _convert_container(value: Any, decl: Decl, memo: dict[tuple[int, int], Any] | None) -> Any:
    kind = decl.kind
    if kind == "object" and isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for escaped, sub in decl.fields.items():
            original = decl.originals[escaped]
            if original in value:
                out[escaped] = convert(value[original], sub, memo)
        return out
    if kind == "map" and isinstance(value, Mapping):
        return {k: convert(v, decl.elem, memo) for k, v in value.items()}
    if kind == "list" and isinstance(value, list):
        return [convert(v, decl.elem, memo) for v in value]
    return value


def _convert_scalar(value: Any, decl: Decl) -> Any:
    kind = decl.kind
    if kind == "double" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        return value
    # cel-expr-python takes datetimes only as top-level values; the well-known messages work at any depth
    if kind == "timestamp":
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(_timestamp(value))
        return stamp
    if kind == "duration":
        span = duration_pb2.Duration()
        span.FromTimedelta(parse_duration(value))
        return span
    if kind == "bytes":
        try:
            return base64.b64decode(value, validate=True)
        except ValueError as err:
            raise ConversionError(value) from err
    return value
