"""Encoding and decoding of request and response bodies (JSON and YAML), and media type negotiation.

kube-apiserver picks the response encoding from the Accept header (JSON, YAML, protobuf, and the `as=Table`
/ `as=PartialObjectMetadata` conversions expressed as media type parameters). Request bodies are decoded per
Content-Type; a missing Content-Type means JSON, as kubectl sometimes sends none.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

from kubelite.apimachinery import errors, gofmt
from kubelite.apimachinery.cached import plain
from kubelite.apimachinery.meta import deep_copy

try:  # libyaml's C loader/dumper when PyYAML was built with it
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - depends on the wheel
    # the pure-Python classes stand in for the C ones: other classes, the same interface
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]


class _Loader(_SafeLoader):
    """YAML into the values kube's YAML-to-JSON conversion (go-yaml v2, then sigs.k8s.io/yaml) makes.

    Timestamps stay strings and `!!binary` is its decoded bytes as text, as go-yaml decodes both into an
    interface{}; map keys that are numbers or booleans become their text, as JSON needs string keys.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        # PyYAML's own loop, with keys made text as they are read: `1` and `true` stay two keys, as in Go
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
        mapping: dict[Hashable, Any] = {}  # PyYAML's signature; every key made here is text
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if type(key) is not str:
                if not isinstance(key, Hashable):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
                    )
                key = _key_text(key)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _construct_value_tag(loader: _Loader, node: yaml.ScalarNode) -> str:
    """A bare `=` is YAML 1.1's "value" key type, which go-yaml reads as the string it is (an enum of operators
    writes it so)."""
    return str(loader.construct_scalar(node))


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int | float:
    """An integer beyond 64 bits is the float go-yaml makes of it, not a number no encoder here can write."""
    try:
        value = _SafeLoader.construct_yaml_int(loader, node)
        return float(value) if not -(2**63) <= value < 2**64 else value
    except (ValueError, OverflowError) as exc:  # past Python's digit limit, or past a float's range
        raise yaml.constructor.ConstructorError(None, None, "integer out of range", node.start_mark) from exc


_Loader.add_constructor("tag:yaml.org,2002:value", _construct_value_tag)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _key_text(key: Any) -> str:
    """sigs.k8s.io/yaml's text for a map key that is not a string."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        if key != key:
            return ".nan"
        if key in (float("inf"), float("-inf")):
            return ".inf" if key > 0 else "-.inf"
        return _go_float32_text(key)
    described = "<nil>" if key is None else type(key).__name__
    raise yaml.constructor.ConstructorError(None, None, f"unsupported map key of type: {described}")


def _go_float32_text(value: float) -> str:
    """Go's strconv.FormatFloat(value, 'g', -1, 32): the fewest digits that read back as the same float32,
    in exponent form when the exponent is below -4 or at least 6."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    digits = 1
    while digits < 9 and struct.unpack("f", struct.pack("f", float(f"{single:.{digits - 1}e}")))[0] != single:
        digits += 1
    power = int(f"{single:e}".partition("e")[2]) if single else 0
    if power < -4 or power >= 6:
        return f"{single:.{digits - 1}e}"
    return f"{single:.{max(digits - 1 - power, 0)}f}"


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(node.value)


def _binary_as_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    try:
        return base64.b64decode(str(node.value).encode(), validate=False).decode(errors="replace")
    except (ValueError, binascii.Error) as exc:
        raise yaml.constructor.ConstructorError(None, None, f"failed to decode !!binary: {exc}") from exc


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
_Loader.add_constructor("tag:yaml.org,2002:binary", _binary_as_text)

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


@dataclass(frozen=True, slots=True)
class MediaType:
    type: str
    params: dict[str, str] = field(default_factory=dict)
    quality: float = 1.0

    @property
    def conversion(self) -> str | None:
        """`Table`, `PartialObjectMetadata(List)` or `APIGroupDiscoveryList` when asked with `as=`."""
        return self.params.get("as")


