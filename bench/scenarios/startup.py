"""Memory with 100,000 pods stored, and start-up time to ready with 0 and 100,000 objects.

The 100,000 pods are copies of one pod created through the API, written into the stopped server's SQLite file
(bench/seed_sqlite.py: the API would take minutes). Memory: the RSS of kubelite started on them, less that of
a kubelite holding none, per pod, against the pods' stored JSON size; beside it, the same pods held as parsed
dicts by a bare Python process (bench/memfloor.py). The list scenario reports RSS for pods created by the API.

Start-up: from spawning `kubelite serve` (TLS on, as users run it) to `/readyz` answering 200; on a fresh data
dir (certificates are generated), on a restart with no objects, and on a restart with the 100,000 pods. The
baselines are `python -c pass` and, with objects, reading and parsing the same rows from the SQLite file.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import objects, procs
from bench.context import Context
from bench.httpclient import request
from bench.report import Row
from bench.scenarios.common import HOST, namespaces, seed


def _dataset(ctx: Context) -> dict[str, Any]:
    """A data dir holding N pods (see bench/seed_sqlite.py), and the RSS of a kubelite with none."""
    if "pods" in ctx.cache:
        return ctx.cache["pods"]  # type: ignore[no-any-return]
    count, ns_count = (1000, 2) if ctx.settings.quick else (100_000, 10)
    data_dir = ctx.fresh_dir("pods")
    server = ctx.kubelite(data_dir)
    names = [f"bench-m{i}" for i in range(ns_count)]
    namespaces(ctx, server.port, names)
    seed(ctx, server.port, "pods", names[0], [objects.pod("bench-template")])
    rss_empty = server.rss()
    ctx.stop(server)
    template = ctx.tmp / "template-pod.json"
    template.write_bytes(_stored(data_dir, f"/registry/pods/{names[0]}/bench-template"))
    per_ns = count // ns_count
    cmd = procs.python_cmd("bench.seed_sqlite", str(data_dir), str(template), ",".join(names), str(per_ns))
    subprocess.run(cmd, capture_output=True, text=True, cwd=procs.ROOT, check=True, timeout=600)
    floor = _floor(ctx, data_dir)
    info = {"dir": data_dir, "count": floor["objects"], "rss_empty": rss_empty, "floor": floor}
    ctx.raw["pods dataset"] = {k: v for k, v in info.items() if k != "dir"}
    ctx.cache["pods"] = info
    return info


def _stored(data_dir: Path, key: str) -> bytes:
    conn = sqlite3.connect(f"file:{data_dir / 'kubelite.db'}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT l.value FROM current AS c JOIN log AS l ON l.rev = c.rev WHERE c.key = ?", (key,))
        return bytes(row.fetchone()[0])
    finally:
        conn.close()


def _floor(ctx: Context, data_dir: Path) -> dict[str, Any]:
    db = str(data_dir / "kubelite.db")
    cmd = [*ctx.where.pin_server(), *procs.python_cmd("bench.memfloor", db)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=procs.ROOT, check=True, timeout=300).stdout
    return json.loads(out.split("BENCHJSON ", 1)[1])  # type: ignore[no-any-return]


def _start(ctx: Context, data_dir: Path) -> tuple[float, procs.Server]:
    """Seconds from spawn to /readyz 200, and the running server."""
    started = time.perf_counter()
    server = ctx.start_server("kubelite-startup", procs.kubelite_cmd(data_dir, tls=True))
    while True:
        status, _ = ctx.run(request(HOST, server.port, "GET", "/readyz"))
        if status == 200:
            return time.perf_counter() - started, server
        time.sleep(0.005)


def _time_starts(ctx: Context, data_dir: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        seconds, server = _start(ctx, data_dir)
        ctx.stop(server)
        times.append(seconds)
    return statistics.median(times)


def _python_pass(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def memory(ctx: Context) -> list[Row]:
    data = _dataset(ctx)
    count, floor = data["count"], data["floor"]
    seconds, server = _start(ctx, data["dir"])
    rss = server.rss()
    ctx.stop(server)
    data["tls_started"] = True  # that start wrote the certificates
    ctx.raw["memory"] = {"rss": rss, "start_seconds": seconds}
    json_per_pod = floor["json_bytes"] / floor["objects"]
    per_pod = (rss - data["rss_empty"]) / count
    return [
        Row(
            f"memory: RSS growth per pod, {count:,} stored",
            "B/obj",
            per_pod,
            json_per_pod,
            "JSON",
            target="≤2.5x JSON",
            met=per_pod <= 2.5 * json_per_pod,
        ),
        Row(
            f"memory: the same {count:,} as parsed dicts alone",
            "B/obj",
            per_pod,
            floor["rss_growth"] / floor["objects"],
            "dicts",
        ),
    ]


def startup(ctx: Context) -> list[Row]:
    runs = 1 if ctx.settings.quick else 5
    baseline = _python_pass(runs)
    fresh_dirs = [ctx.fresh_dir("startup") for _ in range(runs)]
    fresh = statistics.median(_time_starts(ctx, d, 1) for d in fresh_dirs)
    restart = _time_starts(ctx, fresh_dirs[0], runs)
    data = _dataset(ctx)
    if not data.get("tls_started"):
        _time_starts(ctx, data["dir"], 1)  # the first TLS start writes the certificates: not counted
    # one run: at this size the start is long enough that noise matters little, and it costs the most time
    loaded = _time_starts(ctx, data["dir"], 1)
    count = data["count"]
    ctx.raw["startup"] = {"python": baseline, "fresh": fresh, "restart": restart, "loaded": loaded}
    return [
        Row("start-up to ready: fresh data dir (writes the PKI)", "s", fresh, baseline, "python -c pass"),
        Row("start-up to ready: restart, no objects", "s", restart, baseline, "python -c pass"),
        Row(
            f"start-up to ready: restart, {count:,} pods",
            "s",
            loaded,
            data["floor"]["seconds"],
            "read+parse, GC off",
            target="≤5 s",
            met=loaded <= 5.0,
        ),
    ]
