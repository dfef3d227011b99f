"""The benchmark suite in its quick mode, so that it cannot rot: it runs, prints the table, writes the JSON.

No timing is asserted: the figures of a quick run on a busy CI machine mean nothing. The pure pieces (value
formatting, ratios, the generated wrk script) are checked exactly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import load, report

ROOT = Path(__file__).resolve().parents[2]

#: the first words of every row a quick run of all scenarios prints, in order
ALL_ROWS = [
    "create ConfigMap",
    "create ConfigMap",
    "create Pod",
    "create Pod",
    "create Widget",
    "create Widget",
    "create: Widget vs ConfigMap, server CPU per request",
    "storage: SQLite insert, 1 per commit",
    "storage: create ConfigMap vs SQLite",
    "get ConfigMap by name",
    "get ConfigMap: server CPU per request",
    "get Widget by name",
    "get Widget: server CPU per request",
    "get: Widget vs ConfigMap, server CPU per request",
    "update ConfigMap (PUT with resourceVersion)",
    "update ConfigMap: server CPU per request",
    "list 25 pods: the whole 25-pod collection",
    "list page 1 (25) of 100 pods, all namespaces",
    "list a 25-pod namespace, 100 pods stored",
    "list pages 1-4 of 100 by continue token",
    "list page 1 (25) of 100 as Table",
    "list all namespaces, labelSelector",
    "page cost: 100-pod vs 25-pod collection",
    "memory: RSS growth per pod, 100 created by the API",
    "list 25 Widgets",
    "list 25 Widgets as Table, printer columns",
    "list 25: Widget vs ConfigMap, server CPU per request",
    "watch 10 watchers x 50 ev/s: p50 delivery",
    "watch 10 watchers x 50 ev/s: p99 delivery",
    "watch 10 watchers x 50 ev/s: server CPU per delivery",
    "watch 100 watchers x 20 ev/s: p50 delivery",
    "watch 100 watchers x 20 ev/s: p99 delivery",
    "watch 100 watchers x 20 ev/s: server CPU per delivery",
    "memory: RSS growth per pod, 1,001 stored",
    "memory: the same 1,001 as parsed dicts alone",
    "start-up to ready: fresh data dir",
    "start-up to ready: restart, no objects",
    "start-up to ready: restart, 1,001 pods",
    "informer initial sync, 200 pods, all namespaces",
    "informer initial sync, 200 pods: client CPU per pod",
    "informer initial sync, 200 pods: client peak memory growth",
    "informer event throughput (50 pod updates replayed",
    "informer event throughput: client CPU per event",
]

HTTP_ROWS = [r for r in ALL_ROWS if r.startswith(("create", "get", "update")) and "Widget" not in r]


def _run(tmp_path: Path, *args: str) -> tuple[str, dict[str, object]]:
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(out), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, json.loads(out.read_text())


@pytest.mark.parametrize(
    ("args", "rows", "generator"),
    [
        pytest.param(
            ["--load", "wrk"],
            ALL_ROWS,
            "wrk",
            id="all-scenarios-wrk",
            marks=pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed"),
        ),
        pytest.param(["--load", "python", "--scenario", "create,get,update"], HTTP_ROWS, "python", id="http-python"),
    ],
)
def test_quick_run_prints_the_table_and_writes_the_json(
    tmp_path: Path, args: list[str], rows: list[str], generator: str
) -> None:
    stdout, doc = _run(tmp_path, *args)
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("scenario "))
    assert lines[header].split() == ["scenario", "kubelite", "baseline", "ratio", "peer:", "kmock", "target"]
    printed = lines[header + 2 : header + 2 + len(rows)]
    assert [p.startswith(r) for p, r in zip(printed, rows, strict=True)] == [True] * len(rows)
    saved = doc["rows"]
    assert isinstance(saved, list)
    assert [s["scenario"].startswith(r) for s, r in zip(saved, rows, strict=True)] == [True] * len(rows)
    # every rate was measured (the storage rows' first one has no kubelite figure by design)
    unmeasured = [s["scenario"] for s in saved if s["unit"] == "/s" and s["kubelite"] is None]
    assert [u.startswith("storage: SQLite insert") for u in unmeasured] == [True] * len(unmeasured)
    machine = doc["machine"]
    assert isinstance(machine, dict)
    assert machine["load_generator"].startswith("wrk" if generator == "wrk" else "bench.loadgen")


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        pytest.param(12345.6, "/s", "12,346/s", id="rate"),
        pytest.param(2.345, "ms", "2.35 ms", id="small-ms"),
        pytest.param(23.45, "ms", "23.4 ms", id="mid-ms"),
        pytest.param(234.5, "µs", "234 µs", id="large-us"),
        pytest.param(2444.4, "B/obj", "2,444 B/obj", id="bytes"),
        pytest.param(1.234, "x", "1.23x", id="factor"),
        pytest.param(0.456, "s", "0.46 s", id="seconds"),
        pytest.param(None, "/s", "-", id="missing"),
    ],
)
def test_fmt(value: float | None, unit: str, text: str) -> None:
    assert report.fmt(value, unit) == text


@pytest.mark.parametrize(
    ("row", "ratio"),
    [
        pytest.param(report.Row("a", "/s", 50.0, 200.0), 0.25, id="rate"),
        pytest.param(report.Row("a", "ms", 3.0, 1.5), 2.0, id="cost"),
        pytest.param(report.Row("a", "µs", 3.0, 0.0), None, id="zero-baseline"),
        pytest.param(report.Row("a", "/s", None, 10.0), None, id="not-measured"),
    ],
)
def test_ratio(row: report.Row, ratio: float | None) -> None:
    assert row.ratio == ratio


def test_table_cells() -> None:
    row = report.Row("get", "/s", 600.0, 1000.0, "GET", peer=100.0, target="≥60% of GET", met=True)
    lines = report.table([row]).splitlines()
    assert [c.strip() for c in lines[2].split("  ") if c.strip()] == [
        "get",
        "600/s",
        "GET 1,000/s",
        "60%",
        "100/s (kubelite 6.0x)",
        "≥60% of GET ok",
    ]


@pytest.mark.parametrize(
    ("workload", "fragments"),
    [
        pytest.param(
            load.Workload("cycle", "GET", ["/a", "/b"]),
            ["local paths = {[[/a]], [[/b]]}", "local body = nil"],
            id="cycle",
        ),
        pytest.param(
            load.Workload("create", "POST", ["/x"], '{"n":"@NAME@"}', [("Content-Type", "application/json")], "cm-"),
            ['local body = [[{"n":"@NAME@"}]]', "[ [[Content-Type]] ] = [[application/json]]", "[[cm-]]"],
            id="create",
        ),
        pytest.param(
            load.Workload("update", "PUT", ["/x/@NAME@"], "]]", pool=[("a", "7")]),
            ["local pool = {{[[a]], [[7]]}}", "local body = [=[]]]=]", "function response("],
            id="update-with-long-bracket",
        ),
    ],
)
def test_lua_script(workload: load.Workload, fragments: list[str]) -> None:
    script = load.lua_script(workload)
    assert [f in script for f in fragments] == [True] * len(fragments)
