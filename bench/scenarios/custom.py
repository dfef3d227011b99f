"""Custom resources beside the ConfigMap rows: create, get by name and list of a CRD's objects of the same size
as the 1 KiB ConfigMap, 32 connections. Each run starts a fresh kubelite and creates the CRD (a typical operator's:
a structural schema of typed fields, status and scale subresources, printer columns), waits for it to be
Established and served, then measures.

Baselines as for the ConfigMap rows (the POST echo; the GET handler returning the very bytes kubelite answered
with), and the same measurement of ConfigMaps on the same server in the same run: the cost of serving a kind
through its CRD rather than as a built-in, in server CPU per request.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from bench import objects, procs
from bench.context import Context, Measured
from bench.httpclient import HTTPError, create_many, request
from bench.load import Workload
from bench.report import Row
from bench.scenarios.common import HOST, JSON, cpu_row, fetch, namespaces

NS = "bench"
GROUP = "bench.kubelite.io"
WIDGETS = f"/apis/{GROUP}/v1/namespaces/{NS}/widgets"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
TABLE = ("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")


def crd() -> dict[str, Any]:
    string, integer = {"type": "string"}, {"type": "integer"}
    spec = {
        "type": "object",
        "required": ["image"],
        "properties": {
            "replicas": {"type": "integer", "minimum": 0},
            "image": string,
            "port": integer,
            "paused": {"type": "boolean"},
            "resources": {"type": "object", "properties": {"cpu": string, "memory": string}},
            "env": {
                "type": "array",
                "items": {"type": "object", "required": ["name"], "properties": {"name": string, "value": string}},
            },
            "config": {"type": "object", "additionalProperties": string},
        },
    }
    status = {
        "type": "object",
        "properties": {
            "phase": string,
            "readyReplicas": integer,
            "conditions": {
                "type": "array",
                "items": {"type": "object", "properties": {"type": string, "status": string, "reason": string}},
            },
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec, "status": status}}},
                    "subresources": {
                        "status": {},
                        "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.readyReplicas"},
                    },
                    "additionalPrinterColumns": [
                        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                        {"name": "Image", "type": "string", "jsonPath": ".spec.image"},
                        {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    ],
                }
            ],
        },
    }


def widget(name: str = objects.NAME) -> dict[str, Any]:
    """A Widget whose body is as long as the benchmark's ConfigMap's, padded in its config map."""
    obj: dict[str, Any] = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": {
            "replicas": 3,
            "image": "registry.example.com/shop/web:1.24.3",
            "port": 8080,
            "paused": False,
            "resources": {"cpu": "100m", "memory": "128Mi"},
            "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "REGION", "value": "eu-west-1"}],
            "config": {"payload": ""},
        },
    }
    pad = len(objects.dumps(objects.configmap(name))) - len(objects.dumps(obj))
    obj["spec"]["config"]["payload"] = "x" * max(pad, 0)
    return obj


def install_crd(ctx: Context, port: int) -> None:
    """Create the CRD and wait until its resource is served."""
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    status, body = ctx.run(request(HOST, port, "POST", path, orjson.dumps(crd()), [JSON]))
    if status != 201:
        raise HTTPError(status, body)
    wait_served(ctx, port)


def wait_served(ctx: Context, port: int, timeout: float = 30.0) -> None:
    """Until the Widgets answer a list: once the CRD is Established, or read back after a restart."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = ctx.run(request(HOST, port, "GET", WIDGETS))
        if status == 200:
            return
        if time.monotonic() > deadline:
            raise HTTPError(status, body)
        time.sleep(0.05)


def _seed(ctx: Context, port: int, path: str, objs: list[dict[str, Any]]) -> None:
    ctx.run(create_many(HOST, port, [(path, orjson.dumps(o)) for o in objs]))


def _server(ctx: Context, name: str) -> tuple[procs.Server, Path]:
    data_dir = ctx.fresh_dir(name)
    server = ctx.kubelite(data_dir)
    namespaces(ctx, server.port, [NS])
    install_crd(ctx, server.port)
    return server, data_dir


def _versus_configmap(label: str, widgets: Measured, configmaps: Measured) -> Row:
    # server CPU, not rates: the two are measured one after the other, and on a shared machine a rate moves with
    # whatever else runs meanwhile
    return Row(
        f"{label}: Widget vs ConfigMap, server CPU per request", "µs", widgets.cpu_us, configmaps.cpu_us, "ConfigMap"
    )


