"""Panic recovery, the outermost filter (kube's `WithPanicRecovery`): every failure leaves as a Status, known
ones (`StatusError`) with their code, anything else a 500 that is logged with its traceback. Every response
leaves the chain here, so the recorded `Warning` headers (`requestinfo`'s warning recorder) are added here to
a successful response that has not started streaming (a watch writes its own when it starts). Also answers
`Expect: 100-continue`, which Go's HTTP server does before any handler runs."""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.http import HttpVersion11

from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import StatusError
from kubelite.endpoints.filters.types import Filter, Handler
from kubelite.endpoints.handlers.negotiation import write_status
from kubelite.endpoints.request_context import WARNINGS

log = logging.getLogger("kubelite.endpoints.filters.chain")


def _with_panic_recovery(next_handler: Handler) -> Handler:
    async def recover(request: web.Request) -> web.StreamResponse:
        if "Expect" in request.headers:
            await _answer_expect(request)
        try:
            response = await next_handler(request)
        except StatusError as exc:
            return write_status(exc, request.headers.get("Accept"))
        except web.HTTPException:
            raise
        except Exception as exc:
            log.exception("internal error serving %s %s", request.method, request.path)
            return write_status(errors.internal_error(f"{type(exc).__name__}: {exc}"), request.headers.get("Accept"))
        warnings = request.get(WARNINGS)
        if warnings and not response.prepared:
            for warning in warnings:
                response.headers.add("Warning", warning)
        return response

    return recover


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


PANIC_RECOVERY = Filter("panic recovery", _with_panic_recovery)
