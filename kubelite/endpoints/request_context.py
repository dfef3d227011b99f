"""Request-scoped values, each behind a typed accessor pair (kube's `endpoints/request/context.go`)."""

from __future__ import annotations

from aiohttp import web

from kubelite.auth.user import UserInfo
from kubelite.endpoints.request_info import RequestInfo

_INFO = web.RequestKey("kubelite.request_info", RequestInfo)
_USER = web.RequestKey("kubelite.user", UserInfo)
#: `Warning` header values collected while serving; written with the response (kube's warning recorder)
WARNINGS = web.RequestKey("kubelite.warnings", list)


def with_request_info(request: web.Request, info: RequestInfo) -> None:
    request[_INFO] = info


def request_info_from(request: web.Request) -> RequestInfo:
    return request[_INFO]


def with_user(request: web.Request, user: UserInfo) -> None:
    request[_USER] = user


def user_from(request: web.Request) -> UserInfo | None:
    return request.get(_USER)
