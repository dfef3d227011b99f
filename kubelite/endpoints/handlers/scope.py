"""RequestScope: everything a verb handler needs about the resource it serves (kube's `handlers.RequestScope`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from aiohttp import web

from kubelite.admission import AdmissionChain
from kubelite.apimachinery import errors
from kubelite.endpoints.handlers.list_encoding import ResourceEncodings
from kubelite.endpoints.request_info import RequestInfo
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables import TableSpec, default_table


class SubresourceHandler(Protocol):
    async def __call__(self, request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse: ...


@dataclass(slots=True)
class RequestScope:
    spec: ResourceSpec
    store: Store
    admission: AdmissionChain
    #: the encoding caches this resource's serving path owns (list items, Table facts), within a server's budget
    encodings: ResourceEncodings
    #: strategies of update-able subresources (status, finalize)
    subresource_strategies: dict[str, Strategy] = field(default_factory=dict)
    #: the registry's storages of subresources served by a handler of their own (pods/eviction)
    subresource_storages: dict[str, object] = field(default_factory=dict)
    #: what `kubectl get` prints for the resource: its storage's TableConvertor
    table: TableSpec = field(default_factory=default_table)
    #: seconds between watch bookmarks
    bookmark_interval: float = 60.0
    #: bound handler for the default watch timeout (kube: min-request-timeout 1800s, randomized)
    watch_timeout: Callable[[], float] = lambda: 1800.0
    on_response: Callable[[], Awaitable[None]] | None = None

    def write_strategy(self, subresource: str, name: str) -> Strategy | None:
        """The strategy a PUT or PATCH uses: the resource's own (None) or its subresource's; 404 if neither."""
        if not subresource:
            return None
        strategy = self.subresource_strategies.get(subresource)
        if strategy is None:
            raise errors.not_found(self.spec.group_resource, name)
        return strategy
