"""Set-up steps the scenarios share: namespaces, seeding objects, reading a response as the client sees it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from bench import objects
from bench.context import Context, Measured
from bench.httpclient import JSON, HTTPError, create_many, request
from bench.report import Row

HOST = "127.0.0.1"


def namespaces(ctx: Context, port: int, names: Iterable[str]) -> None:
    bodies = [("/api/v1/namespaces", orjson.dumps(objects.namespace(n))) for n in names]
    ctx.run(create_many(HOST, port, bodies, connections=8))


def seed(ctx: Context, port: int, resource: str, namespace: str, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Create `objs` in `namespace` over 32 connections; returns the created objects."""
    path = f"/api/v1/namespaces/{namespace}/{resource}"
    created = ctx.run(create_many(HOST, port, [(path, orjson.dumps(o)) for o in objs]))
    return created  # type: ignore[return-value]


def fetch(ctx: Context, port: int, path: str, headers: Iterable[tuple[str, str]] = ()) -> bytes:
    status, body = ctx.run(request(HOST, port, "GET", path, headers=list(headers)))
    if status != 200:
        raise HTTPError(status, body)
    return body


def fetch_json(ctx: Context, port: int, path: str) -> Any:
    return orjson.loads(fetch(ctx, port, path, [("Accept", "application/json")]))


def cpu_row(label: str, ours: Measured, baseline: Measured, baseline_label: str) -> Row:
    """The server's CPU per request: steadier than a rate on a noisy machine, and what a profile explains."""
    return Row(f"{label}: server CPU per request", "µs", ours.cpu_us, baseline.cpu_us, baseline_label)


__all__ = ["HOST", "JSON", "cpu_row", "fetch", "fetch_json", "namespaces", "seed"]
