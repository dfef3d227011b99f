"""One HTTP/1.1 connection, with the limits kube-apiserver's Go server puts on it.

aiohttp's RequestHandler waits for a request head as long as the client likes and refuses request lines and
headers beyond 8 KiB with a plain-text 400. kube-apiserver's net/http server instead has:

- a read-header timeout (Go's `ReadHeaderTimeout`, kube 32 s): the request line and headers must arrive in
  full within it, counted from the connection's start, or from the first byte of a later request on a
  keep-alive connection. A client sending them a byte at a time (slowloris) is disconnected.
- an idle timeout (Go's `IdleTimeout`, kube 90 s): a keep-alive connection waiting for its next request is
  closed (aiohttp's keep-alive timer). A watch or any other request in progress is not idle, and neither
  timeout applies to it.
- a bound on the head (Go's `MaxHeaderBytes`, kube 1 MiB), request line included; beyond it Go answers
  431 Request Header Fields Too Large, for a long URL as for long headers. kubelite answers the same code
  with a `Status` body and closes the connection.

The common path adds a few comparisons to each read (0.2 microseconds): a head that arrives in one read
starts no timer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage, LineTooLong
from aiohttp.streams import EMPTY_PAYLOAD, StreamReader
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from kubelite.apimachinery.errors import StatusError

log = logging.getLogger(__name__)

#: request line plus headers (Go's http.DefaultMaxHeaderBytes, which kube-apiserver sets explicitly)
MAX_HEADER_BYTES = 1 << 20
#: Go's server reads this much beyond MaxHeaderBytes before it calls a head too large
HEADER_SLACK = 4096
#: the parser's own bounds stay above the total, which this module enforces, so no single line trips first
_PARSER_LIMIT = MAX_HEADER_BYTES + HEADER_SLACK
#: Go bounds headers by bytes only; this count is what 1 MiB of short real-world headers can hold
_MAX_HEADER_COUNT = MAX_HEADER_BYTES // 16
#: how long the client may go on sending after the 431 is written, so it reads the answer rather than a reset
#: (Go's rstAvoidanceDelay)
_LINGER_AFTER_REJECT = 0.5


def header_too_large() -> StatusError:
    # metav1 has no reason for 431; an empty reason is kube's StatusReasonUnknown
    return StatusError(
        431,
        "",
        f"Request Header Fields Too Large: the request line and headers exceed {MAX_HEADER_BYTES} bytes",
    )


def _status_bytes(err: StatusError) -> bytes:
    return json.dumps(err.to_status(), separators=(",", ":")).encode()


_feed_parser = RequestHandler.data_received


class Connection(RequestHandler):
    """aiohttp's connection protocol plus the read-header timeout and the head size bound."""

    __slots__ = ("_body_in_flight", "_head_bytes", "_head_timer", "_read_header_timeout")

    def __init__(self, manager: web.Server, *, read_header_timeout: float, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._read_header_timeout = read_header_timeout
        #: armed while a request head is incomplete; None otherwise
        self._head_timer: asyncio.TimerHandle | None = None
        #: bytes of the head being read, while it is incomplete
        self._head_bytes = 0
        #: the body of the last request while it is still arriving: bytes meanwhile are body, not a head
        self._body_in_flight: StreamReader | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._arm_head_timer()  # a connection that sends nothing at all is closed too

    def connection_lost(self, exc: BaseException | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        body = self._body_in_flight
        reading_head = body is None or body.is_eof()
        # checked before the parser sees the bytes, so a head too large never reaches its own (plain-text) limits
        if reading_head and self._head_bytes + len(data) > _PARSER_LIMIT and self._reading_http():
            if not self._head_ends_in(data):
                self._reject_head(header_too_large())
                return
        heads_before = self._request_count
        _feed_parser(self, data)
        if self._request_count != heads_before:
            # a head completed; what the chunk held after it is at most one read of the next, uncounted
            if self._head_timer is not None:
                self._cancel_head_timer()
            self._head_bytes = 0
            payload = self._messages[-1][1] if self._messages else EMPTY_PAYLOAD
            self._body_in_flight = None if payload is EMPTY_PAYLOAD or payload.is_eof() else payload
        elif reading_head and data and self._reading_http():
            self._head_bytes += len(data)
            if self._head_timer is None:
                self._arm_head_timer()

    def _reading_http(self) -> bool:
        """Whether arriving bytes are HTTP heads at all (not an upgraded stream, not after closing)."""
        return not (self._force_close or self._close or self._upgraded or self._payload_parser is not None)

    def _head_ends_in(self, data: bytes) -> bool:
        """Whether the head being read ends within the limit in `data` (the rest of it being a body)."""
        end = data.find(b"\r\n\r\n")
        return end >= 0 and self._head_bytes + end + 4 <= _PARSER_LIMIT

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """A head the parser refused for its size gets Go's 431 as a Status; anything else aiohttp's answer."""
        too_large = isinstance(exc, LineTooLong) or (
            isinstance(exc, BadHttpMessage) and "Too many headers" in str(exc)
        )
        if not too_large:
            return super().handle_error(request, status, exc, message)
        log.debug("request head from %s too large: %s", request.remote, exc)
        response = web.Response(
            status=431, body=_status_bytes(header_too_large()), content_type="application/json"
        )
        response.force_close()
        return response

    def _arm_head_timer(self) -> None:
        self._head_timer = self._loop.call_later(self._read_header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._current_request is not None:
            # a pipelined head behind a request in progress (a watch, say): that request is not cut short
            self._arm_head_timer()
            return
        log.debug("closing connection from %s: no request head in %ss", self.peername, self._read_header_timeout)
        self.force_close()

    def _reject_head(self, err: StatusError) -> None:
        """Answer a head too large to read, then stop reading and hang up shortly after (as Go does)."""
        self._cancel_head_timer()
        transport = self.transport
        if transport is None:
            return
        if self._current_request is not None or self._messages:
            # pipelined behind a request still being answered: an answer now would cut into that response
            self.force_close()
            return
        body = _status_bytes(err)
        transport.write(
            b"HTTP/1.1 %d Request Header Fields Too Large\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
            % (err.code, len(body), body)
        )
        # from here on data_received drops what arrives; the handler task is woken by force_close
        self._close = True
        if transport.can_write_eof():
            transport.write_eof()
        self._loop.call_later(_LINGER_AFTER_REJECT, self.force_close)


class ConnectionServer(web.Server):
    """aiohttp's low-level server whose connections are `Connection`s with kube's limits."""

    def __init__(
        self, handler: Any, *, read_header_timeout: float, idle_timeout: float, **kwargs: Any
    ) -> None:
        super().__init__(
            handler,
            keepalive_timeout=idle_timeout,
            max_line_size=_PARSER_LIMIT,
            max_field_size=_PARSER_LIMIT,
            max_headers=_MAX_HEADER_COUNT,
            **kwargs,
        )
        self._read_header_timeout = read_header_timeout

    def __call__(self) -> RequestHandler:
        return Connection(self, loop=self._loop, read_header_timeout=self._read_header_timeout, **self._kwargs)
