"""Non-resource endpoints: discovery documents, OpenAPI, swagger-ui."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import TypeVar

from aiohttp import web

from kubelite.apimachinery import serializers
from kubelite.endpoints.discovery import AGGREGATED_V2, AGGREGATED_V2BETA1, Discovery
from kubelite.endpoints.handlers.negotiation import write_json
from kubelite.endpoints.installer import _not_found, page_not_found
from kubelite.endpoints.openapi import OpenAPIBuilder, swagger_ui, v2_protobuf

_T = TypeVar("_T")

#: what /openapi/v2 answers, by what the client accepts, in kube-openapi's order: (type, subtype,
#: the Content-Type answered, whether it is protobuf). Both spellings of the protobuf type get the one
#: without `@`, which (unlike the other) is a valid media type to Go's mime parser.
_V2_ENCODINGS = (
    ("application", "json", "application/json", False),
    ("application", v2_protobuf.MEDIA_TYPE.partition("/")[2], v2_protobuf.CONTENT_TYPE, True),
    ("application", v2_protobuf.CONTENT_TYPE.partition("/")[2], v2_protobuf.CONTENT_TYPE, True),
)


def _v2_encoding(accept: str | None) -> tuple[str, bool] | None:
    """The Content-Type to answer /openapi/v2 with and whether it is protobuf; None: nothing acceptable.

    As kube-openapi: the client's media ranges best first, each matched against the encodings in order.
    """
    for media in serializers.parse_media_types(accept):
        main, _, sub = media.type.partition("/")
        for enc_main, enc_sub, content_type, protobuf in _V2_ENCODINGS:
            if main in (enc_main, "*") and sub in (enc_sub, "*"):
                return content_type, protobuf
    return None


def _wants_aggregated(accept: str | None) -> str | None:
    for media in serializers.parse_media_types(accept):
        if media.type == "application/json" and media.conversion == "APIGroupDiscoveryList":
            if media.params.get("g") == "apidiscovery.k8s.io" and media.params.get("v") in ("v2", "v2beta1"):
                return AGGREGATED_V2 if media.params["v"] == "v2" else AGGREGATED_V2BETA1
        if media.type in ("application/json", "*/*", "application/*"):
            return None
    return None


class DiscoveryHandlers:
    def __init__(self, discovery: Discovery) -> None:
        self.discovery = discovery

    def _aggregated(self, request: web.Request, legacy: bool, content_type: str) -> web.Response:
        body = self.discovery.aggregated(legacy)
        if content_type == AGGREGATED_V2BETA1:
            body["apiVersion"] = "apidiscovery.k8s.io/v2beta1"
        data = serializers.dumps_json(body)
        # as kube's aggregated discovery handler: an ETag of the document, and 304 when the client has it
        headers = {"Vary": "Accept", "ETag": f'"{hashlib.sha512(data).hexdigest().upper()}"'}
        if request.headers.get("If-None-Match") == headers["ETag"]:
            return web.Response(status=304, headers=headers)
        response = web.Response(body=data, headers=headers)
        response.headers["Content-Type"] = content_type
        return response

    async def api(self, request: web.Request) -> web.Response:
        aggregated = _wants_aggregated(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(request, True, aggregated)
        return write_json(self.discovery.api_versions(), headers={"Vary": "Accept"})

    async def apis(self, request: web.Request) -> web.Response:
        aggregated = _wants_aggregated(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(request, False, aggregated)
        return write_json(self.discovery.api_group_list(), headers={"Vary": "Accept"})

    async def group(self, request: web.Request, group: str) -> web.Response:
        doc = self.discovery.api_group(group)
        if doc is None:
            return page_not_found()
        return write_json(doc)

    async def group_version(self, request: web.Request, group: str, version: str) -> web.Response:
        doc = self.discovery.resource_list(group, version)
        if doc is None:
            if group and group not in self.discovery.group_names:
                return page_not_found()  # nothing claims the group: kube's plain not-found handler answers
            raise _not_found()
        return write_json(doc)


class OpenAPIHandlers:
    """Serves the documents with ETags; hashed v3 URLs are immutable, so kubectl caches them across runs."""

    def __init__(self, builder: OpenAPIBuilder) -> None:
        self.builder = builder

    async def _built(self, what: str, build: Callable[[], _T]) -> _T:
        # a document that changed since it was last served is rendered off the event loop
        if self.builder.is_built(what):
            return build()
        return await asyncio.to_thread(build)

    @staticmethod
    def _respond(request: web.Request, body: bytes, headers: dict[str, str], status: int = 200) -> web.Response:
        if status == 200 and request.headers.get("If-None-Match") == headers.get("Etag"):
            return web.Response(status=304, headers={k: v for k, v in headers.items() if k != "Content-Type"})
        return web.Response(status=status, body=body or None, headers=headers)

    async def v3_index(self, request: web.Request) -> web.Response:
        body, tag = await self._built("index", self.builder.v3_index_document)
        headers = {"Content-Type": "application/json", "Etag": f'"{tag}"', "Vary": "Accept"}
        return self._respond(request, body, headers)

    async def v3_document(self, request: web.Request, gv_path: str) -> web.Response:
        requested_hash = request.query.get("hash")
        reply = await self._built(gv_path, lambda: self.builder.v3_reply(gv_path, requested_hash))
        if reply.status == 404:
            raise _not_found()
        return self._respond(request, reply.body, dict(reply.headers), reply.status)

    async def v2(self, request: web.Request) -> web.Response:
        encoding = _v2_encoding(request.headers.get("Accept"))
        if encoding is None:
            return web.Response(status=406, headers={"Vary": "Accept"})  # kube-openapi's bare 406
        content_type, protobuf = encoding
        if protobuf:
            body, tag = await self._built("v2-protobuf", self.builder.v2_protobuf)
        else:
            body, tag = await self._built("v2", self.builder.v2_document)
        headers = {"Content-Type": content_type, "Etag": f'"{tag}"', "Vary": "Accept"}
        return self._respond(request, body, headers)

    async def swagger_ui(self, request: web.Request, name: str) -> web.Response:
        if name in ("", "index.html"):
            return web.Response(body=swagger_ui.page(), content_type="text/html")
        found = swagger_ui.asset(name)
        if found is None:
            return web.Response(status=404, text="404 page not found\n")
        body, content_type = found
        return web.Response(body=body, headers={"Content-Type": content_type, "Cache-Control": "public, max-age=86400"})
