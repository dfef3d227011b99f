"""The handler chain, one list in request order (kube's DefaultBuildHandlerChain, read bottom-up):
panic recovery -> request info -> authentication -> authorization -> the director."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import StatusError
from kubelite.auth.authn.x509 import CertificateAuthError, authenticate_peer_cert
from kubelite.auth.authz.interface import AuthorizationAttributes, Authorizer
from kubelite.auth.user import UserInfo
from kubelite.endpoints.handlers.negotiation import write_status
from kubelite.endpoints.request_context import (
    WARNINGS,
    request_info_from,
    user_from,
    with_request_info,
    with_user,
)
from kubelite.endpoints.request_info import parse_request_info

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: paths anyone may read without credentials (kube's system:public-info-viewer)
PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})

#: who the insecure port treats every request as (kube's old insecure port: no authn, no authz)
INSECURE_USER = UserInfo(name="system:unsecured", groups=("system:masters", "system:authenticated"))


@web.middleware
async def recover_panics(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure leaves as a Status: known ones with their code, anything else as a 500."""
    try:
        return await handler(request)
    except StatusError as exc:
        return write_status(exc, request.headers.get("Accept"))
    except web.HTTPException:
        raise
    except Exception as exc:
        log.exception("internal error serving %s %s", request.method, request.path)
        return write_status(errors.internal_error(f"{type(exc).__name__}: {exc}"), request.headers.get("Accept"))


@web.middleware
async def request_info(request: web.Request, handler: Handler) -> web.StreamResponse:
    with_request_info(request, parse_request_info(request.method, request.path, request.query))  # type: ignore[arg-type]
    request[WARNINGS] = []
    response = await handler(request)
    if not response.prepared:  # a stream (watch) wrote its warnings when it started
        for warning in request[WARNINGS]:
            response.headers.add("Warning", warning)
    return response


def authenticate_insecure() -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    @web.middleware
    async def authenticate(request: web.Request, handler: Handler) -> web.StreamResponse:
        with_user(request, INSECURE_USER)
        return await handler(request)

    return authenticate


def authenticate_secure() -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    @web.middleware
    async def authenticate(request: web.Request, handler: Handler) -> web.StreamResponse:
        user = None
        ssl_object = request.transport.get_extra_info("ssl_object") if request.transport else None
        if ssl_object is not None:
            der = ssl_object.getpeercert(binary_form=True)
            try:
                user = authenticate_peer_cert(der)
            except CertificateAuthError as exc:
                raise errors.unauthorized() from exc
        if user is None:
            if request.path in PUBLIC_PATHS or request.path.startswith(("/healthz/", "/livez/", "/readyz/")):
                return await handler(request)
            raise errors.unauthorized()
        with_user(request, user.with_groups("system:authenticated"))
        return await handler(request)

    return authenticate


def authorize(authorizer: Authorizer) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """Ask the authorizer about every request; a denial is kube's 403 with its message."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        user = user_from(request)
        if user is None:  # public paths on the secure port, which only reach here unauthenticated
            return await handler(request)
        info = request_info_from(request)
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
        return await handler(request)

    return check


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
