"""A process holding many watch streams, measuring each event's delivery latency and nothing else.

Events carry their creation time (`time.monotonic_ns()` when the creator sent the request, which is one clock
for every process on Linux) in the annotation `bench/t`. The streams are read as raw bytes: the watcher only
finds `"bench/t":"<digits>"` in what arrives, so reading 50,000 events a second costs little and the server,
not the watchers, is what is measured. The connection asks the server to close after the response, so a
stream the server ends (a watcher cut off for falling behind) shows as a closed connection.

Run: `python -m bench.watchers HOST PORT PATH COUNT OUT [FIRST]`; with FIRST, every `@I@` in PATH becomes the
stream's number (FIRST, FIRST+1, ...), so each stream may watch its own selection. Prints `ready` once every
stream has its response headers; then on stdin `count` answers the number of events received so far, `stop`
writes every latency (int64 ns) to OUT and prints `BENCHJSON {counts, closed}`.
"""

from __future__ import annotations

import array
import asyncio
import json
import sys
import time

MARKER = b'"bench/t":"'


class _Stream(asyncio.Protocol):
    def __init__(self, latencies: array.array[int], headers_seen: asyncio.Future[None]) -> None:
        self.latencies = latencies
        self.headers_seen = headers_seen
        self.in_body = False
        self.tail = b""
        self.count = 0
        self.closed = False

    def data_received(self, data: bytes) -> None:
        now = time.monotonic_ns()
        buf = self.tail + data
        start = 0
        if not self.in_body:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.tail = buf
                return
            if not buf.startswith(b"HTTP/1.1 200"):
                self.headers_seen.set_exception(RuntimeError(buf[:200].decode(errors="replace")))
                return
            self.in_body = True
            self.headers_seen.set_result(None)
            start = end + 4
        append = self.latencies.append
        while True:
            at = buf.find(MARKER, start)
            if at < 0:
                self.tail = buf[-len(MARKER) :]
                return
            digits = at + len(MARKER)
            close = buf.find(b'"', digits)
            if close < 0:
                self.tail = buf[at:]
                return
            append(now - int(buf[digits:close]))
            self.count += 1
            start = close

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.headers_seen.done():
            self.headers_seen.set_exception(RuntimeError("stream closed before its headers"))


async def _main(host: str, port: int, path: str, count: int, out: str, first: int | None) -> None:
    loop = asyncio.get_running_loop()
    latencies: array.array[int] = array.array("q")
    streams: list[_Stream] = []
    for index in range(count):
        target = path.replace("@I@", str(first + index)) if first is not None else path
        request = f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        seen: asyncio.Future[None] = loop.create_future()
        transport, stream = await loop.create_connection(lambda seen=seen: _Stream(latencies, seen), host, port)
        transport.write(request)
        streams.append(stream)
    await asyncio.gather(*(s.headers_seen for s in streams))
    print("ready", flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).strip():
        if line == b"count":
            print(sum(s.count for s in streams), flush=True)
        elif line == b"stop":
            break
    closed = sum(1 for s in streams if s.closed)
    with open(out, "wb") as f:
        latencies.tofile(f)
    print("BENCHJSON " + json.dumps({"counts": [s.count for s in streams], "closed": closed}), flush=True)


def main() -> None:
    host, port, path, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
    first = int(sys.argv[6]) if len(sys.argv) > 6 else None
    try:
        import uvloop

        uvloop.run(_main(host, port, path, count, out, first))
    except ImportError:
        asyncio.run(_main(host, port, path, count, out, first))


if __name__ == "__main__":
    main()
