"""Request info (kube's `WithRequestInfo`): the verb, group, version, resource, namespace, name and
subresource parsed from the URL once, for every later filter and the handlers; and the warning recorder
(kube's `WithWarningRecorder`): the list that filters and handlers add `Warning` header values to. As kube's
recorder writes them when the response's header is written, they are added where every response leaves the
chain, in panic recovery (`recovery.py`), when the response is a success that has not started streaming."""

from __future__ import annotations

from collections.abc import Awaitable

from aiohttp import web

from kubelite.endpoints.filters.types import Filter, Handler
from kubelite.endpoints.request_context import WARNINGS, with_request_info
from kubelite.endpoints.request_info import parse_request_info


def _with_request_info(next_handler: Handler) -> Handler:
    def parse(request: web.Request) -> Awaitable[web.StreamResponse]:
        info = parse_request_info(request.method, request.path, request.query)
        with_request_info(request, info)
        return next_handler(request)

    return parse


def _with_warning_recorder(next_handler: Handler) -> Handler:
    def record(request: web.Request) -> Awaitable[web.StreamResponse]:
        request[WARNINGS] = []
        return next_handler(request)

    return record


REQUEST_INFO = Filter("request info", _with_request_info)
WARNING_RECORDER = Filter("warning recorder", _with_warning_recorder)
