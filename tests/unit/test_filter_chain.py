"""The handler chain: one list of filters in request order, composed once; a filter slots in without editing
any other, and every failure still leaves as a Status."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from kubelite.apimachinery import errors
from kubelite.auth.authz.interface import AuthorizationAttributes, Decision
from kubelite.auth.user import UserInfo
from kubelite.endpoints.filters import chain
from kubelite.endpoints.filters.types import Filter, Handler
from kubelite.endpoints.request_context import WARNINGS, request_info_from, user_from


class _Recording:
    def __init__(self, allowed: bool = True) -> None:
        self.allowed = allowed
        self.asked: list[AuthorizationAttributes] = []

    def authorize(self, attrs: AuthorizationAttributes) -> Decision:
        self.asked.append(attrs)
        return Decision(self.allowed, "" if self.allowed else "no RBAC policy matched")


ALICE = UserInfo(name="alice", groups=("system:authenticated",))


def _run(handler: Handler, path: str = "/api/v1/namespaces/ns/pods/p") -> web.StreamResponse:
    request = make_mocked_request("GET", path, headers={"Accept": "application/json"})
    return asyncio.run(_call(handler, request))


async def _call(handler: Handler, request: web.Request) -> web.StreamResponse:
    return await handler(request)


def _status(response: web.StreamResponse) -> dict[str, object]:
    assert isinstance(response, web.Response) and response.body is not None
    return orjson.loads(response.body)  # type: ignore[arg-type]


def test_the_default_filters_are_in_request_order() -> None:
    filters = chain.default_filters(chain.authenticate_insecure, _Recording())
    assert [f.name for f in filters] == [
        "panic recovery",
        "request info",
        "warning recorder",
        "authentication",
        "authorization",
    ]


def test_the_director_sees_what_the_filters_set_and_warnings_go_out() -> None:
    seen: list[tuple[str, str | None]] = []

    async def director(request: web.Request) -> web.StreamResponse:
        info = request_info_from(request)
        user = user_from(request)
        seen.append((info.verb, user.name if user else None))
        request[WARNINGS].append('299 - "careful"')
        return web.Response(body=b"{}")

    authorizer = _Recording()
    response = _run(chain.build_handler(director, lambda request: ALICE, authorizer))
    assert response.status == 200
    assert seen == [("get", "alice")]
    assert response.headers.getall("Warning") == ['299 - "careful"']
    assert [(a.user.name if a.user else None, a.verb, a.resource, a.name) for a in authorizer.asked] == [
        ("alice", "get", "pods", "p")
    ]


def test_a_denial_is_a_forbidden_status_and_the_director_is_not_called() -> None:
    async def director(request: web.Request) -> web.StreamResponse:
        raise AssertionError("must not be reached")

    response = _run(chain.build_handler(director, lambda request: ALICE, _Recording(allowed=False)))
    assert response.status == 403
    assert _status(response)["message"] == (
        'pods "p" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "ns": '
        "no RBAC policy matched"
    )


def test_an_unrecognised_user_is_a_401_and_a_crash_a_500() -> None:
    def nobody(request: web.Request) -> UserInfo | None:
        raise errors.unauthorized()

    async def crash(request: web.Request) -> web.StreamResponse:
        raise RuntimeError("boom")

    assert _run(chain.build_handler(crash, nobody, _Recording())).status == 401
    response = _run(chain.build_handler(crash, chain.authenticate_insecure, _Recording()))
    assert response.status == 500
    assert _status(response)["message"] == "Internal error occurred: RuntimeError: boom"


def test_a_filter_slots_in_by_its_place_in_the_list() -> None:
    order: list[str] = []

    def stage(name: str) -> Filter:
        def wrap(next_handler: Handler) -> Handler:
            def handle(request: web.Request) -> Awaitable[web.StreamResponse]:
                order.append(f"{name}:{user_from(request).name if user_from(request) else '-'}")
                return next_handler(request)

            return handle

        return Filter(name, wrap)

    async def director(request: web.Request) -> web.StreamResponse:
        order.append("director")
        return web.Response(body=b"{}")

    filters = chain.default_filters(lambda request: ALICE, _Recording())
    at = [f.name for f in filters].index("authorization")
    filters[at:at] = [stage("audit"), stage("impersonation")]
    assert _run(chain.build_chain(director, filters)).status == 200
    assert order == ["audit:alice", "impersonation:alice", "director"]


@pytest.mark.parametrize("path", ["/healthz", "/readyz/ping"])
def test_public_paths_pass_without_a_user_and_without_authorization(path: str) -> None:
    authorizer = _Recording(allowed=False)

    async def director(request: web.Request) -> web.StreamResponse:
        assert user_from(request) is None
        return web.Response(text="ok")

    assert _run(chain.build_handler(director, lambda request: None, authorizer), path).status == 200
    assert authorizer.asked == []