def parse_media_types(header: str | None) -> list[MediaType]:
    """Parse an Accept header into media types, best first.

    As kube's goautoneg orders them: by quality, then a concrete type before `*`, a concrete subtype before
    `*`, then as written. Ranges with q=0 are dropped (RFC 9110: not acceptable).
    """
    if not header:
        return [MediaType("*/*")]
    out: list[tuple[float, bool, bool, int, MediaType]] = []
    for index, part in enumerate(header.split(",")):
        pieces = [p.strip() for p in part.split(";")]
        mtype = pieces[0].lower()
        if not mtype:
            continue
        params: dict[str, str] = {}
        quality = 1.0
        for piece in pieces[1:]:
            if "=" not in piece:
                continue
            key, _, value = piece.partition("=")
            key, value = key.strip(), value.strip().strip('"')
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
            else:
                params[key] = value
        main, _, sub = mtype.partition("/")
        out.append((-quality, main == "*", sub == "*", index, MediaType(mtype, params, quality)))
    out.sort(key=lambda t: t[:4])
    return [t[4] for t in out if t[4].quality > 0]


def content_type_of(header: str | None) -> str:
    if not header:
        return JSON
    return header.split(";", 1)[0].strip().lower() or JSON


def dumps_json(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        # what orjson cannot hold (integers beyond 64 bits, from YAML bodies) the standard library can:
        # a response must not fail to encode once its write is committed
        return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False).encode()


def dumps_yaml(value: Any) -> bytes:
    """As kube writes YAML (JSON re-marshalled by go-yaml): keys sorted, long strings never folded."""
    value = plain(value)  # cached objects hold parts as pre-encoded JSON (see apimachinery.compact)
    text = yaml.dump(value, Dumper=_Dumper, default_flow_style=False, sort_keys=True, allow_unicode=True, width=1 << 30)
    return text.encode()


def go_json_type(value: Any) -> str:
    """How Go's encoding/json names a decoded JSON value's type in its unmarshal errors."""
    return gofmt.json_type(value)


class DecodeError(ValueError):
    pass


#: the nesting depth (objects and arrays) a decoded body may reach. kube's decoders stop at 10,000 levels
#: (Go's encoding/json); kubelite's encoder (orjson) stops at 254, and a stored object gains a few levels
#: in lists, watch events, Tables and managedFields, so bodies stop well below that.
MAX_DEPTH = 200
_ENCODER_DEPTH = 254


#: the encoder's levels the depth check fills with arrays of its own, so that a value fails to encode exactly
#: when it nests deeper than MAX_DEPTH
_PADDING_LEVELS = _ENCODER_DEPTH - MAX_DEPTH

#: nested arrays of _PADDING_LEVELS levels, as (outermost, innermost), kept for reuse: building them costs
#: more than encoding a typical body. list.pop and list.append are atomic, so threads never share one.
_spare_padding: list[tuple[list[Any], list[Any]]] = []


def _padding() -> tuple[list[Any], list[Any]]:
    try:
        return _spare_padding.pop()
    except IndexError:
        innermost: list[Any] = []
        outermost = innermost
        for _ in range(_PADDING_LEVELS - 1):
            outermost = [outermost]
        return outermost, innermost


def check_depth(value: Any) -> None:
    """Refuse a value nested deeper than MAX_DEPTH: it could be decoded, but not stored or encoded.

    orjson's own recursion limit measures it, in C: the value inside as many arrays as the encoder has
    levels beyond MAX_DEPTH fails to encode exactly when it is too deep.
    """
    outermost, innermost = _padding()
    innermost.append(value)
    try:
        orjson.dumps(outermost)
    except orjson.JSONEncodeError as exc:
        if "Recursion limit" in str(exc):
            raise DecodeError("exceeded max depth") from None
        # what orjson cannot hold (integers beyond 64 bits, from YAML) stopped it before it saw every level
        if _depth(value) > MAX_DEPTH:
            raise DecodeError("exceeded max depth") from None
    finally:
        innermost.clear()
        _spare_padding.append((outermost, innermost))


def _depth(value: Any) -> int:
    """The nesting depth of a value, walked level by level (only for what orjson cannot encode)."""
    depth = 0
    level = [value]
    while level:
        containers = [item for item in level if isinstance(item, dict | list)]
        if containers:
            depth += 1
        level = [child for item in containers for child in (item.values() if isinstance(item, dict) else item)]
    return depth


#: what is left of a body without them is its opening brackets: one pass in C, where two counts are two
_ALL_BUT_OPENING = bytes(byte for byte in range(256) if byte not in b"{[")


