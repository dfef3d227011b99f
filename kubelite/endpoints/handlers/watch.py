"""Watch: a chunked stream of `{"type","object"}` lines from the watch cache (kube's `handlers/watch.go`).

Each event is encoded once per wire form and shared by every watcher of that form. The stream ends at the
client's timeoutSeconds (or the server's default), when the client goes away, or when the watch cache cuts
a watcher off for falling behind; the client then re-watches or re-lists. A watcher cut off aborts its
connection (see `_SocketWriter`): a client that stopped reading must not keep the socket open until its
timeout. Over a storage without a watch cache, the registry's plain watch is streamed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Any

from aiohttp import web

from kubelite.apimachinery import protobuf, serializers
from kubelite.apimachinery.errors import StatusError
from kubelite.endpoints.handlers import params
from kubelite.endpoints.handlers.negotiation import Conversion, Negotiated, encode, negotiate
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.handlers.table import include_object_param, partial_metadata, to_table
from kubelite.endpoints.request_context import WARNINGS
from kubelite.endpoints.request_info import RequestInfo
from kubelite.storage.interface import EventType, StreamWatcher, WatchEvent

INITIAL_EVENTS_END = "k8s.io/initial-events-end"


#: the media types kube can stream a watch in (YAML has no stream serializer)
_STREAM_MEDIA_TYPES = "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"


async def watch(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"))
    if negotiated.content_type not in ("application/json", protobuf.MEDIA_TYPE):
        raise StatusError(406, "NotAcceptable", f"only the following media types are accepted: {_STREAM_MEDIA_TYPES}")
    list_params = params.list_params(request.query)
    if info.name:  # legacy /watch/.../{name}: a watch on one object
        from kubelite.apimachinery.selectors import parse_field_selector

        selector = f"metadata.name={info.name}"
        if list_params.field_selector is not None and not list_params.field_selector.empty:
            selector += "," + str(list_params.field_selector)
        list_params = params.ListParams(**{**_as_dict(list_params), "field_selector": parse_field_selector(selector)})
    include = include_object_param(request.query.get("includeObject"))
    try:
        watcher = await scope.store.watch(info.namespace, list_params)
    except StatusError as exc:
        if exc.code not in _STREAMED_ERRORS:
            raise
        return await _error_stream(request, scope, negotiated, include, exc)
    timeout = list_params.timeout_seconds if list_params.timeout_seconds else scope.watch_timeout()

    response = web.StreamResponse(status=200, headers={"Content-Type": _stream_content_type(scope, negotiated)})
    response.enable_chunked_encoding()
    for warning in request[WARNINGS]:
        response.headers.add("Warning", warning)
    await response.prepare(request)
    encoder = _EventEncoder(scope, negotiated, include)
    if request.transport is not None and isinstance(watcher, StreamWatcher):
        watcher.attach(_SocketWriter(request.transport, encoder))
    try:
        async with asyncio.timeout(timeout):
            async for event in watcher:
                await response.write(encoder.frame(event))
    except (TimeoutError, ConnectionResetError):
        pass  # the watch's time is up, or the client went away (or was cut off): the stream ends
    finally:  # a cancelled handler (shutdown) stops its watcher too, and the cancellation goes on up
        watcher.stop()
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await response.write_eof()
    return response


#: SO_LINGER on, 0 seconds: close() resets the connection and discards unsent data
_LINGER_RESET = struct.pack("ii", 1, 0)

#: bytes a client may have unsent before its events wait in its queue instead (aiohttp's own drain limit)
_DIRECT_WRITE_LIMIT = 64 * 1024


class _SocketWriter:
    """The watch cache's path to this client (a storage.interface.StreamWriter): the event's chunk (framed
    once per event and wire form, shared by every watcher) goes to the socket from the cache's dispatch, as
    long as the client keeps up; a watcher cut off for falling behind aborts the connection."""

    __slots__ = ("_encoder", "_transport")

    def __init__(self, transport: asyncio.Transport, encoder: _EventEncoder) -> None:
        self._transport = transport
        self._encoder = encoder

    def write(self, event: WatchEvent) -> bool:
        transport = self._transport
        if transport.is_closing() or transport.get_write_buffer_size() > _DIRECT_WRITE_LIMIT:
            return False
        try:
            chunk = self._encoder.chunk(event)
        except Exception:  # the queued path raises it in this watch's own task
            return False
        transport.write(chunk)
        return True

    def abort(self) -> None:
        # A plain close would leave the kernel sending what it holds to a client that reads nothing (the
        # socket orphaned, its buffers pinned): linger 0 makes the close a reset that drops them. The
        # handler's pending write then fails and it ends.
        sock = self._transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_RESET)
        self._transport.abort()


#: kube's cacher answers a watch whose resourceVersion it cannot serve (410 too old, 504 too large) with a 200
#: stream holding one ERROR event, as an uncached watch would; clients relist on that event
_STREAMED_ERRORS = frozenset({410, 504})


async def _error_stream(
    request: web.Request, scope: RequestScope, negotiated: Negotiated, include: str, exc: StatusError
) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": _stream_content_type(scope, negotiated)})
    response.enable_chunked_encoding()
    for warning in request[WARNINGS]:
        response.headers.add("Warning", warning)
    await response.prepare(request)
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await response.write(_EventEncoder(scope, negotiated, include).error(exc.to_status()))
        await response.write_eof()
    return response


def _stream_content_type(scope: RequestScope, negotiated: Negotiated) -> str:
    """Protobuf watches are framed (kube's `stream=watch`); kinds without a protobuf form stream JSON."""
    if negotiated.content_type == protobuf.MEDIA_TYPE:
        if protobuf.supports(scope.spec.api_version, scope.spec.kind):
            return protobuf.STREAM_MEDIA_TYPE
        return "application/json"
    return negotiated.content_type


def _as_dict(list_params: params.ListParams) -> dict[str, Any]:
    return {name: getattr(list_params, name) for name in list_params.__slots__}


class _EventEncoder:
    def __init__(self, scope: RequestScope, negotiated: Negotiated, include: str) -> None:
        self.scope = scope
        self.negotiated = negotiated
        self.include = include
        self.key = f"{negotiated.key}|{include}"
        self.headers_sent = False

    def frame(self, event: WatchEvent) -> bytes:
        if event.type is EventType.BOOKMARK:
            return self._encode(event.type, self._bookmark_object(event))
        if self.negotiated.conversion is Conversion.TABLE:
            # the first Table carries the column definitions, later ones only their row
            with_headers = not self.headers_sent
            self.headers_sent = True
            table = to_table(
                self.scope.table,
                [event.obj],
                list_meta={"resourceVersion": event.obj["metadata"].get("resourceVersion", "")},
                include_object=self.include,
                with_headers=with_headers,
                printer=self.scope.encodings.table_row,
            )
            return self._encode(event.type, table)
        cache = event.encoded
        if cache is not None and self.key in cache:
            return cache[self.key]
        obj = event.obj
        if self.negotiated.conversion in (Conversion.PARTIAL, Conversion.PARTIAL_LIST):
            obj = partial_metadata(obj)
        data = self._encode(event.type, obj)
        if cache is None:
            event.encoded = cache = {}
        cache[self.key] = data
        return data

    def chunk(self, event: WatchEvent) -> bytes:
        """The event as one HTTP/1.1 chunk (size line, frame, CRLF), as the response's chunked writer frames
        what is written through it; kept beside the frame whenever `frame` keeps that."""
        key = self.key + "|chunk"
        if event.encoded is not None and key in event.encoded:
            return event.encoded[key]
        data = self.frame(event)
        framed = b"%x\r\n%b\r\n" % (len(data), data)
        if event.encoded is not None and self.key in event.encoded:  # shared by every watcher of this form
            event.encoded[key] = framed
        return framed

    def error(self, status: dict[str, Any]) -> bytes:
        return self._encode(EventType.ERROR, status)

    def _bookmark_object(self, event: WatchEvent) -> dict[str, Any]:
        meta: dict[str, Any] = {"resourceVersion": str(event.revision), "creationTimestamp": None}
        if event.obj.get("initialEventsEnd"):
            meta["annotations"] = {INITIAL_EVENTS_END: "true"}
        return {"kind": self.scope.spec.kind, "apiVersion": self.scope.spec.api_version, "metadata": meta}

    def _encode(self, event_type: EventType, obj: Any) -> bytes:
        if self.negotiated.content_type == protobuf.MEDIA_TYPE and protobuf.supports(
            str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
        ):
            return protobuf.encode_watch_event(event_type.value, obj)
        if self.negotiated.content_type in ("application/json", protobuf.MEDIA_TYPE):
            return b'{"type":"' + event_type.value.encode() + b'","object":' + serializers.dumps_json(obj) + b"}\n"
        return encode({"type": event_type.value, "object": obj}, self.negotiated) + b"---\n"
