"""The route installer: one installed route per served resource, built from what its storage implements, and
the dispatch from a parsed RequestInfo to the handler of the verb (kube's `endpoints/installer.go`).

`ResourceRoutes.install` asks the storage of the resource and of each of its subresources which Protocols of
`registry.rest` it implements, as kube's `registerResourceHandlers` does with type assertions: the verbs a path
serves and discovery lists are those. Paths served by a handler of their own (scale, binding, log, the computed
reviews) are `HandlerStorage`s, kube's Connecters. Routes may be installed while the server runs; discovery
reads the installed `APIResource`s on every request.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from aiohttp import web

from kubelite.admission import AdmissionChain
from kubelite.apimachinery import errors
from kubelite.endpoints.api_resource import APIResource, describe
from kubelite.endpoints.handlers import create, delete, get, patch, subresources, update, watch
from kubelite.endpoints.handlers.list_encoding import EncodingBudget, ResourceEncodings
from kubelite.endpoints.handlers.negotiation import refuse_protobuf
from kubelite.endpoints.handlers.scope import RequestScope, SubresourceHandler
from kubelite.endpoints.request_context import WARNINGS
from kubelite.endpoints.request_info import RequestInfo
from kubelite.registry import rest
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables import default_table

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


@dataclass(frozen=True, slots=True)
class HandlerStorage:
    """A path served by one handler (kube's rest.Connecter): the HTTP methods it takes and its handler."""

    spec: ResourceSpec
    methods: tuple[str, ...]
    handler: SubresourceHandler

    def connect_methods(self) -> tuple[str, ...]:
        return self.methods


#: the subresources any resource may have that are served by their own handler, and their methods
SUBRESOURCE_HANDLERS: dict[str, tuple[tuple[str, ...], SubresourceHandler]] = {
    "scale": (("GET", "PATCH", "PUT"), subresources.scale),
    "binding": (("POST",), subresources.binding),
    "eviction": (("POST",), subresources.eviction),
    "log": (("GET",), subresources.log),
}


@dataclass(frozen=True, slots=True)
class InstalledPath:
    """One installed path: the verbs it serves and, for a Connecter, the handler that serves all of them."""

    verbs: frozenset[str]
    handler: SubresourceHandler | None = None


@dataclass(slots=True)
class InstalledResource:
    scope: RequestScope
    main: InstalledPath
    subresources: dict[str, InstalledPath]
    api_resource: APIResource


@dataclass(frozen=True, slots=True)
class ScopeOptions:
    """What every installed resource's RequestScope shares."""

    admission: AdmissionChain
    #: seconds between watch bookmarks
    bookmark_interval: float = 60.0
    #: the server's --min-request-timeout; a watch without timeoutSeconds lasts 1 to 2 times as long
    min_request_timeout: float = 1800.0
    #: the bound the list-item encodings of every installed resource share
    encoding_budget: EncodingBudget = field(default_factory=EncodingBudget)

    def randomized_watch_timeout(self) -> float:
        return self.min_request_timeout * (1 + random.random())


def _path(storage: object) -> InstalledPath:
    handler = storage.handler if isinstance(storage, HandlerStorage) else None
    return InstalledPath(frozenset(rest.discovery_verbs(storage)), handler)


def _not_found() -> errors.StatusError:
    return errors.route_not_found()


def page_not_found() -> web.Response:
    """What kube's final not-found handler writes for a group nobody serves: plain text, not a Status."""
    return web.Response(status=404, text="404 page not found\n")


class ResourceRoutes:
    """Everything installed under /api and /apis: (group, version, resource) -> installed resource."""

    def __init__(self) -> None:
        self.installed: dict[tuple[str, str, str], InstalledResource] = {}

    def install(
        self,
        spec: ResourceSpec,
        storage: object,
        subresources: Mapping[str, object],
        options: ScopeOptions,
        *,
        scope_store: object | None = None,
    ) -> InstalledResource:
        """Install `spec` served by `storage`; `subresources` are the registry's subresource storages (status,
        finalize), the others the spec names get their handler from SUBRESOURCE_HANDLERS. `scope_store` is the
        Store a computed resource's handler writes through (bindings write pods)."""
        paths: dict[str, object] = {}
        connected: dict[str, object] = {}
        for sub in spec.subresources:
            if sub.name in subresources:
                found = subresources[sub.name]
                if isinstance(found, rest.Connecter) and sub.name in SUBRESOURCE_HANDLERS:
                    # the registry's storage, served by the subresource's handler (pods/eviction)
                    connected[sub.name] = found
                    found = HandlerStorage(spec, found.connect_methods(), SUBRESOURCE_HANDLERS[sub.name][1])
                paths[sub.name] = found
            elif sub.name in SUBRESOURCE_HANDLERS:
                methods, handler = SUBRESOURCE_HANDLERS[sub.name]
                paths[sub.name] = HandlerStorage(spec, methods, handler)
            else:
                raise ValueError(
                    f"{spec.resource}/{sub.name} has no storage: register one with the resource, "
                    "or a handler in SUBRESOURCE_HANDLERS"
                )
        api_resource = describe(spec, storage, paths)
        declared = APIResource.declared(spec)
        if sorted(api_resource.verbs) != sorted(declared.verbs) or [s.verbs for s in api_resource.subresources] != [
            s.verbs for s in declared.subresources
        ]:
            # the spec's verbs are what OpenAPI publishes: they must be what the storage serves
            raise ValueError(
                f"{spec.resource}.{spec.group or 'core'}: the storage serves {api_resource.verbs} "
                f"(subresources {[s.verbs for s in api_resource.subresources]}), the ResourceSpec declares "
                f"{declared.verbs} ({[s.verbs for s in declared.subresources]}): make them agree"
            )
        strategies: dict[str, Strategy] = {
            name: strategy
            for name, sub in paths.items()
            if isinstance(strategy := getattr(sub, "strategy", None), Strategy)
        }
        table = storage.table_convertor() if isinstance(storage, rest.TableConvertor) else default_table()
        scope = RequestScope(
            spec=spec,
            # the installer knows storages by their capabilities only (registry.rest); the handlers use the Store
            store=scope_store if scope_store is not None else storage,  # type: ignore[arg-type]
            admission=options.admission,
            subresource_strategies=strategies,
            subresource_storages=connected,
            table=table,
            encodings=ResourceEncodings.for_resource(spec, options.encoding_budget, table),
            bookmark_interval=options.bookmark_interval,
            watch_timeout=options.randomized_watch_timeout,
        )
        installed = InstalledResource(
            scope, _path(storage), {name: _path(sub) for name, sub in paths.items()}, api_resource
        )
        self._forget_encodings(self.installed.get((spec.group, spec.version, spec.resource)))
        self.installed[(spec.group, spec.version, spec.resource)] = installed
        return installed

    @staticmethod
    def _forget_encodings(installed: InstalledResource | None) -> None:
        if installed is not None:
            items = installed.scope.encodings.json_items
            items.budget.leave(items)

    def uninstall(self, group: str, version: str, resource: str) -> bool:
        """Stop serving a resource (a custom resource's version no longer served); False when not installed."""
        installed = self.installed.pop((group, version, resource), None)
        self._forget_encodings(installed)
        return installed is not None

    def api_resources(self) -> list[APIResource]:
        """What discovery lists, in installation order."""
        return [installed.api_resource for installed in self.installed.values()]

    def lookup(self, info: RequestInfo) -> InstalledResource | None:
        return self.installed.get((info.api_group, info.api_version, info.resource))

    def serves_group(self, group: str) -> bool:
        return not group or any(key[0] == group for key in self.installed)

    async def serve(self, request: web.Request, info: RequestInfo) -> web.StreamResponse:
        installed = self.lookup(info)
        if installed is None:
            if not self.serves_group(info.api_group):
                return page_not_found()
            raise _not_found()
        scope = installed.scope
        spec = scope.spec
        if spec.warning:
            request[WARNINGS].append(f'299 - "{spec.warning}"')
        if spec.custom and info.subresource != "scale":  # Scale is a built-in kind, with a protobuf form
            refuse_protobuf(request)
        # /namespaces/{name} puts the name in info.namespace (kube's RequestInfo): only there may a cluster-scoped
        # resource's request carry a namespace
        if len(info.parts) > 3 or (not spec.namespaced and info.namespace and info.parts[0] != "namespaces"):
            raise _not_found()
        if spec.namespaced and not info.namespace and info.verb not in ("list", "watch"):
            raise _not_found()  # only lists and watches span namespaces
        if info.subresource:
            path = installed.subresources.get(info.subresource)
            if path is None:
                raise _not_found()
            if info.verb not in path.verbs:
                raise errors.method_not_allowed()
            if path.handler is not None:
                return await path.handler(request, scope, info)
            return await _VERB_HANDLERS[info.verb](request, scope, info)
        verb = info.verb
        # kube installs POST on collections only and PUT/PATCH on items only: go-restful answers the rest
        if (verb == "create" and info.name) or (verb in ("update", "patch") and not info.name):
            raise errors.method_not_allowed()
        main = installed.main
        if verb not in main.verbs:
            if verb == "watch" and "list" in main.verbs:  # the list route exists; its handler refuses to watch
                raise errors.method_not_supported(spec.group_resource, verb)
            raise errors.method_not_allowed()
        if main.handler is not None:
            return await main.handler(request, scope, info)
        return await _VERB_HANDLERS[verb](request, scope, info)
