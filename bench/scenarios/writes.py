"""Writes: create (1 KiB ConfigMaps, realistic Pods) and update with optimistic concurrency, 32 connections.

Baseline: the same bodies POSTed (PUT) to the echo handler. Peer: kmock on the same requests; kmock has no
PUT, so its update is a merge PATCH of the same body, with no resourceVersion check.
"""

from __future__ import annotations

from dataclasses import replace

from bench import objects
from bench.context import Context
from bench.load import Workload
from bench.report import Row
from bench.scenarios.common import JSON, cpu_row, fetch_json, namespaces, seed

NS = "bench"


MERGE_PATCH = ("Content-Type", "application/merge-patch+json")


def _cases() -> list[tuple[str, str, str]]:
    cm = objects.dumps(objects.configmap())
    pod = objects.dumps(objects.pod())
    return [
        (f"create ConfigMap ({len(cm)} B body)", "configmaps", cm),
        (f"create Pod ({len(pod):,} B body)", "pods", pod),
    ]


def create(ctx: Context) -> list[Row]:
    cases = _cases()
    workloads = [
        Workload("create", "POST", [f"/api/v1/namespaces/{NS}/{resource}"], body, [JSON], name_prefix=f"{resource}-")
        for _, resource, body in cases
    ]
    data_dir = ctx.fresh_dir("create")
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, [NS])
    server = ctx.profiled(server, data_dir, "create")
    ours = [ctx.measure(f"kubelite {label}", server, wl) for (label, _, _), wl in zip(cases, workloads, strict=True)]
    ctx.stop(server)
    echo = [
        ctx.measure(f"baseline {label}", ctx.baseline(), replace(wl, paths=["/echo"]))
        for (label, _, _), wl in zip(cases, workloads, strict=True)
    ]
    peer: list[float | None] = [None, None]
    kmock = ctx.kmock()
    if kmock is not None:
        peer = [
            ctx.measure(f"kmock {label}", kmock, wl).rate for (label, _, _), wl in zip(cases, workloads, strict=True)
        ]
        ctx.stop(kmock)
    ctx.cache["create_rate"] = ours[0].rate
    conns = ctx.settings.connections
    rows = []
    for (label, _, _), k, e, p in zip(cases, ours, echo, peer, strict=True):
        rows.append(
            Row(
                f"{label}, {conns} conn",
                "/s",
                k.rate,
                e.rate,
                "POST echo",
                peer=p,
                target="≥40% of echo",
                met=k.rate >= 0.4 * e.rate,
            )
        )
        rows.append(cpu_row(label, k, e, "POST echo"))
    return rows


def update(ctx: Context) -> list[Row]:
    pool_size = 4 * ctx.settings.connections
    names = [f"cm-{i}" for i in range(pool_size)]
    body = objects.configmap_update(NS)
    path = f"/api/v1/namespaces/{NS}/configmaps/@NAME@"
    data_dir = ctx.fresh_dir("update")
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, [NS])
    created = seed(ctx, server.port, "configmaps", NS, [objects.configmap(n) for n in names])
    pool = [(o["metadata"]["name"], o["metadata"]["resourceVersion"]) for o in created]  # type: ignore[index]
    server = ctx.profiled(server, data_dir, "update")
    port = server.port

    def refresh() -> list[tuple[str, str]]:
        items = fetch_json(ctx, port, f"/api/v1/namespaces/{NS}/configmaps")["items"]
        return [(o["metadata"]["name"], o["metadata"].get("resourceVersion") or "1") for o in items]

    workload = Workload("update", "PUT", [path], body, [JSON], pool=pool)
    ours = ctx.measure("kubelite update ConfigMap", server, workload, refresh=refresh)
    ctx.stop(server)
    echo = ctx.measure("baseline update ConfigMap", ctx.baseline(), replace(workload, paths=["/echo"]))
    peer = None
    kmock = ctx.kmock([("v1/configmaps", NS, objects.configmap(n)) for n in names])
    if kmock is not None:
        port = kmock.port
        kmock_pool = [(n, "1") for n in names]
        patch = replace(workload, method="PATCH", headers=[MERGE_PATCH], pool=kmock_pool)
        peer = ctx.measure("kmock update ConfigMap (merge PATCH)", kmock, patch, refresh=refresh).rate
        ctx.stop(kmock)
    return [
        Row(
            f"update ConfigMap (PUT with resourceVersion), {ctx.settings.connections} conn",
            "/s",
            ours.rate,
            echo.rate,
            "PUT echo",
            peer=peer,
            peer_note="(PATCH, unchecked)" if peer is not None else "",
            target="≥35% of echo",
            met=ours.rate >= 0.35 * echo.rate,
        ),
        cpu_row("update ConfigMap", ours, echo, "PUT echo"),
    ]