def may_be_deeper_than_limit(body: bytes) -> bool:
    """A body with no more opening brackets than MAX_DEPTH cannot nest deeper (one pass in C).

    For protobuf bodies too: their embedded raw JSON is what may nest.
    """
    return len(body.translate(None, _ALL_BUT_OPENING)) > MAX_DEPTH


#: a JSON text nesting deeper than MAX_DEPTH has more than MAX_DEPTH opening and as many closing brackets
_SHORTEST_TOO_DEEP = 2 * (MAX_DEPTH + 1)
#: up to this length counting a body's brackets costs less than encoding it; beyond, long strings make
#: counting dearer, and bodies that long mostly carry managedFields, whose brackets are past the limit
_COUNTED_UP_TO = 4096


def loads_json(body: bytes) -> Any:
    """JSON into values, refusing what nests deeper than MAX_DEPTH.

    The depth is measured only where it may be too deep: not below the shortest text that can be, nor in
    a short body with no more opening brackets than MAX_DEPTH (one pass in C, brackets in strings
    included). Every other body is measured by encoding its value, a pass in C as well.
    """
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):  # orjson stops at 1024 levels
            raise DecodeError("exceeded max depth") from None
        raise DecodeError(str(exc)) from exc
    length = len(body)
    if length < _SHORTEST_TOO_DEEP:
        return value
    if length <= _COUNTED_UP_TO and not may_be_deeper_than_limit(body):
        return value
    check_depth(value)
    return value


def loads_yaml(body: bytes) -> Any:
    """YAML into JSON values, refusing documents whose aliases expand far beyond their size.

    PyYAML builds an alias as a second reference to the anchored value, so the document itself stays
    small, but everything after decoding (encoding, copying, validation) walks the expansion: nine levels
    of nine aliases are 409 bytes and hundreds of millions of nodes. go-yaml (kube's decoder) counts
    the nodes it decodes and how many of them come from aliases, and refuses documents where the aliased
    share is out of proportion (CVE-2019-11253); kubelite counts the same on the composed node graph,
    without expanding it.
    """
    try:
        if b"*" not in body:  # no alias: nothing to expand
            value = yaml.load(body, Loader=_Loader)
        else:
            loader = _Loader(body)
            try:
                node = loader.get_single_node()
                if node is None:
                    return None
                if _count_alias_expansion(node):
                    # aliases share the anchored value; copies keep later changes to one place
                    value = deep_copy(loader.construct_document(node))
                else:
                    value = loader.construct_document(node)
            finally:
                loader.dispose()
    except yaml.YAMLError as exc:
        raise DecodeError(str(exc).replace("\n", " ")) from exc
    except RecursionError as exc:
        raise DecodeError("exceeded max depth") from exc
    if isinstance(value, (dict, list)):
        check_depth(value)  # YAML nests by indentation: no cheap count of brackets tells the depth
    return value


#: go-yaml's thresholds: documents of up to 400,000 decoded nodes may take 99% of them from aliases, the
#: allowance falls to 10% at 4,000,000 nodes; below 1,000 nodes or 100 aliased nodes anything goes
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _count_alias_expansion(root: yaml.Node) -> int:
    """The nodes aliases add to the document, refusing excessive aliasing as go-yaml does.

    One walk over the node graph, each node once: a node met again is an alias, and adds the size of its
    whole expansion (memoised per node) without being walked again. A node met again while it is still
    being walked contains itself.
    """
    expanded_size: dict[int, int] = {}
    walking: set[int] = set()
    decoded = aliased = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            walking.discard(key)
            expanded_size[key] = 1 + sum(expanded_size[id(child)] for child in _children(node))
            continue
        if key in walking:
            raise DecodeError("anchor value contains itself")
        if key in expanded_size:
            size = expanded_size[key]
            decoded += size
            aliased += size
            if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
                raise DecodeError("document contains excessive aliasing")
            continue
        decoded += 1
        walking.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    return aliased


def decode_body(body: bytes, content_type: str) -> Any:
    """Decode a request body as its Content-Type says; errors become 400 or 415 Statuses."""
    try:
        if content_type in (JSON, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH):
            return loads_json(body)
        if content_type in (YAML, APPLY_PATCH, "application/yml", "text/yaml"):
            return loads_yaml(body)
    except DecodeError as exc:
        raise errors.bad_request(f"error decoding request body: {exc}") from exc
    raise errors.unsupported_media_type(content_type)
