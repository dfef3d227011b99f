"""Informers: kubelite.client's initial sync of 10,000 and 100,000 pods (time, client CPU, peak memory) and
its event throughput, against the official `kubernetes` client doing the same work in the same run.

Data: N realistic Pods (bench/objects.py, 3.9 KB of JSON each as stored) in 10 namespaces, written into a
stopped kubelite's SQLite file by bench/seed_sqlite.py (the template pod it copies is deleted through the API
once the server is up, so exactly N are stored). Pods rather than ConfigMaps because the official client's
cost is per field, and a pod has many.

Every client run is a fresh process (bench/informer_client.py) pinned to the load core, the server on its own,
so peak memory is that client's alone: `ru_maxrss` less the RSS once the library is imported and the client
built. kubelite.client runs first on each server, so any warm-up the server needs is charged to it.

- Initial sync, all namespaces. kubelite.client: a SharedIndexInformer from SharedInformerFactory, as is,
  which streams the state as a WatchList (one watch with sendInitialEvents); timed to `has_synced`, cache size
  checked. Official client: `CoreV1Api.list_pod_for_all_namespaces()` without `limit` (its default) into a
  dict keyed by namespace/name; timed to the dict holding N. Both are one request the server answers from its
  watch cache. A paginated list (the informer's fallback, `limit=500`) is not compared: kubelite reads
  continue pages from SQLite, about 170 ms per page of 500, so it would measure the server, not the clients.
- Event throughput. A live creator cannot outrun these clients (kubelite takes about 400 pod writes/s), so the
  server replays a backlog instead: after the sync runs, M merge patches relabel the pods of one namespace and
  each client, in a new process, reads that namespace's state at the revision before them
  (`resourceVersionMatch=Exact`, not timed), then watches from that revision: the server sends the M updates
  from its watch-cache window as fast as the client takes them. kubelite.client counts them in an update
  handler (after the indexer); the official client uses `watch.Watch().stream` into its dict. The rate is the
  updates after the first over the time from the first decoded to the M-th applied (the watch's set-up left
  out); the client's CPU per event over the same span is the steadier figure, and a note says so when
  kubelite.client idled (waiting on the server) for more than a fifth of it.

Raw figures per run (wall, CPU, time in the cyclic garbage collector, peak and held RSS growth, the server's
CPU over the child's life) go to the JSON under "informer".
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import shutil
import sqlite3
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import objects, procs
from bench.context import Context
from bench.httpclient import Connection, HTTPError, build_request, request
from bench.report import Row
from bench.scenarios.common import HOST, fetch_json, namespaces, seed

TEMPLATE = "bench-template"
MERGE_PATCH = ("Content-Type", "application/merge-patch+json")
MiB = 2**20


def _stored(data_dir: Path, key: str) -> bytes:
    conn = sqlite3.connect(f"file:{data_dir / 'kubelite.db'}?mode=ro", uri=True)
    try:
        query = "SELECT l.value FROM current AS c JOIN log AS l ON l.rev = c.rev WHERE c.key = ?"
        row = conn.execute(query, (key,))
        return bytes(row.fetchone()[0])
    finally:
        conn.close()


def _dataset(ctx: Context, count: int, names: list[str]) -> Path:
    """A stopped kubelite's data dir with the namespaces, `count` pods spread over them, and the template."""
    data_dir = ctx.fresh_dir(f"informer-{count}")
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, names)
    seed(ctx, server.port, "pods", names[0], [objects.pod(TEMPLATE)])
    ctx.stop(server)
    template = data_dir.parent / f"informer-template-{count}.json"
    template.write_bytes(_stored(data_dir, f"/registry/pods/{names[0]}/{TEMPLATE}"))
    per_ns = count // len(names)
    cmd = procs.python_cmd("bench.seed_sqlite", str(data_dir), str(template), ",".join(names), str(per_ns))
    subprocess.run(cmd, capture_output=True, text=True, cwd=procs.ROOT, check=True, timeout=600)
    return data_dir


async def _patch_all(port: int, paths: list[str], body: bytes, connections: int = 32) -> None:
    pending = iter(paths)

    async def worker() -> None:
        conn = await Connection.open(HOST, port)
        try:
            for path in pending:
                status, data = await conn.roundtrip(build_request("PATCH", path, body, [MERGE_PATCH]))
                if status != 200:
                    raise HTTPError(status, data)
        finally:
            conn.close()

    await asyncio.gather(*(worker() for _ in range(min(connections, len(paths)))))


