"""The handler chain in request order (kube's DefaultBuildHandlerChain, read bottom-up):
panic recovery -> request info -> authentication -> authorization -> the director."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.http import HttpVersion11

from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import StatusError
from kubelite.auth.authn.x509 import CertificateAuthError
from kubelite.auth.authz.interface import AuthorizationAttributes, Authorizer
from kubelite.auth.user import UserInfo
from kubelite.endpoints.handlers.negotiation import write_status
from kubelite.endpoints.request_context import WARNINGS, with_request_info, with_user
from kubelite.endpoints.request_info import RequestInfo, parse_request_info

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: paths anyone may read without credentials (kube's system:public-info-viewer)
PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})

#: who the insecure port treats every request as (kube's old insecure port: no authn, no authz)
INSECURE_USER = UserInfo(name="system:unsecured", groups=("system:masters", "system:authenticated"))


#: who a request is, from its connection: a user, or None for an anonymous request to a public path; raises
#: kube's 401 otherwise
Authenticator = Callable[[web.Request], UserInfo | None]


def authenticate_insecure(request: web.Request) -> UserInfo | None:
    return INSECURE_USER


def secure_authenticator(peer_cert: Callable[[bytes | None], UserInfo | None]) -> Authenticator:
    """The secure port's authenticator; `peer_cert` verifies a client certificate and names its user."""

    def authenticate_secure(request: web.Request) -> UserInfo | None:
        ssl_object = request.transport.get_extra_info("ssl_object") if request.transport else None
        if ssl_object is not None:
            der = ssl_object.getpeercert(binary_form=True)
            try:
                user = peer_cert(der)
            except CertificateAuthError as exc:
                raise errors.unauthorized() from exc
            if user is not None:
                return user.with_groups("system:authenticated")
        if request.path in PUBLIC_PATHS or request.path.startswith(("/healthz/", "/livez/", "/readyz/")):
            return None
        raise errors.unauthorized()

    return authenticate_secure


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


def build_handler(handler: Handler, authenticator: Authenticator, authorizer: Authorizer) -> Handler:
    """The chain as one function, its filters called in request order, so that a request pays for one
    coroutine rather than one per filter (every request crosses all of them)."""

    async def serve(request: web.Request) -> web.StreamResponse:
        if "Expect" in request.headers:
            await _answer_expect(request)
        try:
            # request info
            info = parse_request_info(request.method, request.path, request.query)  # type: ignore[arg-type]
            with_request_info(request, info)
            warnings: list[str] = []
            request[WARNINGS] = warnings
            # authentication, then authorization of whoever was recognised (public paths need no one)
            user = authenticator(request)
            if user is not None:
                with_user(request, user)
                authorize(authorizer, request, user, info)
            response = await handler(request)
            if warnings and not response.prepared:  # a stream (watch) wrote its warnings when it started
                for warning in warnings:
                    response.headers.add("Warning", warning)
            return response
        # panic recovery: every failure leaves as a Status, known ones with their code, anything else a 500
        except StatusError as exc:
            return write_status(exc, request.headers.get("Accept"))
        except web.HTTPException:
            raise
        except Exception as exc:
            log.exception("internal error serving %s %s", request.method, request.path)
            return write_status(errors.internal_error(f"{type(exc).__name__}: {exc}"), request.headers.get("Accept"))

    return serve


async def _answer_expect(request: web.Request) -> None:
    """`Expect: 100-continue` (curl sends it before large bodies): tell the client to send the body, as Go's
    server does; any other expectation cannot be met (417)."""
    expect = request.headers["Expect"]
    if request.version != HttpVersion11:
        return
    if expect.lower() != "100-continue":
        raise web.HTTPExpectationFailed(text=f"Unknown Expect: {expect}")
    await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    request.writer.output_size = 0  # the response proper has not started


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
