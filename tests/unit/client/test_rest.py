"""The REST client against an in-process HTTP server: retries and Retry-After, typed errors, headers and tokens,
refused connections, TLS with a client certificate, and watch stream decoding."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from kubelite.auth.certs import ensure_pki
from kubelite.client.config import Config
from kubelite.client.errors import (
    ApiError,
    ConnectionRefused,
    Expired,
    NotFound,
    ServiceUnavailable,
    TooManyRequests,
)
from kubelite.client.rest import RESTClient, encode_params
from tests.unit.client.support import InstantClock, run

Handler = Callable[[web.Request], Any]


@asynccontextmanager
async def serving(handler: Handler, *, ssl_context: Any = None) -> AsyncIterator[int]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield port
    finally:
        await runner.cleanup()


def status(code: int, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
        **extra,
    }


def scripted(responses: list[web.Response], seen: list[web.Request]) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        seen.append(request)
        await request.read()
        return responses.pop(0)

    return handler


def busy(code: int, *, retry_after: str | None) -> web.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return web.json_response(
        status(code, "TooManyRequests" if code == 429 else "ServiceUnavailable", "busy"),
        status=code,
        headers=headers,
    )


@pytest.mark.parametrize(
    ("method", "responses", "sleeps", "outcome"),
    [
        ("GET", [busy(429, retry_after="3"), busy(429, retry_after="3")], [3.0, 3.0], None),
        ("POST", [busy(503, retry_after="1")], [1.0], None),
        ("POST", [busy(429, retry_after=None)], [0.25], None),
        ("GET", [busy(503, retry_after=None), busy(503, retry_after=None)], [0.25, 0.5], None),
        ("POST", [busy(503, retry_after=None)], [], ServiceUnavailable),
        ("GET", [busy(500, retry_after=None)], [], ApiError),
    ],
    ids=[
        "429-retry-after",
        "post-503-with-retry-after",
        "post-429-backoff",
        "get-503-backoff",
        "post-503-not-retried",
        "get-500-not-retried",
    ],
)
def test_retries(
    method: str, responses: list[web.Response], sleeps: list[float], outcome: type[Exception] | None
) -> None:
    clock = InstantClock()
    seen: list[web.Request] = []
    script = [*responses, web.json_response({"ok": True})]

    async def body() -> Any:
        async with (
            serving(scripted(script, seen)) as port,
            RESTClient(Config(host=f"http://127.0.0.1:{port}"), clock=clock) as rest,
        ):
            return await rest.request(method, "/api/v1/things", body={"a": 1} if method == "POST" else None)

    if outcome is None:
        assert run(body) == {"ok": True}
        assert len(seen) == len(responses) + 1
    else:
        with pytest.raises(outcome):
            run(body)
        assert len(seen) == 1
    assert clock.sleeps == sleeps


def test_retries_give_up_after_max_retries() -> None:
    clock = InstantClock()
    seen: list[web.Request] = []
    script = [busy(429, retry_after="2") for _ in range(3)]

    async def body() -> None:
        async with (
            serving(scripted(script, seen)) as port,
            RESTClient(Config(host=f"http://127.0.0.1:{port}", max_retries=2), clock=clock) as rest,
        ):
            await rest.get("/x")

    with pytest.raises(TooManyRequests) as caught:
        run(body)
    assert (caught.value.retry_after, caught.value.code, len(seen), clock.sleeps) == (2.0, 429, 3, [2.0, 2.0])


@pytest.mark.parametrize(
    ("response", "error", "message", "reason"),
    [
        (
            web.json_response(status(410, "Expired", "too old resource version: 1 (5)"), status=410),
            Expired,
            "too old resource version: 1 (5)",
            "Expired",
        ),
        (
            web.Response(status=404, text="<html>nope</html>"),
            NotFound,
            "the server could not find the requested resource",
            "NotFound",
        ),
        (web.json_response(status(404, "SomethingNew", "odd"), status=404), NotFound, "odd", "SomethingNew"),
        (web.Response(status=418, text=""), ApiError, "the server responded with the status code 418", ""),
    ],
    ids=["status-body", "html-body", "unknown-reason-known-code", "unknown-code"],
)
def test_errors_are_typed(response: web.Response, error: type[ApiError], message: str, reason: str) -> None:
    async def body() -> None:
        async with (
            serving(scripted([response], [])) as port,
            RESTClient(Config(host=f"http://127.0.0.1:{port}")) as rest,
        ):
            await rest.get("/x")

    with pytest.raises(error) as caught:
        run(body)
    assert type(caught.value) is error
    assert (caught.value.message, caught.value.reason) == (message, reason)


def test_headers_token_file_refresh_and_impersonation(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("one\n")
    clock = InstantClock()
    seen: list[web.Request] = []
    config = Config(
        host="http://127.0.0.1:1",
        token_file=str(token_file),
        impersonate_user="jane",
        impersonate_groups=("a", "b"),
        impersonate_extra={"scopes": ["s1"]},
        user_agent="test-agent",
    )

    async def body() -> None:
        async with serving(scripted([web.json_response({}) for _ in range(3)], seen)) as port:
            config.host = f"http://127.0.0.1:{port}"
            async with RESTClient(config, clock=clock) as rest:
                await rest.get("/x")
                token_file.write_text("two\n")
                await rest.get("/x")  # cached for a minute
                clock.step(61)
                await rest.get("/x")

    run(body)
    assert [r.headers["Authorization"] for r in seen] == ["Bearer one", "Bearer one", "Bearer two"]
    first = seen[0]
    assert first.headers.getall("Impersonate-Group") == ["a", "b"]
    assert (first.headers["Impersonate-User"], first.headers["Impersonate-Extra-scopes"]) == ("jane", "s1")
    assert first.headers["User-Agent"] == "test-agent"


def test_basic_auth_and_params() -> None:
    seen: list[web.Request] = []

    async def body() -> None:
        async with serving(scripted([web.json_response({})], seen)) as port:
            config = Config(host=f"http://127.0.0.1:{port}", username="u", password="p")
            async with RESTClient(config) as rest:
                await rest.get("/x", params={"watch": True, "dryRun": ["All"], "limit": 5, "skip": None})

    run(body)
    assert seen[0].headers["Authorization"] == "Basic dTpw"
    assert seen[0].query_string == "watch=true&dryRun=All&limit=5"
    assert encode_params([("a", False), ("b", ["x", "y"])]) == [("a", "false"), ("b", "x"), ("b", "y")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("retries", "sleeps"), [(0, []), (2, [0.25, 0.5])], ids=["no-retry", "two-retries"])
def test_connection_refused(retries: int, sleeps: list[float]) -> None:
    clock = InstantClock()

    async def body() -> None:
        config = Config(host=f"http://127.0.0.1:{free_port()}", max_retries=retries)
        async with RESTClient(config, clock=clock) as rest:
            await rest.get("/x")

    with pytest.raises(ConnectionRefused):
        run(body)
    assert clock.sleeps == sleeps


def test_tls_with_client_certificate(tmp_path: Path) -> None:
    pki = ensure_pki(tmp_path / "pki", hosts=["localhost"], ips=["127.0.0.1"])
    server_context = pki.server_ssl_context()

    async def handler(request: web.Request) -> web.Response:
        peer = request.transport.get_extra_info("peercert") if request.transport else None  # type: ignore[union-attr]
        return web.json_response({"client": bool(peer)})

    async def body(with_cert: bool) -> Any:
        async with serving(handler, ssl_context=server_context) as port:
            config = Config(
                host=f"https://127.0.0.1:{port}",
                ca_file=str(pki.ca_cert),
                cert_file=str(pki.admin_cert) if with_cert else None,
                key_file=str(pki.admin_key) if with_cert else None,
            )
            async with RESTClient(config) as rest:
                return await rest.get("/x")

    assert run(lambda: body(True)) == {"client": True}
    assert run(lambda: body(False)) == {"client": False}


def test_watch_stream_decoding() -> None:
    big = "x" * 300_000
    frames = [
        {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "1"}}},
        {
            "type": "MODIFIED",
            "object": {"metadata": {"name": "a", "resourceVersion": "2"}, "data": {"big": big}},
        },
        {
            "type": "BOOKMARK",
            "object": {
                "metadata": {"resourceVersion": "3", "annotations": {"k8s.io/initial-events-end": "true"}}
            },
        },
        {"type": "ERROR", "object": status(410, "Expired", "too old resource version")},
    ]
    payload = b"".join(json.dumps(frame).encode() + b"\n" for frame in frames)
    seen: list[web.Request] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(request)
        response = web.StreamResponse()
        await response.prepare(request)
        for start in range(0, len(payload), 7_777):  # frames split at arbitrary points
            await response.write(payload[start : start + 7_777])
            await asyncio.sleep(0)
        await response.write_eof()
        return response

    async def body() -> list[Any]:
        async with serving(handler) as port, RESTClient(Config(host=f"http://127.0.0.1:{port}")) as rest:
            stream = await rest.watch(
                "/api/v1/configmaps", params={"resourceVersion": "0"}, timeout_seconds=60
            )
            out: list[Any] = []
            async for event in stream:
                out.append(event)
                if event.type == "ADDED":
                    break  # stop, then resume on the same stream
            async for event in stream:
                out.append(event)
            return out

    events = run(body)
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "BOOKMARK", "ERROR"]
    assert events[1].object["data"]["big"] == big
    assert events[2].is_initial_events_end() and events[2].resource_version == "3"
    assert isinstance(events[3].error(), Expired)
    assert seen[0].query_string == "resourceVersion=0&watch=true"
