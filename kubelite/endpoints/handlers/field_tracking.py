"""managedFields for writes that are not server-side apply: create, update (PUT) and non-apply patches
record an `Update` entry for their field manager, as kube's field manager does before admission runs."""

from __future__ import annotations

from aiohttp import web

from kubelite.apimachinery.apply.fieldmanager import manager_or_user_agent
from kubelite.apimachinery.meta import Obj
from kubelite.endpoints.handlers.apply_schema import track_create, track_update
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.registry.options import WriteParams


def manager_of(request: web.Request, write: WriteParams) -> str:
    """The `fieldManager` asked for, else the User-Agent's product name (kube's prefixFromUserAgent)."""
    return manager_or_user_agent(write.field_manager, request.headers.get("User-Agent", ""))


def record_create(scope: RequestScope, obj: Obj, manager: str) -> Obj:
    """Record a create; the Store has defaulted `obj` first (kube defaults while decoding), so the creator owns
    the defaulted fields too."""
    return track_create(scope.spec, obj, manager)


def record_update(scope: RequestScope, old: Obj, new: Obj, manager: str, subresource: str) -> Obj:
    """Record an update of `old` into the defaulted `new`."""
    return track_update(
        scope.spec, old, new, manager, subresource, status_resets_labels=scope.store.strategy.status_resets_labels
    )
