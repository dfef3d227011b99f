"""The HTTP ceiling: minimal handlers on kubelite's server stack (aiohttp web.Application on uvloop, no access
log, handler cancellation), doing nothing but what the wire needs.

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

import uvloop
from aiohttp import web

_JSON = {"Content-Type": "application/json"}


class Baseline:
    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.streams: set[asyncio.Queue[bytes | None]] = set()

    async def put_blob(self, request: web.Request) -> web.Response:
        self.blobs[request.match_info["name"]] = await request.read()
        return web.Response(status=204)

    async def get_blob(self, request: web.Request) -> web.Response:
        return web.Response(body=self.blobs[request.match_info["name"]], headers=_JSON)

    async def echo(self, request: web.Request) -> web.Response:
        body = await request.read()
        return web.Response(status=201 if request.method == "POST" else 200, body=body, headers=_JSON)

    async def publish(self, request: web.Request) -> web.Response:
        body = await request.read()
        line = b'{"type":"ADDED","object":' + body + b"}\n"
        for queue in self.streams:
            queue.put_nowait(line)
        return web.Response(status=201, body=body, headers=_JSON)

    async def watch(self, request: web.Request) -> web.StreamResponse:
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
    app = web.Application(client_max_size=1 << 30)
    app.router.add_put("/_blob/{name}", baseline.put_blob)
    app.router.add_get("/blob/{name}", baseline.get_blob)
    app.router.add_route("*", "/echo", baseline.echo)
    app.router.add_post("/publish", baseline.publish)
    app.router.add_get("/watch", baseline.watch)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"port {port}", flush=True)
    print("ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
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
