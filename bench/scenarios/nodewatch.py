"""Node-pinned watch fan-out: N watchers, each on `pods?fieldSelector=spec.nodeName=<its node>` across all
namespaces (as N kubelets watch), while pods bound to those nodes are created at a fixed rate, each to the
next node in turn, so every event is for exactly one watcher.

What it measures is what the other N-1 watchers cost: a run without watchers gives the server's CPU for the
creates alone, the run with them the CPU per write their filtering and delivery added, and the delivery
latency (creator's send to watcher's read). The server runs without its simulated cluster, so the writes are
the creator's alone. There is no baseline server column: it has no field selectors.
"""

from __future__ import annotations

from bench import objects, procs
from bench.context import Context
from bench.report import Row
from bench.scenarios.common import fetch_json, namespaces
from bench.scenarios.watch import Fanout, run_fanout

NODE = "@NODE@"
NAMESPACE = "bench-nodes"


def _template() -> str:
    pod = objects.pod(objects.NAME, None, annotations={"bench/t": "@T@"})
    pod["spec"]["nodeName"] = NODE
    return objects.dumps(pod)


def _configs(ctx: Context) -> list[tuple[int, int]]:
    if ctx.settings.quick:
        return [(100, 50)]
    return [(1000, 50), (1000, 200)]


def nodewatch(ctx: Context) -> list[Row]:
    data_dir = ctx.fresh_dir("nodewatch")
    server = ctx.start_server("kubelite", procs.kubelite_cmd(data_dir))  # an API server alone
    namespaces(ctx, server.port, [NAMESPACE])
    rows: list[Row] = []
    for watchers, rate in _configs(ctx):

        def fill(body: str, i: int, nodes: int = watchers) -> str:
            return body.replace(NODE, f"bench-node-{i % nodes}")

        create_path = f"/api/v1/namespaces/{NAMESPACE}/pods"
        # from the newest revision: without one a watch starts with the earlier runs' pods as ADDED events
        now = fetch_json(ctx, server.port, "/api/v1/pods?limit=1")["metadata"]["resourceVersion"]
        watch_path = f"/api/v1/pods?watch=true&resourceVersion={now}&fieldSelector=spec.nodeName%3Dbench-node-@I@"
        template = _template()
        run = f"{watchers}x{rate}-"
        fan = run_fanout(
            ctx, server, create_path, watch_path, template, watchers, rate, f"n{run}", fill=fill, per_event=1
        )
        alone = run_fanout(ctx, server, create_path, watch_path, template, 0, rate, f"a{run}", fill=fill)
        rows += _rows(ctx, watchers, rate, alone, fan)
    ctx.stop(server)
    return rows


def _rows(ctx: Context, watchers: int, rate: int, alone: Fanout, fan: Fanout) -> list[Row]:
    ctx.raw[f"nodewatch {watchers}x{rate}"] = {"kubelite": [alone.__dict__, fan.__dict__]}
    label = f"node-pinned watch {watchers:,} watchers x {rate:,} writes/s"
    complete = fan.dropped == 0 and fan.deliveries == fan.events
    if fan.rate < 0.9 * rate:
        ctx.note(f"{label}: kubelite created only {fan.rate:,.0f} pods/s")
    if not complete:
        ctx.note(f"{label}: {fan.dropped} watchers closed, {fan.deliveries:,} of {fan.events:,} delivered")
    added = None
    if fan.events and alone.events and max(alone.cpu / alone.seconds, fan.cpu / fan.seconds) <= 0.9:
        added = max(0.0, fan.cpu - alone.cpu * fan.events / alone.events) / fan.events * 1e6
    return [
        Row(f"{label}: p50 delivery", "ms", fan.p50_ms),
        Row(f"{label}: p99 delivery", "ms", fan.p99_ms, target="none dropped", met=complete),
        Row(f"{label}: server CPU per write", "µs", fan.cpu / fan.events * 1e6 if fan.events else None),
        Row(f"{label}: server CPU the watchers added per write", "µs", added),
    ]
