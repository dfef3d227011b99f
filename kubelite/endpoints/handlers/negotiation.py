"""Response negotiation and writers: pick JSON, YAML, Table or PartialObjectMetadata from Accept, and write
objects and Status errors in that form."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache

from aiohttp import web

from kubelite.apimachinery import errors, protobuf, serializers
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.endpoints.handlers.warnings import warning_headers


class Conversion(enum.Enum):
    NONE = "none"
    TABLE = "Table"
    PARTIAL = "PartialObjectMetadata"
    PARTIAL_LIST = "PartialObjectMetadataList"


@dataclass(frozen=True, slots=True)
class Negotiated:
    content_type: str  # application/json or application/yaml
    conversion: Conversion = Conversion.NONE

    @property
    def key(self) -> str:
        """Identifies the wire form, so an event is encoded once per form for all watchers."""
        return f"{self.content_type}|{self.conversion.value}"


#: the media ranges we serve, and what each is answered with (kube tries its JSON serializer first)
_SERVED = {
    "application/json": "application/json",
    "application/*": "application/json",
    "*/*": "application/json",
    "application/yaml": "application/yaml",
    "application/yml": "application/yaml",
    protobuf.MEDIA_TYPE: protobuf.MEDIA_TYPE,
}
_CONVERSIONS = {
    "Table": Conversion.TABLE,
    "PartialObjectMetadata": Conversion.PARTIAL,
    "PartialObjectMetadataList": Conversion.PARTIAL_LIST,
}


#: what custom resources are read and written in: kube's CRD handler has no protobuf serializer
CUSTOM_MEDIA_TYPES = "application/json, application/yaml"


def refuse_protobuf(request: web.BaseRequest) -> None:
    """A custom resource's request in protobuf only: its body is a 415, an Accept of nothing else a 406."""
    if serializers.content_type_of(request.headers.get("Content-Type")) == protobuf.MEDIA_TYPE:
        raise StatusError(
            415,
            "UnsupportedMediaType",
            f"the body of the request was in an unknown format - accepted media types include: {CUSTOM_MEDIA_TYPES}",
        )
    accept = request.headers.get("Accept")
    if accept:
        ranges = serializers.parse_media_types(accept)
        if ranges and all(media.type == protobuf.MEDIA_TYPE for media in ranges):
            why = f"only the following media types are accepted: {CUSTOM_MEDIA_TYPES}"
            raise StatusError(406, "NotAcceptable", why)


def negotiate(accept: str | None, *, allow_conversion: bool = True) -> Negotiated:
    """The first acceptable media range wins; one asking for a conversion we cannot do is skipped, as kube
    skips it (any of `as`, `g`, `v` asks for one, and only meta.k8s.io v1/v1beta1 kinds are offered)."""
    return _negotiate(accept, allow_conversion)


# clients send the same few Accept headers on every request; an unacceptable one raises and is not cached
@lru_cache(maxsize=256)
def _negotiate(accept: str | None, allow_conversion: bool) -> Negotiated:
    for media in serializers.parse_media_types(accept):
        content_type = _SERVED.get(media.type)
        if content_type is None:
            continue
        if not any(key in media.params for key in ("as", "g", "v")):
            return Negotiated(content_type)
        if content_type == protobuf.MEDIA_TYPE:
            continue  # conversions (Table, PartialObjectMetadata) are served as JSON only
        conversion = _CONVERSIONS.get(media.conversion or "")
        if not allow_conversion or conversion is None:
            continue
        if media.params.get("g") != "meta.k8s.io" or media.params.get("v") not in ("v1", "v1beta1"):
            continue
        return Negotiated(content_type, conversion)
    raise errors.not_acceptable()


def encode(value: object, negotiated: Negotiated) -> bytes:
    if negotiated.content_type == "application/yaml":
        return serializers.dumps_yaml(value)
    return serializers.dumps_json(value)


def encode_body(value: Obj, negotiated: Negotiated) -> tuple[bytes, str]:
    """The body and its Content-Type; kinds without a protobuf form fall back to JSON, as kube does.

    So does an object its protobuf form cannot hold (a value out of its field's range): the write it
    answers may be committed, and the client must hear of it in some form rather than lose the connection.
    """
    if negotiated.content_type == protobuf.MEDIA_TYPE:
        if protobuf.supports(str(value.get("apiVersion") or ""), str(value.get("kind") or "")):
            try:
                return protobuf.encode(value), protobuf.MEDIA_TYPE
            except (protobuf.ProtobufError, TypeError, OverflowError):
                pass
        return serializers.dumps_json(value), "application/json"
    return encode(value, negotiated), negotiated.content_type


def write_object(
    obj: Obj,
    negotiated: Negotiated,
    status: int = 200,
    headers: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> web.Response:
    body, content_type = encode_body(obj, negotiated)
    # the header as a plain item: aiohttp's content_type setter parses and rebuilds it on every response
    response = web.Response(body=body, status=status, headers={**(headers or {}), "Content-Type": content_type})
    if warnings:
        for header in warning_headers(warnings):
            response.headers.add("Warning", header)
    return response


def write_json(value: object, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=serializers.dumps_json(value), status=status, content_type="application/json", headers=headers
    )


def write_status(err: StatusError, accept: str | None = None) -> web.Response:
    try:
        negotiated = negotiate(accept, allow_conversion=False)
    except StatusError:
        negotiated = Negotiated("application/json")
    headers = dict(err.headers)
    if err.details and "retryAfterSeconds" in err.details:
        headers["Retry-After"] = str(err.details["retryAfterSeconds"])
    body, content_type = encode_body(err.to_status(), negotiated)
    response = web.Response(body=body, status=err.code, headers=headers)
    response.content_type = content_type
    return response
