"""The handler chain: one list of filters in request order (kube's DefaultBuildHandlerChain, read bottom-up;
starlette's build_middleware_stack), composed once at start-up into the one handler aiohttp calls:

    panic recovery -> request info -> warning recorder -> authentication -> [audit] -> [impersonation]
      -> [max-in-flight / fairness] -> authorization -> the director

The bracketed stages are not served yet; each slots into `default_filters` as one more `Filter`, with no
function body to edit. Filters that only look at the request (request info, the warning recorder,
authentication, authorization) return their successor's awaitable without awaiting it, so the chain costs one
coroutine, panic recovery's, whatever its length.

The authentication stage sits here, beside the authenticators it runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

from kubelite.apimachinery import errors
from kubelite.auth.authn.x509 import CertificateAuthError
from kubelite.auth.authz.interface import Authorizer
from kubelite.auth.user import UserInfo
from kubelite.endpoints.filters.authorization import authorization, authorize, forbidden
from kubelite.endpoints.filters.recovery import PANIC_RECOVERY
from kubelite.endpoints.filters.requestinfo import REQUEST_INFO, WARNING_RECORDER
from kubelite.endpoints.filters.types import Filter, Handler
from kubelite.endpoints.request_context import with_user

__all__ = [
    "Authenticator",
    "Filter",
    "Handler",
    "authenticate_insecure",
    "authentication",
    "authorization",
    "authorize",
    "build_chain",
    "build_handler",
    "default_filters",
    "forbidden",
    "secure_authenticator",
]

#: paths anyone may read without credentials (kube's system:public-info-viewer)
PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})

#: who the insecure port treats every request as (kube's old insecure port: no authn, no authz)
INSECURE_USER = UserInfo(name="system:unsecured", groups=("system:masters", "system:authenticated"))


#: who a request is, from its connection: a user, or None for an anonymous request to a public path; raises
#: kube's 401 otherwise
Authenticator = Callable[[web.Request], UserInfo | None]


def authenticate_insecure(request: web.Request) -> UserInfo | None:
    return INSECURE_USER


def secure_authenticator(
    peer_cert: Callable[[bytes | None], UserInfo | None],
    bearer_token: Callable[[str], UserInfo | None] | None = None,
) -> Authenticator:
    """The secure port's authenticator; `peer_cert` verifies a client certificate and names its user,
    `bearer_token` names the user of an `Authorization: Bearer` token (kube's union: the certificate first)."""

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
        if bearer_token is not None:
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                user = bearer_token(token.strip())
                if user is None:  # a token was presented and is not valid: 401, never anonymous
                    raise errors.unauthorized()
                return user.with_groups("system:authenticated")
        if request.path in PUBLIC_PATHS or request.path.startswith(("/healthz/", "/livez/", "/readyz/")):
            return None
        raise errors.unauthorized()

    return authenticate_secure


def authentication(authenticator: Authenticator) -> Filter:
    """Who the request is, for the filters after it (`user_from`); kube's 401 when nobody is recognised
    outside the public paths."""

    def wrap(next_handler: Handler) -> Handler:
        def authenticate(request: web.Request) -> Awaitable[web.StreamResponse]:
            user = authenticator(request)
            if user is not None:
                with_user(request, user)
            return next_handler(request)

        return authenticate

    return Filter("authentication", wrap)


def default_filters(authenticator: Authenticator, authorizer: Authorizer) -> list[Filter]:
    """The filters in request order (DESIGN.md's request path)."""
    return [
        PANIC_RECOVERY,
        REQUEST_INFO,
        WARNING_RECORDER,
        authentication(authenticator),
        authorization(authorizer),
    ]


def build_chain(handler: Handler, filters: Sequence[Filter]) -> Handler:
    """`handler` behind `filters`, the first of them called first."""
    for stage in reversed(filters):
        handler = stage.wrap(handler)
    return handler


def build_handler(handler: Handler, authenticator: Authenticator, authorizer: Authorizer) -> Handler:
    """The default chain in front of `handler` (the director)."""
    return build_chain(handler, default_filters(authenticator, authorizer))