def cr_create(ctx: Context) -> list[Row]:
    body = objects.dumps(widget())
    ours = Workload("create", "POST", [WIDGETS], body, [JSON], name_prefix="widget-")
    builtin = Workload("create", "POST", [CONFIGMAPS], objects.dumps(objects.configmap()), [JSON], name_prefix="cm-")
    server, data_dir = _server(ctx, "cr-create")
    server = ctx.profiled(server, data_dir, "cr-create")
    wait_served(ctx, server.port)
    widgets = ctx.measure("kubelite create Widget", server, ours)
    configmaps = ctx.measure("kubelite create ConfigMap beside Widgets", server, builtin)
    ctx.stop(server)
    echo = ctx.measure("baseline create Widget", ctx.baseline(), replace(ours, paths=["/echo"]))
    label = f"create Widget ({len(body)} B body)"
    return [
        Row(f"{label}, {ctx.settings.connections} conn", "/s", widgets.rate, echo.rate, "POST echo"),
        cpu_row(label, widgets, echo, "POST echo"),
        _versus_configmap("create", widgets, configmaps),
    ]


def cr_get(ctx: Context) -> list[Row]:
    count = 100 if ctx.settings.quick else 1000
    names = [f"w-{i}" for i in range(count)]
    widget_paths = [f"{WIDGETS}/{n}" for n in names]
    random.Random(6).shuffle(widget_paths)
    server, data_dir = _server(ctx, "cr-get")
    _seed(ctx, server.port, WIDGETS, [widget(n) for n in names])
    _seed(ctx, server.port, CONFIGMAPS, [objects.configmap(n) for n in names])
    server = ctx.profiled(server, data_dir, "cr-get")
    wait_served(ctx, server.port)
    body = fetch(ctx, server.port, widget_paths[0])
    widgets = ctx.measure("kubelite get Widget", server, Workload("cycle", "GET", widget_paths))
    configmap_paths = [path.replace(WIDGETS, CONFIGMAPS) for path in widget_paths]
    configmaps = ctx.measure("kubelite get ConfigMap beside Widgets", server, Workload("cycle", "GET", configmap_paths))
    ctx.stop(server)
    ceiling = ctx.measure("baseline get Widget", ctx.baseline(), Workload("cycle", "GET", [ctx.blob("widget", body)]))
    return [
        Row(
            f"get Widget by name ({len(body)} B), {ctx.settings.connections} conn",
            "/s",
            widgets.rate,
            ceiling.rate,
            "GET",
        ),
        cpu_row("get Widget", widgets, ceiling, "GET"),
        _versus_configmap("get", widgets, configmaps),
    ]


def cr_list(ctx: Context) -> list[Row]:
    count = 25 if ctx.settings.quick else 500
    names = [f"w-{i:04d}" for i in range(count)]
    server, data_dir = _server(ctx, "cr-list")
    _seed(ctx, server.port, WIDGETS, [widget(n) for n in names])
    _seed(ctx, server.port, CONFIGMAPS, [objects.configmap(n) for n in names])
    server = ctx.profiled(server, data_dir, "cr-list")
    wait_served(ctx, server.port)
    cases: dict[str, tuple[str, list[tuple[str, str]]]] = {
        "list": (WIDGETS, []),
        "table": (WIDGETS, [TABLE]),
        "configmaps": (CONFIGMAPS, []),
    }
    bodies: dict[str, bytes] = {}
    ours: dict[str, Measured] = {}
    for key, (path, headers) in cases.items():
        bodies[key] = fetch(ctx, server.port, path, headers)
        ours[key] = ctx.measure(
            f"kubelite list {key} (Widgets)", server, Workload("cycle", "GET", [path], headers=headers)
        )
    ctx.stop(server)
    ceiling = {
        key: ctx.measure(
            f"baseline list {key} (Widgets)",
            ctx.baseline(),
            Workload("cycle", "GET", [ctx.blob(f"cr-{key}", bodies[key])]),
        )
        for key in ("list", "table")
    }
    kib = {key: len(body) // 1024 for key, body in bodies.items()}
    return [
        Row(f"list {count} Widgets ({kib['list']} KiB)", "/s", ours["list"].rate, ceiling["list"].rate, "same bytes"),
        Row(
            f"list {count} Widgets as Table, printer columns ({kib['table']} KiB)",
            "/s",
            ours["table"].rate,
            ceiling["table"].rate,
            "same bytes",
        ),
        _versus_configmap(f"list {count}", ours["list"], ours["configmaps"]),
    ]
