"""The route installer: one RequestScope per served resource, and the dispatch from a parsed RequestInfo
to the verb handler the resource supports (kube's `endpoints/installer.go`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from kubelite.apimachinery import errors
from kubelite.endpoints.handlers import create, delete, get, patch, subresources, update, watch
from kubelite.endpoints.handlers.scope import RequestScope, SubresourceHandler
from kubelite.endpoints.request_context import WARNINGS
from kubelite.endpoints.request_info import RequestInfo

Handler = Callable[[web.Request, RequestScope, RequestInfo], Awaitable[web.StreamResponse]]

_VERB_HANDLERS: dict[str, Handler] = {
    "get": get.get,
    "list": get.list_,
    "watch": watch.watch,
    "create": create.create,
    "update": update.update,
    "patch": patch.patch,
    "delete": delete.delete,
    "deletecollection": delete.delete_collection,
}

#: subresources served by their own handler rather than by the verb handlers with a subresource strategy
SUBRESOURCE_HANDLERS: dict[str, SubresourceHandler] = {
    "scale": subresources.scale,
    "binding": subresources.binding,
    "log": subresources.log,
}

NOT_FOUND = errors.StatusError(
    404,
    "NotFound",
    "the server could not find the requested resource",
    {"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]},
)


def _not_found() -> errors.StatusError:
    return errors.route_not_found()


def page_not_found() -> web.Response:
    """What kube's final not-found handler writes for a group nobody serves: plain text, not a Status."""
    return web.Response(status=404, text="404 page not found\n")


class ResourceRoutes:
    """Everything installed under /api and /apis: (group, version, resource) -> scope."""

    def __init__(self) -> None:
        self.scopes: dict[tuple[str, str, str], RequestScope] = {}

    def install(self, scope: RequestScope) -> None:
        spec = scope.spec
        self.scopes[(spec.group, spec.version, spec.resource)] = scope

    def lookup(self, info: RequestInfo) -> RequestScope | None:
        return self.scopes.get((info.api_group, info.api_version, info.resource))

    def serves_group(self, group: str) -> bool:
        return not group or any(key[0] == group for key in self.scopes)

    async def serve(self, request: web.Request, info: RequestInfo) -> web.StreamResponse:
        scope = self.lookup(info)
        if scope is None:
            if not self.serves_group(info.api_group):
                return page_not_found()
            raise _not_found()
        if scope.spec.warning:
            request[WARNINGS].append(f'299 - "{scope.spec.warning}"')
        spec = scope.spec
        if len(info.parts) > 3 or (not spec.namespaced and info.namespace and spec.resource != "namespaces"):
            raise _not_found()
        if spec.namespaced and not info.namespace and info.verb not in ("list", "watch"):
            raise _not_found()  # only lists and watches span namespaces
        if info.subresource:
            sub = spec.subresource(info.subresource)
            if sub is None:
                raise _not_found()
            if info.verb not in sub.verbs:
                raise errors.method_not_allowed()
            handler = scope.subresource_handlers.get(info.subresource)
            if handler is not None:
                return await handler(request, scope, info)
            if info.verb == "get":
                return await get.get(request, scope, info)
            return await _VERB_HANDLERS[info.verb](request, scope, info)
        verb = info.verb
        # kube installs POST on collections only and PUT/PATCH on items only: go-restful answers the rest
        if (verb == "create" and info.name) or (verb in ("update", "patch") and not info.name):
            raise errors.method_not_allowed()
        if scope.create_handler is not None and verb == "create":
            return await scope.create_handler(request, scope, info)
        if verb not in spec.verbs:
            if verb == "watch" and "list" in spec.verbs:  # the list route exists; its handler refuses to watch
                raise errors.method_not_supported(spec.group_resource, verb)
            raise errors.method_not_allowed()
        return await _VERB_HANDLERS[verb](request, scope, info)
