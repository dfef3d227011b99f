"""Watch fan-out: W watchers on one namespace's pods while pods are created there at a fixed rate.

For each (watchers, events/s): a run without watchers gives the server's CPU for the creates alone; the run with
watchers gives delivery latency (creator's send to watcher's read, p50/p99), dropped watchers, and the server
CPU the deliveries added, per delivery. Watchers are spread over processes of at most 250 streams on the
load core (see bench/watchers.py); the creator is this process, open-loop on a 5 ms tick.

Baseline: the same creator and watchers against the baseline server's publish/watch fan-out, which only
writes each event's bytes to every stream.
"""

from __future__ import annotations

import array
import asyncio
import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench import objects, procs
from bench.context import Context
from bench.httpclient import JSON, Connection, build_request
from bench.report import Row
from bench.scenarios.common import HOST, namespaces

PER_PROCESS = 250


@dataclass
class Fanout:
    watchers: int
    events: int
    seconds: float
    deliveries: int
    dropped: int
    p50_ms: float
    p99_ms: float
    cpu: float
    #: CPU the load side (this process and the watcher processes) spent, on its one core
    load_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0


def _template(namespace: str | None) -> str:
    return objects.dumps(objects.pod(objects.NAME, namespace, annotations={"bench/t": "@T@"}))


async def _create_at_rate(
    port: int,
    path: str,
    template: str,
    rate: float,
    seconds: float,
    prefix: str,
    fill: Callable[[str, int], str] | None = None,
) -> tuple[int, int, float]:
    """Create on a schedule of `rate` per second for `seconds` over up to 64 connections; what the server cannot
    take in time is not sent. `fill(body, i)` fills in the i-th body's own placeholders, if any. Returns
    (created, failed, seconds from the first send to the last answer)."""
    total = max(1, int(rate * seconds))
    free: asyncio.Queue[Connection] = asyncio.Queue()
    conns = [await Connection.open(HOST, port) for _ in range(64)]
    for conn in conns:
        free.put_nowait(conn)
    created = failed = 0
    start = time.perf_counter()
    deadline = start + seconds * 1.2

    async def one(i: int) -> None:
        nonlocal created, failed
        conn = await free.get()
        try:
            if time.perf_counter() > deadline:
                return
            body = template.replace(objects.NAME, f"{prefix}{i}")
            if fill is not None:
                body = fill(body, i)
            body = body.replace("@T@", str(time.monotonic_ns()))
            status, _ = await conn.roundtrip(build_request("POST", path, body.encode(), [JSON]))
        finally:
            free.put_nowait(conn)
        if status in (200, 201):
            created += 1
        else:
            failed += 1

    tasks = []
    sent = 0
    while sent < total:
        due = min(total, int((time.perf_counter() - start) * rate) + 1)
        while sent < due:
            tasks.append(asyncio.create_task(one(sent)))
            sent += 1
        await asyncio.sleep(0.005)
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    for conn in conns:
        conn.close()
    return created, failed, elapsed


def _start_watchers(
    ctx: Context, port: int, path: str, count: int, *, numbered: bool = False
) -> list[tuple[subprocess.Popen[str], str]]:
    """`count` streams of `path`; `numbered`: stream i watches `path` with `@I@` replaced by i."""
    procs_out = []
    for index in range(0, count, PER_PROCESS):
        n = min(PER_PROCESS, count - index)
        out = str(ctx.tmp / f"latencies-{port}-{index}.bin")
        args = [HOST, str(port), path, str(n), out, *([str(index)] if numbered else [])]
        cmd = [*ctx.where.pin_load(), *procs.python_cmd("bench.watchers", *args)]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=procs.ROOT)
        procs_out.append((proc, out))
    for proc, _ in procs_out:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"watchers did not start: {line!r}")
    return procs_out


