"""Watch streams: the events of one watch request, decoded from newline-delimited JSON as they arrive.

A stream ends when the server closes it (its timeout, a restart) or the connection drops; both end the
iteration quietly, as client-go's StreamWatcher closes its channel, because the caller's answer is the same:
watch again from the last resourceVersion seen. An `ERROR` event is yielded like any other: what it means
(410 Expired, say) is the caller's decision. Lines are split here rather than by the HTTP library, whose line
reader caps a line at 128 KiB while one object may reach the server's 3 MiB limit.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import aiohttp
import orjson

from kubelite.client.errors import ApiError

log = logging.getLogger(__name__)

EventType = Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]
ADDED: EventType = "ADDED"
MODIFIED: EventType = "MODIFIED"
DELETED: EventType = "DELETED"
BOOKMARK: EventType = "BOOKMARK"
ERROR: EventType = "ERROR"

#: the annotation of the bookmark that ends a watch's initial events (sendInitialEvents=true)
INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: EventType
    object: dict[str, Any]

    def error(self) -> ApiError:
        """The ApiError an ERROR event carries."""
        return ApiError.from_status(self.object)

    @property
    def resource_version(self) -> str:
        return str((self.object.get("metadata") or {}).get("resourceVersion") or "")

    def is_initial_events_end(self) -> bool:
        annotations = (self.object.get("metadata") or {}).get("annotations") or {}
        return self.type == BOOKMARK and annotations.get(INITIAL_EVENTS_END_ANNOTATION) == "true"


class Watch(Protocol):
    """What a reflector needs of a watch: events until the stream ends (resumable: the watch is its own
    iterator), and a way to end it early."""

    def __aiter__(self) -> AsyncIterator[WatchEvent]: ...

    async def __anext__(self) -> WatchEvent: ...

    async def close(self) -> None: ...


class WatchStream:
    """Events of one open watch response. `close()` (or `async with`) releases the connection.

    The stream is its own iterator, so a consumer may stop iterating (at the bookmark that ends the initial
    events, say) and resume later without losing buffered bytes.
    """

    def __init__(self, response: aiohttp.ClientResponse, *, description: str = "") -> None:
        self._response = response
        self._description = description
        self._closed = False
        #: bytes after the last complete line
        self._buffer = bytearray()
        #: complete lines not yet decoded
        self._lines: deque[bytes] = deque()

    async def __aenter__(self) -> WatchStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._response.close()

    def __aiter__(self) -> WatchStream:
        return self

    async def __anext__(self) -> WatchEvent:
        while True:
            while self._lines:
                line = self._lines.popleft()
                if not line.strip():
                    continue
                try:
                    return decode_event(line)
                except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                    log.warning("watch %s: undecodable frame, ending the stream: %s", self._description, exc)
                    await self.close()
                    raise StopAsyncIteration from None
            if self._closed:
                raise StopAsyncIteration
            try:
                chunk = await self._response.content.readany()
            except (TimeoutError, aiohttp.ClientError, ConnectionError) as exc:
                log.debug("watch %s ended: %s", self._description, exc)
                chunk = b""
            if not chunk:
                await self.close()
                raise StopAsyncIteration
            self._buffer += chunk
            if chunk.find(b"\n") >= 0:
                *lines, rest = bytes(self._buffer).split(b"\n")
                self._lines.extend(lines)
                self._buffer = bytearray(rest)


def decode_event(line: bytes) -> WatchEvent:
    """One watch frame: `{"type": ..., "object": {...}}`."""
    frame = orjson.loads(line)
    return WatchEvent(frame["type"], frame.get("object") or {})
