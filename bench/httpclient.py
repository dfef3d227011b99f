"""A minimal HTTP/1.1 keep-alive client on asyncio streams, for seeding and for the Python load generator.

A general client (aiohttp's, the Kubernetes client) spends more CPU per request than the server it measures;
this one writes prebuilt request bytes and reads exactly one response (Content-Length or chunked).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import orjson


class HTTPError(Exception):
    """A response whose status was not the one expected."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"HTTP {status}: {body[:300]!r}")
        self.status = status
        self.body = body


def build_request(
    method: str, path: str, body: bytes = b"", headers: Iterable[tuple[str, str]] = (), host: str = "127.0.0.1"
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines.extend(f"{name}: {value}" for name, value in headers)
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Connection:
    """One keep-alive connection; requests on it are sequential."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)
        return cls(reader, writer)

    async def roundtrip(self, raw: bytes) -> tuple[int, bytes]:
        self.writer.write(raw)
        return await self.read_response()

    async def read_response(self) -> tuple[int, bytes]:
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = -1
        chunked = False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    break
                parts.append(await self.reader.readexactly(size + 2))
            return status, b"".join(p[:-2] for p in parts)
        if length < 0:
            return status, await self.reader.read()
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def request(
    host: str, port: int, method: str, path: str, body: bytes = b"", headers: Iterable[tuple[str, str]] = ()
) -> tuple[int, bytes]:
    """One request on a fresh connection (set-up steps, not measurements)."""
    conn = await Connection.open(host, port)
    try:
        return await conn.roundtrip(build_request(method, path, body, [*headers, ("Connection", "close")]))
    finally:
        conn.close()


JSON = ("Content-Type", "application/json")


async def create_many(
    host: str, port: int, path_and_bodies: list[tuple[str, bytes]], connections: int = 32
) -> list[dict[str, object]]:
    """POST every body (201 expected) over `connections` keep-alive connections; return the created objects."""
    results: list[dict[str, object]] = [{} for _ in path_and_bodies]
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        conn = await Connection.open(host, port)
        try:
            while next_index < len(path_and_bodies):
                index = next_index
                next_index += 1
                path, body = path_and_bodies[index]
                status, data = await conn.roundtrip(build_request("POST", path, body, [JSON]))
                if status not in (200, 201):
                    raise HTTPError(status, data)
                results[index] = orjson.loads(data)
        finally:
            conn.close()

    await asyncio.gather(*(worker() for _ in range(min(connections, len(path_and_bodies)))))
    return results