def _ask(proc: subprocess.Popen[str], command: str) -> str:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def run_fanout(
    ctx: Context,
    server: procs.Server,
    create_path: str,
    watch_path: str,
    template: str,
    watchers: int,
    rate: float,
    prefix: str,
    *,
    fill: Callable[[str, int], str] | None = None,
    per_event: int | None = None,
) -> Fanout:
    """One run; `fill` and numbered watchers (`@I@` in `watch_path`) when each event is for `per_event` of
    the watchers only (all of them by default)."""
    seconds = 0.5 if ctx.settings.quick else 5.0
    numbered = "@I@" in watch_path
    group = _start_watchers(ctx, server.port, watch_path, watchers, numbered=numbered) if watchers else []
    cpu_before = server.cpu()
    load_before = time.process_time() + sum(procs.cpu_seconds(p.pid) for p, _ in group)
    created, failed, elapsed = ctx.run(_create_at_rate(server.port, create_path, template, rate, seconds, prefix, fill))
    if failed:
        ctx.note(f"watch on {server.name}: {failed} creates failed")
    expected = created * (watchers if per_event is None else per_event)
    deadline = time.monotonic() + (2.0 if ctx.settings.quick else 10.0)
    while group and time.monotonic() < deadline:
        if sum(int(_ask(p, "count")) for p, _ in group) >= expected:
            break
        time.sleep(0.05)
    cpu = server.cpu() - cpu_before
    load_cpu = time.process_time() + sum(procs.cpu_seconds(p.pid) for p, _ in group) - load_before
    latencies: array.array[int] = array.array("q")
    counts: list[int] = []
    closed = 0
    for proc, out in group:
        result: dict[str, Any] = json.loads(_ask(proc, "stop").split("BENCHJSON ", 1)[1])
        proc.wait(timeout=30)
        counts += result["counts"]
        closed += result["closed"]
        with open(out, "rb") as f:
            latencies.frombytes(f.read())
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(len(ordered) * p))] / 1e6 if ordered else 0.0

    dropped = sum(1 for c in counts if c < created) if per_event is None else 0
    if load_cpu > 0.85 * elapsed:
        ctx.note(f"watch on {server.name}, {watchers} watchers: the load core was busy {load_cpu / elapsed:.0%}")
    return Fanout(watchers, created, elapsed, sum(counts), max(dropped, closed), pct(0.5), pct(0.99), cpu, load_cpu)


def _configs(ctx: Context) -> list[tuple[int, int]]:
    if ctx.settings.quick:
        return [(10, 50), (100, 20)]
    return [(10, 2000), (100, 500), (1000, 50)]


def _targets(watchers: int, rate: int) -> float | None:
    return {(1000, 50): 100.0, (10, 2000): 50.0}.get((watchers, rate))


def fanout(ctx: Context) -> list[Row]:
    configs = _configs(ctx)
    data_dir = ctx.fresh_dir("watch")
    server = ctx.kubelite(data_dir)
    names = [f"bench-w{w}" for w, _ in configs]
    namespaces(ctx, server.port, names)
    server = ctx.profiled(server, data_dir, "watch")
    ours: list[tuple[Fanout, Fanout]] = []
    for (watchers, rate), ns in zip(configs, names, strict=True):
        create_path = f"/api/v1/namespaces/{ns}/pods"
        watch_path = f"/api/v1/namespaces/{ns}/pods?watch=true"
        template = _template(None)
        # watchers first: they start at the newest revision and must not see the other run's pods
        fan = run_fanout(ctx, server, create_path, watch_path, template, watchers, rate, "w-")
        alone = run_fanout(ctx, server, create_path, watch_path, template, 0, rate, "a-")
        ours.append((alone, fan))
    ctx.stop(server)
    base: list[tuple[Fanout, Fanout]] = []
    baseline = ctx.baseline()
    for watchers, rate in configs:
        template = _template("bench")
        fan = run_fanout(ctx, baseline, "/publish", "/watch", template, watchers, rate, "w-")
        alone = run_fanout(ctx, baseline, "/publish", "/watch", template, 0, rate, "a-")
        base.append((alone, fan))

    rows: list[Row] = []
    for (watchers, rate), (k_alone, k), (b_alone, b) in zip(configs, ours, base, strict=True):
        ctx.raw[f"watch {watchers}x{rate}"] = {
            "kubelite": [k_alone.__dict__, k.__dict__],
            "baseline": [b_alone.__dict__, b.__dict__],
        }
        label = f"watch {watchers:,} watchers x {rate:,} ev/s"
        limit = _targets(watchers, rate)
        complete = k.dropped == 0 and k.deliveries == k.events * watchers
        if k.rate < 0.9 * rate:
            ctx.note(f"{label}: kubelite created only {k.rate:,.0f} pods/s")
        if not complete:
            ctx.note(f"{label}: {k.dropped} watchers dropped, {k.deliveries:,} of {k.events * watchers:,} delivered")
        rows.append(Row(f"{label}: p50 delivery", "ms", k.p50_ms, b.p50_ms, "fan-out"))
        rows.append(
            Row(
                f"{label}: p99 delivery",
                "ms",
                k.p99_ms,
                b.p99_ms,
                "fan-out",
                target=f"≤{limit:.0f} ms, none dropped" if limit else "none dropped",
                met=(k.p99_ms <= limit if limit else True) and complete,
            )
        )
        rows.append(
            Row(
                f"{label}: server CPU per delivery",
                "µs",
                _per_delivery(k_alone, k),
                _per_delivery(b_alone, b),
                "fan-out",
                target="a few µs",
            )
        )
    return rows


def _per_delivery(alone: Fanout, fan: Fanout) -> float | None:
    """CPU the deliveries added: the run's CPU less the creates' own (scaled to the same count), per delivery.
    None when the server's core was saturated: then CPU time no longer tells what the work cost."""
    if not fan.deliveries or not alone.events or max(alone.cpu / alone.seconds, fan.cpu / fan.seconds) > 0.9:
        return None
    return max(0.0, fan.cpu - alone.cpu * fan.events / alone.events) / fan.deliveries * 1e6