def _child(ctx: Context, server: procs.Server, client: str, *args: str) -> dict[str, Any]:
    url = f"http://{HOST}:{server.port}"
    cmd = [*ctx.where.pin_load(), *procs.python_cmd("bench.informer_client", client, url, *args)]
    cpu_before = server.cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=procs.ROOT, check=False, timeout=900)
    if proc.returncode != 0 or "BENCHJSON " not in proc.stdout:
        raise RuntimeError(f"informer client {client} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.rsplit("BENCHJSON ", 1)[1])
    result["server_cpu"] = server.cpu() - cpu_before
    return result


def _official_label(ctx: Context) -> str | None:
    if importlib.util.find_spec("kubernetes") is None:
        ctx.note("informer: the `kubernetes` package is not installed; the baseline column is empty")
        return None
    return f"kubernetes {metadata.version('kubernetes')}"


def _check(ctx: Context, what: str, result: dict[str, Any] | None, key: str, expected: int) -> None:
    if result is not None and result.get(key, 0) != expected:
        ctx.note(f"informer {what}: {result.get(key, 0):,} of {expected:,}")


def informer(ctx: Context) -> list[Row]:
    quick = ctx.settings.quick
    sizes = [200] if quick else [10_000, 100_000]
    names = [f"bench-i{i:02d}" for i in range(2 if quick else 10)]
    label = _official_label(ctx)
    clients = ["kubelite", "official"] if label else ["kubelite"]
    raw: dict[str, Any] = ctx.raw.setdefault("informer", {})
    rows: list[Row] = []
    for index, count in enumerate(sizes):
        data_dir = _dataset(ctx, count, names)
        server = ctx.kubelite(data_dir)
        template = f"/api/v1/namespaces/{names[0]}/pods/{TEMPLATE}"
        status, body = ctx.run(request(HOST, server.port, "DELETE", template))
        if status != 200:
            raise HTTPError(status, body)
        server = ctx.profiled(server, data_dir, f"informer-{count}")
        sync = {client: _child(ctx, server, client) for client in clients}
        raw[f"sync {count}"] = sync
        for client, result in sync.items():
            _check(ctx, f"{client} sync of {count:,} pods cached", result, "count", count)
        rows += _sync_rows(count, sync["kubelite"], sync.get("official"), label or "")
        if index == 0:
            rows += _events(ctx, server, names[0], count // len(names), clients, label, raw)
        ctx.stop(server)
        shutil.rmtree(data_dir, ignore_errors=True)
    return rows


def _events(
    ctx: Context,
    server: procs.Server,
    namespace: str,
    cached: int,
    clients: list[str],
    label: str | None,
    raw: dict[str, Any],
) -> list[Row]:
    total = 50 if ctx.settings.quick else 2000
    head = fetch_json(ctx, server.port, f"/api/v1/namespaces/{namespace}/pods?limit=1")
    from_rv = str(head["metadata"]["resourceVersion"])
    paths = [f"/api/v1/namespaces/{namespace}/pods/web-{j:06d}" for j in range(cached)]
    # one round per value of the label, each pod once per round: every patch is a change, so an event
    for round_number in range(math.ceil(total / cached)):
        batch = paths[: total - round_number * cached]
        body = objects.dumps({"metadata": {"labels": {"bench/round": str(round_number + 1)}}}).encode()
        ctx.run(_patch_all(server.port, batch, body))
    args = ["--namespace", namespace, "--events", str(total), "--from-rv", from_rv]
    runs = {client: _child(ctx, server, client, *args) for client in clients}
    raw[f"events {total}"] = {"cached": cached, "from_rv": from_rv, **runs}
    ours, theirs = runs["kubelite"], runs.get("official")
    for client, result in runs.items():
        _check(ctx, f"{client} replayed updates applied", result, "events_total", total)
    busy = ours["events_cpu"] / ours["events_seconds"] if ours.get("events_seconds") else 1.0
    if busy < 0.8:
        ctx.note(
            f"informer events: kubelite.client was busy {busy:.0%} of the replay (it waited on the server's"
            " delivery); its CPU per event is the comparable figure"
        )
    what, base = f"{total:,} pod updates replayed, {cached:,} cached", label or ""
    return [
        Row(f"informer event throughput ({what})", "/s", _rate(ours), _rate(theirs), base),
        Row("informer event throughput: client CPU per event", "µs", _cpu(ours), _cpu(theirs), base),
    ]


def _rate(result: dict[str, Any] | None) -> float | None:
    """Updates after the first, per second of the span from the first to the last."""
    if result is None or not result.get("events_seconds"):
        return None
    return float(result["events"] / result["events_seconds"])


def _cpu(result: dict[str, Any] | None) -> float | None:
    """The client's CPU over that span, per update in it (µs)."""
    if result is None or not result.get("events"):
        return None
    return float(result["events_cpu"] / result["events"] * 1e6)


def _sync_rows(count: int, ours: dict[str, Any], theirs: dict[str, Any] | None, base: str) -> list[Row]:
    seconds = theirs["sync_seconds"] if theirs else None
    peak = theirs["peak_growth"] / MiB if theirs else None
    return [
        Row(
            f"informer initial sync, {count:,} pods, all namespaces",
            "s",
            ours["sync_seconds"],
            seconds,
            base,
            target="faster",
            met=None if seconds is None else ours["sync_seconds"] < seconds,
        ),
        Row(
            f"informer initial sync, {count:,} pods: client CPU per pod",
            "µs",
            ours["sync_cpu"] / count * 1e6,
            theirs["sync_cpu"] / count * 1e6 if theirs else None,
            base,
        ),
        Row(
            f"informer initial sync, {count:,} pods: client peak memory growth",
            "MiB",
            ours["peak_growth"] / MiB,
            peak,
            base,
            target="less",
            met=None if peak is None else ours["peak_growth"] / MiB < peak,
        ),
    ]
