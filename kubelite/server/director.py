"""The director: after the filter chain, sends each request to what serves its path.

Resource requests go to the installed resource routes; everything else (health, version, discovery,
OpenAPI, swagger-ui) is a non-resource path. Unknown paths get kube's plain `404 page not found`.
"""

from __future__ import annotations

from aiohttp import web

from kubelite.endpoints.handlers.negotiation import write_json
from kubelite.endpoints.installer import ResourceRoutes
from kubelite.endpoints.request_context import request_info_from
from kubelite.server.healthz import HealthChecks, version_info
from kubelite.server.nonresource import DiscoveryHandlers, OpenAPIHandlers


class Director:
    def __init__(
        self,
        routes: ResourceRoutes,
        discovery: DiscoveryHandlers,
        openapi: OpenAPIHandlers,
        health: HealthChecks,
    ) -> None:
        self.routes = routes
        self.discovery = discovery
        self.openapi = openapi
        self.health = health

    def root_paths(self) -> list[str]:
        paths = [
            "/api",
            "/api/v1",
            "/apis",
            "/healthz",
            "/livez",
            "/openapi/v2",
            "/openapi/v3",
            "/readyz",
            "/version",
            "/swagger-ui/",
        ]
        for group in self.discovery.discovery.group_names:
            paths.append(f"/apis/{group}")
            paths.extend(f"/apis/{group}/{v}" for v in self.discovery.discovery._versions(group))
        return sorted(paths)

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        info = request_info_from(request)
        if info.is_resource_request:
            return await self.routes.serve(request, info)
        path = request.path.rstrip("/") or "/"
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=405, text="405: Method Not Allowed\n")
        parts = path.strip("/").split("/") if path != "/" else []
        if path == "/":
            return write_json({"paths": self.root_paths()})
        if parts[0] in ("healthz", "livez", "readyz") and len(parts) <= 2:
            return await self.health.handle(request)
        if path == "/version":
            return write_json(version_info())
        if path == "/api":
            return await self.discovery.api(request)
        if path == "/apis":
            return await self.discovery.apis(request)
        if parts[0] == "api" and len(parts) == 2:
            return await self.discovery.group_version(request, "", parts[1])
        if parts[0] == "apis" and len(parts) == 2:
            return await self.discovery.group(request, parts[1])
        if parts[0] == "apis" and len(parts) == 3:
            return await self.discovery.group_version(request, parts[1], parts[2])
        if path == "/openapi/v3":
            return await self.openapi.v3_index(request)
        if parts[:2] == ["openapi", "v3"]:
            return await self.openapi.v3_document(request, "/".join(parts[2:]))
        if path == "/openapi/v2":
            return await self.openapi.v2(request)
        if parts[0] == "swagger-ui" and len(parts) <= 2:
            return await self.openapi.swagger_ui(request, parts[1] if len(parts) == 2 else "")
        return web.Response(status=404, text="404 page not found\n")
