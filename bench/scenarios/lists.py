"""Lists: 10,000 realistic Pods in 20 namespaces, read in pages of 500, as a Table, and by label selector.

First one namespace of 500 pods is the whole collection and is listed; then the other 9,500 pods are added and
the same namespace, the first cluster-wide page, every page by continue token, the Table form and a label
selector across namespaces are listed. The target compares a page of the big collection with the small one.

Baseline: the GET handler returning the very bytes kubelite answered each list with (for the walk: each page's
bytes in turn). Peer: kmock holding the same pods; it ignores `limit` and label selectors, so only the
namespace lists ask it the same question.
"""

from __future__ import annotations

from urllib.parse import quote

import orjson

from bench import objects
from bench.context import Context, Measured
from bench.load import Workload
from bench.report import Row
from bench.scenarios.common import fetch, fetch_json, namespaces, seed

TABLE = ("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")


def _pods(namespace_count: int, per_namespace: int) -> list[dict[str, object]]:
    return [objects.pod(f"web-{j:05d}", labels={"shard": f"s{j % namespace_count}"}) for j in range(per_namespace)]


def lists(ctx: Context) -> list[Row]:
    ns_count, per_ns = (4, 25) if ctx.settings.quick else (20, 500)
    total, page = ns_count * per_ns, per_ns
    names = [f"bench-p{i:02d}" for i in range(ns_count)]
    small = f"/api/v1/namespaces/{names[0]}/pods?limit={page}"
    first = f"/api/v1/pods?limit={page}"
    selector = f"/api/v1/pods?labelSelector=shard%3Ds{ns_count - 1}"

    data_dir = ctx.fresh_dir("list")
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, names)
    rss_empty = server.rss()
    created = seed(ctx, server.port, "pods", names[0], _pods(ns_count, per_ns))
    json_bytes = sum(len(orjson.dumps(o)) for o in created)
    server = ctx.profiled(server, data_dir, "list-small")
    bodies: dict[str, bytes] = {"small": fetch(ctx, server.port, small)}
    ours: dict[str, Measured] = {"small": ctx.measure("kubelite list small collection", server, _get(small))}
    for name in names[1:]:
        json_bytes += sum(len(orjson.dumps(o)) for o in seed(ctx, server.port, "pods", name, _pods(ns_count, per_ns)))
    rss_per_pod = (server.rss() - rss_empty) / total
    server = ctx.profiled(server, data_dir, "list")
    head = fetch_json(ctx, server.port, first)
    stored = len(head["items"]) + (head["metadata"].get("remainingItemCount") or 0)
    if stored != total:
        ctx.note(f"list: {stored:,} pods stored of the {total:,} created")
    walk = _walk(ctx, server.port, first)
    cases: dict[str, tuple[list[str], list[tuple[str, str]]]] = {
        "first": ([first], []),
        "namespace": ([small], []),
        "walk": (walk, []),
        "table": ([first], [TABLE]),
        "selector": ([selector], []),
    }
    walk_bodies = [fetch(ctx, server.port, p) for p in walk]
    for key, (paths, headers) in cases.items():
        bodies[key] = fetch(ctx, server.port, paths[0], headers)
        ours[key] = ctx.measure(f"kubelite list {key}", server, Workload("cycle", "GET", paths, headers=headers))
    ctx.stop(server)

    ceiling: dict[str, Measured] = {}
    for key in ours:
        if key == "walk":
            blob_paths = [ctx.blob(f"walk-{i}", b) for i, b in enumerate(walk_bodies)]
        else:
            blob_paths = [ctx.blob(f"list-{key}", bodies[key])]
        ceiling[key] = ctx.measure(f"baseline list {key}", ctx.baseline(), Workload("cycle", "GET", blob_paths))

    peer: dict[str, float] = {}
    kmock = ctx.kmock([("v1/pods", names[0], pod) for pod in _pods(ns_count, per_ns)])
    if kmock is not None:
        peer["small"] = ctx.measure("kmock list small collection", kmock, _get(small)).rate
        ctx.stop(kmock)
    kmock = ctx.kmock([("v1/pods", name, pod) for name in names for pod in _pods(ns_count, per_ns)])
    if kmock is not None:
        # kmock has no paging and no label selectors: only the namespace list asks it the same question
        peer["namespace"] = ctx.measure("kmock list namespace", kmock, _get(small)).rate
        ctx.stop(kmock)

    def row(key: str, label: str) -> Row:
        return Row(label, "/s", ours[key].rate, ceiling[key].rate, "same bytes", peer=peer.get(key))

    page_cost = ours["small"].rate / ours["first"].rate
    kib = {key: len(body) // 1024 for key, body in bodies.items()}
    memory = Row(
        f"memory: RSS growth per pod, {total:,} created by the API",
        "B/obj",
        None if ctx.settings.profile else rss_per_pod,
        json_bytes / total,
        "JSON",
        target="≤2.5x JSON",
        met=None if ctx.settings.profile else rss_per_pod <= 2.5 * json_bytes / total,
    )
    return [
        row("small", f"list {page} pods: the whole {page}-pod collection ({kib['small']} KiB)"),
        row("first", f"list page 1 ({page}) of {total:,} pods, all namespaces ({kib['first']} KiB)"),
        row("namespace", f"list a {page}-pod namespace, {total:,} pods stored"),
        row("walk", f"list pages 1-{len(walk)} of {total:,} by continue token, per page"),
        row("table", f"list page 1 ({page}) of {total:,} as Table ({kib['table']} KiB)"),
        row("selector", f"list all namespaces, labelSelector ({_count(bodies['selector'])} of {total:,})"),
        Row(
            f"page cost: {total:,}-pod vs {page}-pod collection",
            "x",
            page_cost,
            ceiling["small"].rate / ceiling["first"].rate,
            "same bytes",
            target="≤2x",
            met=page_cost <= 2.0,
        ),
        memory,
    ]


def _get(path: str) -> Workload:
    return Workload("cycle", "GET", [path])


def _walk(ctx: Context, port: int, first: str) -> list[str]:
    """Every page's URL, following continue tokens from the first page."""
    paths = [first]
    token = fetch_json(ctx, port, first)["metadata"].get("continue")
    while token:
        paths.append(f"{first}&continue={quote(token, safe='')}")
        token = fetch_json(ctx, port, paths[-1])["metadata"].get("continue")
    return paths


def _count(body: bytes) -> int:
    return len(orjson.loads(body)["items"])
