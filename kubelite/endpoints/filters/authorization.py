"""Authorization (kube's `WithAuthorization`): the authorizer is asked about every request whose user the
authentication filter recognised (public paths need no one); a denial is kube's 403 with its message."""

from __future__ import annotations

from collections.abc import Awaitable

from aiohttp import web

from kubelite.apimachinery.errors import StatusError
from kubelite.auth.authz.interface import AuthorizationAttributes, Authorizer
from kubelite.auth.user import UserInfo
from kubelite.endpoints.filters.types import Filter, Handler
from kubelite.endpoints.request_context import request_info_from, user_from
from kubelite.endpoints.request_info import RequestInfo


def authorize(authorizer: Authorizer, request: web.Request, user: UserInfo, info: RequestInfo) -> None:
    """Ask the authorizer about the request; a denial is kube's 403 with its message."""
    attrs = AuthorizationAttributes(
        user=user,
        verb=info.verb,
        namespace=info.namespace,
        api_group=info.api_group,
        api_version=info.api_version,
        resource=info.resource,
        subresource=info.subresource,
        name=info.name,
        path=request.path,
        resource_request=info.is_resource_request,
    )
    decision = authorizer.authorize(attrs)
    if not decision.allowed:
        raise forbidden(attrs, decision.reason)


def authorization(authorizer: Authorizer) -> Filter:
    def wrap(next_handler: Handler) -> Handler:
        def check(request: web.Request) -> Awaitable[web.StreamResponse]:
            user = user_from(request)
            if user is not None:
                authorize(authorizer, request, user, request_info_from(request))
            return next_handler(request)

        return check

    return Filter("authorization", wrap)


def forbidden(attrs: AuthorizationAttributes, reason: str) -> StatusError:
    """kube's responsewriters.Forbidden message."""
    name = attrs.user.name if attrs.user else "system:anonymous"
    suffix = f": {reason}" if reason else ""
    if not attrs.resource_request:
        return StatusError(
            403, "Forbidden", f'forbidden: User "{name}" cannot {attrs.verb} path "{attrs.path}"{suffix}', {}
        )
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    where = f' in the namespace "{attrs.namespace}"' if attrs.namespace else " at the cluster scope"
    qualified = f"{attrs.resource}.{attrs.api_group}" if attrs.api_group else attrs.resource
    target = f'{qualified} "{attrs.name}"' if attrs.name else qualified
    message = (
        f'{target} is forbidden: User "{name}" cannot {attrs.verb} resource "{resource}" in API group '
        f'"{attrs.api_group}"{where}{suffix}'
    )
    details: dict[str, str] = {"name": attrs.name} if attrs.name else {}
    if attrs.api_group:
        details["group"] = attrs.api_group
    details["kind"] = attrs.resource
    return StatusError(403, "Forbidden", message, details)
