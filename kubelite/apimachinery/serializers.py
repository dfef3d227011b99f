"""Encoding and decoding of request and response bodies (JSON and YAML), and media type negotiation.

kube-apiserver picks the response encoding from the Accept header (JSON, YAML, protobuf, and the `as=Table`
/ `as=PartialObjectMetadata` conversions expressed as media type parameters). Request bodies are decoded per
Content-Type; a missing Content-Type means JSON, as kubectl sometimes sends none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

from kubelite.apimachinery import errors, gofmt
from kubelite.apimachinery.cached import plain

try:  # libyaml's C loader/dumper when PyYAML was built with it
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the wheel
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

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
    return orjson.dumps(value)


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


def loads_json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise DecodeError(str(exc)) from exc


def loads_yaml(body: bytes) -> Any:
    try:
        return yaml.load(body, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise DecodeError(str(exc).replace("\n", " ")) from exc


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
