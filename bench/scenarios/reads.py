"""Get by name: 1 KiB ConfigMaps, cycling over many names, 32 connections.

Baseline: the GET handler returning the very bytes kubelite answers with. Peer: kmock holding the same objects.
"""

from __future__ import annotations

import random

from bench import objects
from bench.context import Context
from bench.load import Workload
from bench.report import Row
from bench.scenarios.common import cpu_row, fetch, namespaces, seed

NS = "bench"


def get(ctx: Context) -> list[Row]:
    count = 100 if ctx.settings.quick else 1000
    names = [f"cm-{i}" for i in range(count)]
    paths = [f"/api/v1/namespaces/{NS}/configmaps/{n}" for n in names]
    random.Random(6).shuffle(paths)
    workload = Workload("cycle", "GET", paths)
    data_dir = ctx.fresh_dir("get")
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, [NS])
    seed(ctx, server.port, "configmaps", NS, [objects.configmap(n) for n in names])
    server = ctx.profiled(server, data_dir, "get")
    body = fetch(ctx, server.port, paths[0])
    ours = ctx.measure("kubelite get ConfigMap", server, workload)
    ctx.stop(server)
    ceiling = ctx.measure("baseline get ConfigMap", ctx.baseline(), Workload("cycle", "GET", [ctx.blob("cm", body)]))
    peer = None
    kmock = ctx.kmock([("v1/configmaps", NS, objects.configmap(n)) for n in names])
    if kmock is not None:
        peer = ctx.measure("kmock get ConfigMap", kmock, workload).rate
        ctx.stop(kmock)
    return [
        Row(
            f"get ConfigMap by name ({len(body)} B), {ctx.settings.connections} conn",
            "/s",
            ours.rate,
            ceiling.rate,
            "GET",
            peer=peer,
            target="≥60% of GET",
            met=ours.rate >= 0.6 * ceiling.rate,
        ),
        cpu_row("get ConfigMap", ours, ceiling, "GET"),
    ]
