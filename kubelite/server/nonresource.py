"""Non-resource endpoints: discovery documents, OpenAPI, swagger-ui."""

from __future__ import annotations

from importlib import resources

from aiohttp import web

from kubelite.apimachinery import serializers
from kubelite.endpoints.discovery import AGGREGATED_V2, AGGREGATED_V2BETA1, Discovery
from kubelite.endpoints.handlers.negotiation import write_json
from kubelite.endpoints.installer import _not_found


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

    def _aggregated(self, legacy: bool, content_type: str) -> web.Response:
        body = self.discovery.aggregated(legacy)
        if content_type == AGGREGATED_V2BETA1:
            body["apiVersion"] = "apidiscovery.k8s.io/v2beta1"
        response = web.Response(body=serializers.dumps_json(body))
        response.headers["Content-Type"] = content_type
        response.headers["Vary"] = "Accept"
        return response

    async def api(self, request: web.Request) -> web.Response:
        aggregated = _wants_aggregated(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(True, aggregated)
        return write_json(self.discovery.api_versions(), headers={"Vary": "Accept"})

    async def apis(self, request: web.Request) -> web.Response:
        aggregated = _wants_aggregated(request.headers.get("Accept"))
        if aggregated:
            return self._aggregated(False, aggregated)
        return write_json(self.discovery.api_group_list(), headers={"Vary": "Accept"})

    async def group(self, request: web.Request, group: str) -> web.Response:
        doc = self.discovery.api_group(group)
        if doc is None:
            raise _not_found()
        return write_json(doc)

    async def group_version(self, request: web.Request, group: str, version: str) -> web.Response:
        doc = self.discovery.resource_list(group, version)
        if doc is None:
            raise _not_found()
        return write_json(doc)


class OpenAPIHandlers:
    """Serves documents with ETags; hashed v3 URLs are immutable, so kubectl caches them across runs."""

    def __init__(self, builder: object) -> None:
        self.builder = builder

    @staticmethod
    def _respond(request: web.Request, body: bytes, etag: str, immutable: bool) -> web.Response:
        quoted = f'"{etag}"'
        headers = {"Etag": quoted, "Vary": "Accept"}
        headers["Cache-Control"] = "public, immutable" if immutable else "no-cache, private"
        if immutable:
            headers["Expires"] = "Thu, 31 Dec 2099 23:59:59 GMT"
        if request.headers.get("If-None-Match") == quoted:
            return web.Response(status=304, headers=headers)
        response = web.Response(body=body, headers=headers)
        response.headers["Content-Type"] = "application/json"
        return response

    async def v3_index(self, request: web.Request) -> web.Response:
        body = serializers.dumps_json(self.builder.v3_index())  # type: ignore[attr-defined]
        import hashlib

        return self._respond(request, body, hashlib.sha512(body).hexdigest().upper(), False)

    async def v3_document(self, request: web.Request, gv_path: str) -> web.Response:
        found = self.builder.v3_document(gv_path)  # type: ignore[attr-defined]
        if found is None:
            raise _not_found()
        body, digest = found
        requested = request.query.get("hash")
        return self._respond(request, body, digest, immutable=requested == digest)

    async def v2(self, request: web.Request) -> web.Response:
        accept = request.headers.get("Accept") or ""
        if "protobuf" in accept and "json" not in accept and "*/*" not in accept:
            return web.Response(status=406, text="406 Not Acceptable: only application/json is served\n")
        body, digest = self.builder.v2_document()  # type: ignore[attr-defined]
        return self._respond(request, body, digest, False)

    async def swagger_ui(self, request: web.Request) -> web.Response:
        page = resources.files("kubelite.endpoints").joinpath("swagger_ui.html")
        if not page.is_file():
            raise _not_found()
        return web.Response(body=page.read_bytes(), content_type="text/html")
