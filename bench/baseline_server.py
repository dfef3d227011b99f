"""The HTTP ceiling: minimal handlers on kubelite's server stack (aiohttp's low-level `web.Server` on uvloop
with one handler that dispatches on the path, no access log, handler cancellation), doing nothing but what the
wire needs.

- `PUT /_blob/{name}` stores a body; `GET /blob/{name}` returns it: the same bytes kubelite answers a get or a
  list with, so the baseline sends exactly what kubelite sends.
- `POST /echo` (201) and `PUT /echo` / `PATCH /echo` (200) answer with the request body: a create or update
  that costs only HTTP.
- `GET /watch` streams chunked lines; `POST /publish` writes `{"type":"ADDED","object":<body>}` once and hands
  the same bytes to every open stream: a fan-out that costs only the writes.

Run: `python -m bench.baseline_server`; it prints `port N` and `ready`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

import uvloop
from aiohttp import web

_JSON = {"Content-Type": "application/json"}


class Baseline:
    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.streams: set[asyncio.Queue[bytes | None]] = set()

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        path, method = request.path, request.method
        if path.startswith("/blob/") and method == "GET":
            return web.Response(body=self.blobs[path[len("/blob/") :]], headers=_JSON)
        if path == "/echo":
            return await self.echo(request)
        if path == "/watch" and method == "GET":
            return await self.watch(request)
        if path == "/publish" and method == "POST":
            return await self.publish(request)
        if path.startswith("/_blob/") and method == "PUT":
            self.blobs[path[len("/_blob/") :]] = await request.read()
            return web.Response(status=204)
        return web.Response(status=404)

    async def echo(self, request: web.BaseRequest) -> web.Response:
        body = await request.read()
        return web.Response(status=201 if request.method == "POST" else 200, body=body, headers=_JSON)

    async def publish(self, request: web.BaseRequest) -> web.Response:
        body = await request.read()
        line = b'{"type":"ADDED","object":' + body + b"}\n"
        for queue in self.streams:
            queue.put_nowait(line)
        return web.Response(status=201, body=body, headers=_JSON)

    async def watch(self, request: web.BaseRequest) -> web.StreamResponse:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.streams.add(queue)
        response = web.StreamResponse(status=200, headers=_JSON)
        response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            while (line := await queue.get()) is not None:
                await response.write(line)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.streams.discard(queue)
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write_eof()
        return response


async def _serve() -> None:
    baseline = Baseline()
    loop = asyncio.get_running_loop()

    def make_request(*args: Any) -> web.BaseRequest:
        return web.BaseRequest(*args, loop, client_max_size=1 << 30)

    server = web.Server(baseline.handle, request_factory=make_request, handler_cancellation=True, access_log=None)
    runner = web.ServerRunner(server, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"port {port}", flush=True)
    print("ready", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for queue in baseline.streams:
        queue.put_nowait(None)
    await runner.cleanup()


def main() -> None:
    uvloop.run(_serve())


if __name__ == "__main__":
    main()
